import { api, unwrap } from '../api/client'
import { formatDate, words } from '../lib/format'
import { failureText, isGoneById } from '../lib/problems'
import { Link } from '../lib/router'
import { useApi } from '../lib/use-api'
import type { ErrorRecord } from './errors-shared'
import { ShortId } from './short-id'

/**
 * The member, plan and coverage period of the error; the member's and plan's names are read only
 * when the error names them, the coverage period's identifier and dates always (an id says nothing).
 */
export function ErrorSubjects({ error }: { error: ErrorRecord }) {
  const memberId = error.member_id
  const planId = error.plan_id
  const member = useApi(
    async (signal) => (memberId ? unwrap(await api.GET('/members/{id}', { params: { path: { id: memberId } }, signal })).member : null),
    [memberId],
  )
  const plan = useApi(async (signal) => (planId ? unwrap(await api.GET('/plans/{id}', { params: { path: { id: planId } }, signal })).plan : null), [planId])
  const periodId = error.coverage_period_id
  const period = useApi(async (signal) => unwrap(await api.GET('/coverage_periods/{id}', { params: { path: { id: periodId } }, signal })).coverage_period, [periodId])

  return (
    <dl className="facts">
      <dt>Member</dt>
      <dd>
        {!memberId ? (
          'None named'
        ) : member.data ? (
          <>
            {member.data.first_name} {member.data.last_name} ({words(member.data.kind)}, {member.data.external_identifier}) ·{' '}
            <Link to={`/errors?member_id=${encodeURIComponent(memberId)}`}>Errors of this member</Link>
          </>
        ) : (
          <>
            <ShortId id={memberId} />
            {member.state === 'loading' && ' (reading the name…)'}
            {member.state === 'error' && ` (the name could not be read: ${isGoneById(member.error) ? 'not visible to your account' : failureText(member.error)})`} ·{' '}
            <Link to={`/errors?member_id=${encodeURIComponent(memberId)}`}>Errors of this member</Link>
          </>
        )}
      </dd>
      <dt>Plan</dt>
      <dd>
        {!planId ? (
          'None named'
        ) : plan.data ? (
          <>
            {plan.data.description} ({words(plan.data.product_line)}, {plan.data.external_identifier})
          </>
        ) : (
          <>
            <ShortId id={planId} />
            {plan.state === 'loading' && ' (reading the plan…)'}
            {plan.state === 'error' && ` (the plan could not be read: ${isGoneById(plan.error) ? 'not visible to your account' : failureText(plan.error)})`}
          </>
        )}
      </dd>
      <dt>Coverage period</dt>
      <dd>
        {period.data ? (
          <>
            {period.data.external_identifier} (
            {period.data.coverage_end_date ? `${formatDate(period.data.coverage_start_date)} to ${formatDate(period.data.coverage_end_date)}` : `from ${formatDate(period.data.coverage_start_date)}`}) ·{' '}
          </>
        ) : (
          <>
            <ShortId id={periodId} />
            {period.state === 'loading' && ' (reading the coverage period…)'}
            {period.state === 'error' && ` (the coverage period could not be read: ${isGoneById(period.error) ? 'not visible to your account' : failureText(period.error)})`} ·{' '}
          </>
        )}
        <Link to={`/coverage-periods/${periodId}/errors`}>Errors of this coverage period</Link>
      </dd>
      <dt>Group</dt>
      <dd>
        <Link to={`/groups/${error.group_id}`}>{error.employer_name}</Link>
      </dd>
    </dl>
  )
}
