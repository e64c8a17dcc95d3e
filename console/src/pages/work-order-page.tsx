import { useState } from 'react'
import { api, unwrap } from '../api/client'
import { assignWorkOrder } from '../api/work-orders-queue'
import { AccountName, useAccountNames } from '../components/admin-account-picker'
import { PersonAssignment } from '../components/assignment-control'
import { FormDialog } from '../components/dialog'
import { useAccountUsers } from '../components/errors-filters'
import { TextField } from '../components/fields'
import { CoveragePeriodFacts, producerLine, type WorkOrder, type WorkOrderStatus } from '../components/groups-common'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { WorkOrderHistory } from '../components/work-orders-history'
import { WorkOrderPlans } from '../components/work-orders-plans'
import { WorkOrderProgress } from '../components/work-orders-progress'
import { ageWords, formatDateTime, words } from '../lib/format'
import { failureText } from '../lib/problems'
import { Link } from '../lib/router'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'

/** What each move means, said on its button and in its dialog. */
const MOVES: Record<WorkOrderStatus, { button: string; confirm: string; explanation: string }> = {
  open: { button: 'Reopen', confirm: 'Reopen', explanation: 'The work order goes back to the queue as open.' },
  in_progress: { button: 'Start work (in progress)', confirm: 'Move to in progress', explanation: 'Operations is configuring the group.' },
  submitted: {
    button: 'Mark submitted to the carrier',
    confirm: 'Mark submitted',
    explanation: 'The coverage period moves to test and the group is sent to the carrier (a full 834 file for an EDI carrier, a submission for an API carrier, nothing for a manual one).',
  },
  needs_information: { button: 'Carrier needs information', confirm: 'Mark needs information', explanation: 'The carrier asked for more before installing the group.' },
  completed: {
    button: 'Complete (carrier installed the group)',
    confirm: 'Complete',
    explanation: 'The coverage period moves to production with its installation time; the group may enter member management.',
  },
  cancelled: { button: 'Cancel the work order', confirm: 'Confirm the cancellation', explanation: 'The work order stops here; it cannot be moved again.' },
}

/**
 * One work order (operators only): its group, coverage period, plans, progress and history, who
 * works on it (assign to an operator, to me, or to nobody; the service's refusal shows under the
 * control), and the moves it allows, each asking for a message (and the carrier group number to
 * complete).
 */
