import { useState } from 'react'
import { api, type Schema } from '../api/client'
import type { paths } from '../api/schema'
import { everyValueOf } from '../lib/enums'
import { refusalText, UNREACHABLE } from '../lib/problems'
import { FormDialog } from './dialog'
import { TextField } from './fields'
import { ErrorMessage } from './status'

/*
 * What the two error pages share: the error's types as the published contract gives them, the
 * filter values (checked against the contract's unions at compile time), how a discrepancy value
 * reads, and the message dialog of the resolve and return actions.
 */

/** One error as GET /errors/{id} answers it. */
export type ErrorRecord = Schema<'Error'>
/** One row of GET /errors (and GET /coverage_periods/{id}/errors). */
export type ListedError = Schema<'Error'>
export type ErrorComment = Schema<'ErrorComment'>
export type ErrorHistoryEntry = Schema<'ErrorHistoryEntry'>
export type ErrorListQuery = NonNullable<paths['/errors']['get']['parameters']['query']>
export type ErrorSort = NonNullable<ErrorListQuery['sort']>

// The whole query is optional (every filter and page has a default), hence NonNullable.
type ListQuery = NonNullable<paths['/errors']['get']['parameters']['query']>
export type ErrorStatus = NonNullable<ListQuery['status']>
export type ErrorAssignee = NonNullable<ListQuery['assignee']>
export type ErrorSeverity = NonNullable<ListQuery['severity']>
export type ErrorSource = NonNullable<ListQuery['source']>
export type ErrorParameter = Schema<'DiscrepancyParameter'>
export type DiscrepancyKind = Schema<'DiscrepancyKind'>
export type Party = ErrorComment['sent_by']

export const ERROR_STATUSES = everyValueOf<ErrorStatus>()(['unresolved', 'returned', 'resolved'])
export const ERROR_ASSIGNEES = everyValueOf<ErrorAssignee>()(['service', 'partner'])
export const ERROR_SEVERITIES = everyValueOf<ErrorSeverity>()(['failure', 'warning', 'info'])
export const ERROR_SOURCES = everyValueOf<ErrorSource>()(['file_validation', 'reconciliation', 'api', 'manual', 'error_report'])
export const ERROR_PARAMETERS = everyValueOf<ErrorParameter>()([
  'birth_date',
  'gender',
  'marital_status',
  'earnings_effective_date',
  'employment_start_date',
  'employment_end_date',
  'annual_earnings',
  'wage_frequency',
  'employment_status',
  'residential_address',
  'primary_care_provider',
  'social_security_number',
  'plan_id',
  'plan_start_date',
  'plan_end_date',
  'subscriber',
  'dependent',
  'coverage',
  'plan_volume',
  'tobacco_use',
  'region',
  'emails',
  'phone_numbers',
])

export const PARTY_WORDS: Record<Party, string> = { service: 'service (operators)', partner: 'partner' }

export const KIND_WORDS: Record<DiscrepancyKind, string> = {
  carrier_value_differs: 'The carrier holds a different value',
  carrier_missing: 'The carrier lacks this value',
  platform_missing: 'The platform lacks this value',
  value_invalid: 'The value is invalid',
}

const cents = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' })

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A discrepancy value (any JSON value) in words. Values are shown as the API gives them: an SSN
 * arrives masked and stays so. Money (annual earnings) is integer cents.
 */
export function valueText(parameter: ErrorParameter, value: unknown): string {
  if (value === null || value === undefined) return 'none'
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (typeof value === 'number') return parameter === 'annual_earnings' && Number.isInteger(value) ? cents.format(value / 100) : value.toLocaleString()
  if (typeof value === 'string') return value === '' ? '(empty)' : value
  if (Array.isArray(value)) return value.length === 0 ? '(none listed)' : value.map((item) => valueText(parameter, item)).join('; ')
  if (isRecord(value)) {
    // Contacts ({contact, type}) and addresses read better without their keys.
    if (typeof value.contact === 'string') return typeof value.type === 'string' ? `${value.contact} (${value.type})` : value.contact
    if (typeof value.address_line_1 === 'string') {
      const parts = [value.address_line_1, value.address_line_2, value.city, [value.state, value.zip].filter((p) => typeof p === 'string').join(' ')]
      return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(', ')
    }
    return Object.entries(value)
      .map(([key, item]) => `${key.replace(/_/g, ' ')}: ${valueText(parameter, item)}`)
      .join(', ')
  }
  return JSON.stringify(value) ?? String(value)
}

