import { api, totalOf, unwrap } from '../api/client'
import { count, words } from '../lib/format'
import { failureText } from '../lib/problems'
import { useApi } from '../lib/use-api'
import { Empty, ErrorMessage, Loading } from './status'

const PLANS_PER_PAGE = 100

/** The plans of a work order's coverage period (the first hundred): what the carrier installs. */
export function WorkOrderPlans({ coveragePeriodId }: { coveragePeriodId: string }) {
  const plans = useApi(
    async (signal) => {
      const result = await api.GET('/coverage_periods/{id}/plans', { params: { path: { id: coveragePeriodId }, query: { page: 1, per_page: PLANS_PER_PAGE } }, signal })
      return { plans: unwrap(result).plans, total: totalOf(result.response) }
    },
    [coveragePeriodId],
  )
  return (
    <section aria-labelledby="work-order-plans">
      <h2 id="work-order-plans">Plans</h2>
      {plans.state === 'error' && <ErrorMessage error={failureText(plans.error, 'The coverage period')} onRetry={plans.reload} />}
      {!plans.data && plans.state === 'loading' && <Loading what="Loading the plans" />}
      {plans.data &&
        (plans.data.plans.length === 0 ? (
          <Empty>The coverage period has no plans.</Empty>
        ) : (
          <>
            <p className="pager-summary">
              {count(plans.data.total, 'plan')}
              {plans.data.total > plans.data.plans.length ? `; the first ${plans.data.plans.length} are shown` : ''}
            </p>
            <div className="table-wrap">
              <table>
                <caption className="table-caption">Plans of the coverage period</caption>
                <thead>
                  <tr>
                    <th scope="col">External id</th>
                    <th scope="col">Description</th>
                    <th scope="col">Line</th>
                    <th scope="col">Type</th>
                    <th scope="col">Premium level</th>
                    <th scope="col">Voluntary</th>
                    <th scope="col">Premium method</th>
                    <th scope="col">Rating</th>
                    <th scope="col">Riders</th>
                  </tr>
                </thead>
                <tbody>
                  {plans.data.plans.map((plan) => (
                    <tr key={plan.id}>
                      <td>{plan.external_identifier}</td>
                      <td>{plan.description}</td>
                      <td>{words(plan.product_line)}</td>
                      <td>{words(plan.product_type)}</td>
                      <td>{words(plan.premium_level)}</td>
                      <td>{plan.voluntary ? 'Yes' : 'No'}</td>
                      <td>{words(plan.policy_premium_method)}</td>
                      <td>{words(plan.premium_rating_method)}</td>
                      <td>{plan.riders.length === 0 ? '—' : plan.riders.map((rider) => rider.name).join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ))}
    </section>
  )
}
