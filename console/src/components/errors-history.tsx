import { api, unwrap } from '../api/client'
import { formatDateTime, words } from '../lib/format'
import { failureText } from '../lib/problems'
import type { Loadable } from '../lib/use-api'
import { assignErrors, PARTY_WORDS, type ErrorHistoryEntry, type ErrorRecord } from './errors-shared'
import { PersonAssignment } from './assignment-control'
import type { AccountUser } from './errors-filters'
import { Badge, Empty, ErrorMessage, Loading } from './status'

export async function loadHistory(id: string, signal: AbortSignal): Promise<ErrorHistoryEntry[]> {
  return unwrap(await api.GET('/errors/{id}/history', { params: { path: { id } }, signal })).history
}

const TYPE_WORDS: Record<ErrorHistoryEntry['type'], string> = {
  raised: 'Raised',
  commented: 'Comment',
  returned: 'Returned',
  assigned: 'Assigned',
  unassigned: 'Unassigned',
  resolved: 'Resolved',
  reopened: 'Reopened',
  auto_resolved: 'Resolved by a check',
}

/**
 * Everything that happened to the error, oldest first (GET /errors/{id}/history). A return is
 * marked as a hand-over to the other party, its message set apart from ordinary comments.
 */
export function HistoryTimeline({ history }: { history: Loadable<ErrorHistoryEntry[]> & { reload: () => void } }) {
  if (history.state === 'error' && !history.data) return <ErrorMessage error={`The history could not be read: ${failureText(history.error)}`} onRetry={history.reload} />
  if (!history.data) return <Loading what="Loading the history" />
  if (history.data.length === 0) return <Empty>Nothing has happened to it yet.</Empty>
  return (
    <ol className="history-timeline">
      {history.data.map((entry) => (
        <li key={entry.id} className={`history-${entry.type}`}>
          <div>
            <Badge value={TYPE_WORDS[entry.type]} kind={entry.type} />{' '}
            {entry.type === 'returned' && entry.assignee && <strong>to the {PARTY_WORDS[entry.assignee]}</strong>}
            {entry.type === 'assigned' && entry.assigned_user && <strong>to {entry.assigned_user.email}</strong>}
            {entry.from_status && entry.from_status !== entry.to_status && (
              <span className="hint">
                {' '}
                {words(entry.from_status)} → {words(entry.to_status)}
              </span>
            )}
          </div>
          <div className="meta">
            <time dateTime={entry.created_at}>{formatDateTime(entry.created_at)}</time>
            {entry.actor ? ` · ${entry.actor}` : entry.party ? ` · an API key of the ${PARTY_WORDS[entry.party]}` : ''}
          </div>
          {entry.comment && <p className={entry.type === 'returned' ? 'history-return' : 'history-comment'}>{entry.comment.message}</p>}
        </li>
      ))}
    </ol>
  )
}

/**
 * Who works on the error: a person of the signed-in user's account. Only the party holding it may
 * assign it (the service refuses otherwise), so others see the person without the control.
 */
export function AssignmentControl({ error, users, mayAssign, onChanged }: { error: ErrorRecord; users: AccountUser[]; mayAssign: boolean; onChanged: (text: string) => void }) {
  // A resolved error is nobody's work: the service refuses to assign it, and only Unassign is offered.
  return (
    <PersonAssignment
      assigned={error.assigned_user}
      users={users}
      mayAssign={mayAssign}
      unassignOnly={error.status === 'resolved'}
      assign={(userId) => assignErrors([error.id], userId)}
      onChanged={onChanged}
    >
      {' '}
      · with the {PARTY_WORDS[error.assignee]}
    </PersonAssignment>
  )
}