/** A discrepancy value for a table cell: birth dates never appear in lists; long values are cut. */
export function shortValueText(parameter: ErrorParameter, value: unknown): string {
  if (parameter === 'birth_date') return value === null || value === undefined ? 'none' : 'on the error page'
  const text = valueText(parameter, value)
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

/** Runs `work` over the items with at most `limit` calls in flight; answers in the items' order. */
export async function forEachLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

export type ErrorAction = 'resolve' | 'return' | 'comment'

/** The action's past participle and present participle, for progress and reports. */
export const ACTION_WORDS: Record<ErrorAction, { done: string; doing: string }> = {
  resolve: { done: 'resolved', doing: 'Resolving' },
  return: { done: 'returned', doing: 'Returning' },
  comment: { done: 'commented on', doing: 'Commenting' },
}

/**
 * Resolves, returns or comments on one error, signed by the signed-in user; answers null on
 * success or the service's reason in words.
 */
export async function actOnError(action: ErrorAction, id: string, message: string, email: string): Promise<string | null> {
  try {
    const { error, response } =
      action === 'resolve'
        ? await api.POST('/errors/{id}/resolution', { params: { path: { id } }, body: { message, resolved_by: email } })
        : action === 'return'
          ? await api.POST('/errors/{id}/return', { params: { path: { id } }, body: { message, created_by: email } })
          : await api.POST('/errors/{id}/comments', { params: { path: { id } }, body: { message, created_by: email } })
    return response.ok ? null : refusalText(response.status, error, 'This error')
  } catch {
    return UNREACHABLE
  }
}

/**
 * The dialog of a resolve or return action: one required message. The caller runs the action;
 * a failure stays in the dialog so the message is not lost.
 */
export function ErrorMessageDialog({
  open,
  title,
  submitLabel,
  label,
  intro,
  busy,
  progress,
  failure,
  onSubmit,
  onClose,
}: {
  open: boolean
  title: string
  submitLabel: string
  label: string
  intro?: string
  busy: boolean
  progress?: string | undefined
  failure: string | null
  onSubmit: (message: string) => void
  onClose: () => void
}) {
  const [message, setMessage] = useState('')
  const [blank, setBlank] = useState(false)
  const submit = () => {
    if (message.trim() === '') {
      setBlank(true)
      return
    }
    setBlank(false)
    onSubmit(message.trim())
  }
  // Also called when the dialog closes itself (Escape, or the page closing it after success).
  const close = () => {
    setMessage('')
    setBlank(false)
    onClose()
  }
  return (
    <FormDialog open={open} title={title} submitLabel={submitLabel} busy={busy} onSubmit={submit} onClose={close}>
      {intro && <p>{intro}</p>}
      <TextField label={label} value={message} onChange={setMessage} multiline required autoFocus />
      <p role="status" aria-live="polite" className="hint">
        {busy ? (progress ?? 'Working…') : ''}
      </p>
      {blank && <ErrorMessage error="Write a message first: the service keeps it with the error." />}
      {failure && <ErrorMessage error={failure} />}
    </FormDialog>
  )
}

/**
 * Assigns errors to a person of the caller's own account (null: to nobody). One error goes through
 * PUT /errors/{id}/assignment; several through POST /errors/assignments, all or nothing. Answers
 * null on success or the service's reason in words.
 */
export async function assignErrors(ids: readonly string[], userId: string | null): Promise<string | null> {
  try {
    const { error, response } =
      ids.length === 1 || userId === null
        ? await assignEach(ids, userId)
        : await api.POST('/errors/assignments', { body: { assignment: { user_id: userId, error_ids: [...ids] } } })
    return response.ok ? null : refusalText(response.status, error, 'This error')
  } catch {
    return UNREACHABLE
  }
}

/** Unassigning (and a single assignment) goes error by error: the bulk call names a person. */
async function assignEach(ids: readonly string[], userId: string | null) {
  let last: Awaited<ReturnType<typeof putAssignment>> | undefined
  for (const id of ids) {
    last = await putAssignment(id, userId)
    if (!last.response.ok) return last
  }
  return last!
}

function putAssignment(id: string, userId: string | null) {
  return api.PUT('/errors/{id}/assignment', { params: { path: { id } }, body: { assignment: { user_id: userId } } })
}