export function WorkOrderPage({ id }: { id: string }) {
  const workOrder = useApi(async (signal) => unwrap(await api.GET('/work_orders/{id}', { params: { path: { id } }, signal })).work_order, [id])
  const groupId = workOrder.data?.group_id
  const periodId = workOrder.data?.coverage_period_id

  const group = useApi(
    async (signal) => (groupId ? unwrap(await api.GET('/groups/{id}', { params: { path: { id: groupId } }, signal })).group : null),
    [groupId],
  )
  const period = useApi(
    async (signal) => (periodId ? unwrap(await api.GET('/coverage_periods/{id}', { params: { path: { id: periodId } }, signal })).coverage_period : null),
    [periodId],
  )

  const [target, setTarget] = useState<WorkOrderStatus | null>(null)
  const [message, setMessage] = useState('')
  const [carrierGroupNumber, setCarrierGroupNumber] = useState('')
  const [busy, setBusy] = useState(false)
  const [dialogError, setDialogError] = useState<string | null>(null)
  const [announcement, setAnnouncement] = useState('')
  const [progressGeneration, setProgressGeneration] = useState(0)
  const [assignmentNote, setAssignmentNote] = useState('')
  // The operator's own account's active users: who can hold a work order.
  const users = useAccountUsers()
  // The move's button is gone once the work order moved: its section's heading takes the focus.
  const movesHeading = useFocusRequest<HTMLHeadingElement>()
  // Work orders are an operator page: every account's names can be read.
  const names = useAccountNames(true)

  const openMove = (status: WorkOrderStatus) => {
    setTarget(status)
    setMessage('')
    setCarrierGroupNumber(period.data?.carrier_group_number ?? '')
    setDialogError(null)
  }

  const move = async (current: WorkOrder, status: WorkOrderStatus) => {
    const text = message.trim()
    const number = carrierGroupNumber.trim()
    if (!text) return setDialogError('Write a message: it is kept in the work order’s history.')
    if (status === 'completed' && !number) return setDialogError('Enter the carrier group number the carrier gave for this group.')
    setBusy(true)
    setDialogError(null)
    try {
      const moved = unwrap(
        await api.POST('/work_orders/{id}/transitions', {
          params: { path: { id: current.id } },
          body: { status, message: text, ...(status === 'completed' ? { carrier_group_number: number } : {}) },
        }),
      ).work_order
      setTarget(null)
      // The coverage period follows the work order by itself (submitted → test, completed → production).
      let periodNote = ''
      try {
        const after = unwrap(await api.GET('/coverage_periods/{id}', { params: { path: { id: current.coverage_period_id } } })).coverage_period
        periodNote = ` The coverage period is in ${words(after.state)}.`
      } catch {
        periodNote = ''
      }
      setAnnouncement(`The work order moved to ${words(moved.status)}.${periodNote}`)
      workOrder.reload()
      period.reload()
      group.reload()
      setProgressGeneration((g) => g + 1)
      movesHeading.focus()
    } catch (error) {
      setDialogError(failureText(error instanceof Error ? error : new Error(String(error)), 'The work order'))
      // The work order may have moved meanwhile: show the moves it allows now.
      workOrder.reload()
    } finally {
      setBusy(false)
    }
  }

  const heading = group.data ? `Work order: ${group.data.employer.organization_name}` : 'Work order'

  if (!workOrder.data) {
    return (
      <section>
        <h1>Work order</h1>
        {workOrder.state === 'error' ? <ErrorMessage error={failureText(workOrder.error, 'This work order')} onRetry={workOrder.reload} /> : <Loading what="Loading the work order" />}
        <p>
          <Link to="/work-orders">Back to the work orders</Link>
        </p>
      </section>
    )
  }

  const current = workOrder.data
  return (
    <section>
      <p>
        <Link to="/work-orders">← Work orders</Link>
      </p>
      <h1>{heading}</h1>
      <dl className="facts work-orders-facts">
        <dt>Status</dt>
        <dd>
          <Badge value={current.status} />
        </dd>
        <dt>In this status</dt>
        <dd>
          {ageWords(current.age_seconds).replace(/^waiting /, '')} (since {formatDateTime(current.status_changed_at)})
        </dd>
        <dt>Assigned to</dt>
        <dd>{current.assigned_user ? current.assigned_user.email : 'nobody'}</dd>
        <dt>Account</dt>
        <dd>{current.account_name}</dd>
        <dt>Carrier</dt>
        <dd>{current.carrier_name}</dd>
        <dt>Opened</dt>
        <dd>{formatDateTime(current.created_at)}</dd>
        <dt>Last change</dt>
        <dd>{formatDateTime(current.updated_at)}</dd>
        <dt>Work order id</dt>
        <dd>
          <code className="mono">{current.id}</code>
        </dd>
      </dl>
      <p className="actions">
        <Link to={`/groups/${current.group_id}`}>Open the group</Link>
        <Link to={`/coverage-periods/${current.coverage_period_id}/errors`}>Errors of the coverage period</Link>
      </p>
      {workOrder.state === 'error' && <ErrorMessage error={failureText(workOrder.error, 'This work order')} onRetry={workOrder.reload} />}

      <section className="panel" aria-labelledby="work-order-assignment">
        <h2 id="work-order-assignment">Who works on it</h2>
        <p role="status" aria-live="polite" className="work-orders-announcement">
          {assignmentNote}
        </p>
        <PersonAssignment
          assigned={current.assigned_user}
          users={users}
          mayAssign
          unassignOnly={current.allowed_transitions.length === 0}
          assign={(userId) => assignWorkOrder(current.id, userId)}
          onAttempt={() => setAssignmentNote('')}
          onChanged={(text) => {
            setAssignmentNote(text)
            workOrder.reload()
          }}
        />
        <p className="hint">Operators of the service account can hold work orders; assigning does not change the status or its age.</p>
      </section>

      <section className="panel" aria-labelledby="work-order-moves">
        <h2 id="work-order-moves" ref={movesHeading.ref} tabIndex={-1}>
          Move the work order
        </h2>
        <p role="status" aria-live="polite" className="work-orders-announcement">
          {announcement}
        </p>
        {current.allowed_transitions.length === 0 ? (
          <Empty>No further moves: the work order is {words(current.status)}.</Empty>
        ) : (
          <div className="actions">
            {current.allowed_transitions.map((status) => (
              <button
                key={status}
                type="button"
                className={status === 'cancelled' ? 'danger' : status === 'completed' || status === 'submitted' ? 'primary' : undefined}
                disabled={busy || workOrder.state === 'loading'}
                onClick={() => openMove(status)}
              >
                {MOVES[status].button}
              </button>
            ))}
          </div>
        )}
      </section>

      <FormDialog
        open={target !== null}
        title={target === 'cancelled' ? 'Cancel the work order' : target ? `Move the work order to ${words(target)}` : 'Move the work order'}
        submitLabel={target ? MOVES[target].confirm : 'Move'}
        busy={busy}
        confirmation={target === 'cancelled'}
        onSubmit={() => target && void move(current, target)}
        onClose={() => setTarget(null)}
      >
        {target && <p className="hint">{MOVES[target].explanation}</p>}
        <TextField label="Message" value={message} onChange={setMessage} multiline required autoFocus hint="Why: kept in the work order’s history." />
        {target === 'completed' && (
          <TextField
            label="Carrier group number"
            value={carrierGroupNumber}
            onChange={setCarrierGroupNumber}
            required
            hint="The group number the carrier assigned when it installed the group."
          />
        )}
        {dialogError && <ErrorMessage error={dialogError} />}
      </FormDialog>

      <div className="columns">
        <section className="panel" aria-labelledby="work-order-group">
          <h2 id="work-order-group">Group</h2>
          {group.state === 'error' && <ErrorMessage error={failureText(group.error, 'The group')} onRetry={group.reload} />}
          {!group.data && group.state === 'loading' && <Loading what="Loading the group" />}
          {group.data && (
            <>
              <dl className="facts">
                <dt>Employer</dt>
                <dd>
                  <Link to={`/groups/${group.data.id}`}>{group.data.employer.organization_name}</Link>
                </dd>
                <dt>External id</dt>
                <dd>{group.data.external_identifier}</dd>
                <dt>Market</dt>
                <dd>{words(group.data.insurance_market)}</dd>
                <dt>Phase</dt>
                <dd>
                  <Badge value={group.data.phase} />
                </dd>
                <dt>Producer agency</dt>
                <dd>{group.data.producer_agency?.name ?? 'None'}</dd>
                <dt>Account</dt>
                <dd>
                  <AccountName id={group.data.account_id} names={names} />
                </dd>
              </dl>
              <h3>Producers of record</h3>
              {group.data.producers_of_record.length === 0 ? (
                <Empty>No producers of record.</Empty>
              ) : (
                <ul>
                  {group.data.producers_of_record.map((producer) => (
                    <li key={producer.id}>{producerLine(producer)}</li>
                  ))}
                </ul>
              )}
            </>
          )}
        </section>

        <section className="panel" aria-labelledby="work-order-period">
          <h2 id="work-order-period">Coverage period</h2>
          {period.state === 'error' && <ErrorMessage error={failureText(period.error, 'The coverage period')} onRetry={period.reload} />}
          {!period.data && period.state === 'loading' && <Loading what="Loading the coverage period" />}
          {period.data && <CoveragePeriodFacts period={period.data} />}
        </section>
      </div>

      <WorkOrderProgress coveragePeriodId={current.coverage_period_id} generation={progressGeneration} />

      <WorkOrderPlans coveragePeriodId={current.coverage_period_id} />

      <WorkOrderHistory history={current.history} />
    </section>
  )
}
