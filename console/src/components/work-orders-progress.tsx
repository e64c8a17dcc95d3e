import { api, unwrap, type Schema } from '../api/client'
import { failureText } from '../lib/problems'
import { Link } from '../lib/router'
import { useApi } from '../lib/use-api'
import { Badge, ErrorMessage, Loading } from './status'

type StepName = Schema<'InstallmentProgressStep'>['name']

/** What each installation step is, in words an operator checks against (complete by type). */
const STEP_NAMES: Record<StepName, string> = {
  group: 'Group created',
  coverage_period: 'Coverage period added',
  plans: 'Plans added',
  employment_classifications: 'Employment classifications (optional)',
  subscribers: 'Subscribers added',
  qualifying_life_events: 'Qualifying life events (enrollments) added',
  complete_setup: 'Setup completed',
}

/**
 * The counts of a coverage period (members, enrolled members, plans, errors by status) and, when
 * it installs a group installment, the setup's steps. `generation` changes to reload both.
 */
export function WorkOrderProgress({ coveragePeriodId, generation }: { coveragePeriodId: string; generation: number }) {
  const summary = useApi(
    async (signal) => unwrap(await api.GET('/coverage_periods/{id}/summary', { params: { path: { id: coveragePeriodId } }, signal })).summary,
    [coveragePeriodId, generation],
  )
  const installmentId = summary.data?.group_installment_id ?? null
  const installment = useApi(
    async (signal) => (installmentId ? unwrap(await api.GET('/group_installments/{id}', { params: { path: { id: installmentId } }, signal })).group_installment : null),
    [installmentId, generation],
  )

  const s = summary.data
  return (
    <section className="panel" aria-labelledby="work-order-progress">
      <h2 id="work-order-progress">Members and progress</h2>
      {summary.state === 'error' && <ErrorMessage error={failureText(summary.error, 'The coverage period')} onRetry={summary.reload} />}
      {!s && summary.state === 'loading' && <Loading what="Counting the members" />}
      {s && (
        <div className="columns">
          <div>
            <h3>Counts</h3>
            <dl className="facts">
              <dt>Subscribers</dt>
              <dd>{s.subscribers.toLocaleString()}</dd>
              <dt>Dependents</dt>
              <dd>{s.dependents.toLocaleString()}</dd>
              <dt>Enrolled members</dt>
              <dd>{s.enrolled_members.toLocaleString()}</dd>
              <dt>Plans</dt>
              <dd>{s.plans.toLocaleString()}</dd>
              <dt>Errors</dt>
              <dd>
                <Link to={`/coverage-periods/${coveragePeriodId}/errors`}>
                  {s.errors.unresolved.toLocaleString()} unresolved, {s.errors.returned.toLocaleString()} returned, {s.errors.resolved.toLocaleString()} resolved
                </Link>
              </dd>
            </dl>
          </div>
          <div>
            <h3>Installation steps</h3>
            {!installmentId && <p className="hint">This coverage period is not part of a group installment (the group was created as already sold): there are no setup steps to follow.</p>}
            {installment.state === 'error' && <ErrorMessage error={failureText(installment.error, 'The group installment')} onRetry={installment.reload} />}
            {installmentId && !installment.data && installment.state === 'loading' && <Loading what="Loading the installation steps" />}
            {installment.data && (
              <>
                <p>
                  Installment <Badge value={installment.data.status} /> with {installment.data.carrier_name}
                </p>
                <ol className="work-orders-progress">
                  {installment.data.progress.map((step) => (
                    <li key={step.step}>
                      <span>
                        {step.step}. {STEP_NAMES[step.name]}
                      </span>
                      <Badge value={step.status} />
                    </li>
                  ))}
                </ol>
              </>
            )}
          </div>
        </div>
      )}
    </section>
  )
}
