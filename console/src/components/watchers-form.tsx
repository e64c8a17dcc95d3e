import type { Schema } from '../api/client'
import { everyValueOf } from '../lib/enums'
import { TextField } from './fields'

/** The shapes of the published contract (POST /watchers, PATCH /watchers/{id}, GET /watchers/{id}). */
type CreateWatcherBody = Schema<'WatcherInput'>
type UpdateWatcherBody = Schema<'WatcherUpdate'>
export type Watcher = Schema<'Watcher'>
export type WatcherEventType = CreateWatcherBody['event_types'][number]
export type WatcherStatus = Watcher['status']

/** Every event a watcher may ask for, in words; a Record so a new event in the contract must be named here. */
export const EVENT_TYPE_LABELS: Record<WatcherEventType, string> = {
  'error.created': 'An error is raised',
  'error.resolved': 'An error is resolved',
  'error.returned': 'An error is returned to the client',
  'error.commented': 'An error gets a comment',
  'error.assigned': 'An error is assigned to a person, or unassigned',
  'coverage_period.state_changed': 'A coverage period changes state',
  'work_order.status_changed': 'A work order changes status',
  'census_request.completed': 'A census request completes',
  'subscriber.status_changed': 'A subscriber changes status',
}

export const isEventType = (value: string): value is WatcherEventType => Object.hasOwn(EVENT_TYPE_LABELS, value)
export const EVENT_TYPES: WatcherEventType[] = Object.keys(EVENT_TYPE_LABELS).filter(isEventType)
export const WATCHER_STATUSES = everyValueOf<WatcherStatus>()(['active', 'disabled'])

/** What the watcher form holds: text as typed, turned into a request body on submit. */
export interface WatcherDraft {
  url: string
  eventTypes: WatcherEventType[]
  description: string
  groupId: string
  coveragePeriodId: string
}

export const EMPTY_WATCHER_DRAFT: WatcherDraft = { url: '', eventTypes: [], description: '', groupId: '', coveragePeriodId: '' }

export function draftOf(watcher: Watcher): WatcherDraft {
  return {
    url: watcher.url,
    eventTypes: [...watcher.event_types],
    description: watcher.description ?? '',
    groupId: watcher.group_id ?? '',
    coveragePeriodId: watcher.coverage_period_id ?? '',
  }
}

/** A new watcher: empty optional fields are left out. */
export function createBodyOf(draft: WatcherDraft): CreateWatcherBody {
  const body: CreateWatcherBody = { url: draft.url.trim(), event_types: draft.eventTypes }
  if (draft.description.trim()) body.description = draft.description.trim()
  if (draft.groupId.trim()) body.group_id = draft.groupId.trim()
  if (draft.coveragePeriodId.trim()) body.coverage_period_id = draft.coveragePeriodId.trim()
  return body
}

/** A change: every field is sent; an emptied optional field is `null`, which clears it. */
export function updateBodyOf(draft: WatcherDraft): UpdateWatcherBody {
  return {
    url: draft.url.trim(),
    event_types: draft.eventTypes,
    description: draft.description.trim() || null,
    group_id: draft.groupId.trim() || null,
    coverage_period_id: draft.coveragePeriodId.trim() || null,
  }
}

/** The problem with a draft the console can see before asking the service, or null. */
export function draftProblem(draft: WatcherDraft): string | null {
  if (!draft.url.trim()) return 'Enter the URL that should receive the events.'
  if (draft.eventTypes.length === 0) return 'Choose at least one event to deliver.'
  return null
}

/** The fields of the New watcher and Change watcher dialogs. */
export function WatcherFields({ draft, onChange }: { draft: WatcherDraft; onChange: (draft: WatcherDraft) => void }) {
  const toggle = (type: WatcherEventType, checked: boolean) =>
    onChange({ ...draft, eventTypes: checked ? EVENT_TYPES.filter((t) => t === type || draft.eventTypes.includes(t)) : draft.eventTypes.filter((t) => t !== type) })
  return (
    <>
      <TextField
        label="URL"
        type="url"
        required
        autoFocus
        value={draft.url}
        onChange={(url) => onChange({ ...draft, url })}
        hint="http or https, reachable from the service; each event is POSTed to it as JSON. Internal addresses are refused."
      />
      <fieldset className="watchers-events">
        <legend>
          Events to deliver<span aria-hidden="true"> *</span>
        </legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="watchers-event">
            <input type="checkbox" checked={draft.eventTypes.includes(type)} onChange={(event) => toggle(type, event.target.checked)} />
            <span>
              {EVENT_TYPE_LABELS[type]} <code>{type}</code>
            </span>
          </label>
        ))}
      </fieldset>
      <TextField label="Description" value={draft.description} onChange={(description) => onChange({ ...draft, description })} hint="Optional: what this watcher is for." />
      <TextField
        label="Only the events of group (id)"
        value={draft.groupId}
        onChange={(groupId) => onChange({ ...draft, groupId })}
        hint="Optional: a group id to narrow the events to that group. Leave empty for all."
      />
      <TextField
        label="Only the events of coverage period (id)"
        value={draft.coveragePeriodId}
        onChange={(coveragePeriodId) => onChange({ ...draft, coveragePeriodId })}
        hint="Optional: a coverage period id. With a group too, an event must match both."
      />
    </>
  )
}
