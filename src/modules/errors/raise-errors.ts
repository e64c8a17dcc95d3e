import { sql, type Insertable, type Transaction } from 'kysely'
import type { Database, ErrorsTable } from '../../db/schema.js'
import { actorName, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvents, type AuditedChange } from '../audit/audit.repo.js'
import { discrepancyMessage, type DiscrepancyKind, type DiscrepancyParameter, type Party, type Severity } from './discrepancy-messages.js'
import { storedDiscrepancyValue } from './discrepancy-values.js'
import { emitErrorEvent } from './error-events.js'
import type { ErrorRow } from './errors.repo.js'

/**
 * The service's own checks: they raise errors that it may later reopen or resolve itself. Errors
 * raised by people (manual, error_report) never merge and are never resolved automatically.
 */
export type CheckSource = 'api' | 'reconciliation' | 'file_validation'

/** Where a check ran: the coverage period the errors belong to. */
export interface CheckContext {
  accountId: string
  coveragePeriodId: string
  groupId: string
  source: CheckSource
  /** The census request the check compared against (issue 5); linked on every error it touches. */
  censusRequestId?: string | null
}

/** One discrepancy a check found. Severity and assignee default from the catalogue. */
export interface FoundDiscrepancy {
  memberId: string | null
  planId: string | null
  parameter: DiscrepancyParameter
  kind: DiscrepancyKind
  carrier?: unknown
  platform?: unknown
  severity?: Severity
  assignee?: Party
  transactionIds?: readonly string[]
  /**
   * A message of the check's own instead of the catalogue's (file_validation: one standard message
   * per 999 code, edi-834.findings.ts). Never a value: messages reach webhooks and both parties.
   */
  message?: string
  /**
   * What tells this discrepancy apart from others of the same parameter, member and plan: a
   * carrier-only member (no platform member id) is identified by the carrier's id or name.
   */
  subject?: string
}

export type RaiseOutcome = 'created' | 'reopened' | 'updated' | 'unchanged'

export interface RaisedError {
  id: string
  dedupeKey: string
  outcome: RaiseOutcome
}

/** "The same discrepancy" for a check: unique per coverage period (errors_dedupe_key). */
export function dedupeKeyOf(source: CheckSource, found: Pick<FoundDiscrepancy, 'parameter' | 'memberId' | 'planId' | 'subject'>): string {
  const key = `${source}:${found.parameter}:${found.memberId ?? '-'}:${found.planId ?? '-'}`
  return found.subject === undefined ? key : `${key}:${found.subject}`
}

export { actorName }

const INSERT_BATCH = 500

async function lockByDedupeKeys(tx: Transaction<Database>, coveragePeriodId: string, keys: readonly string[]): Promise<ErrorRow[]> {
  if (keys.length === 0) return []
  // Ordered, so two checks locking overlapping sets take the locks in the same order.
  return tx
    .selectFrom('errors')
    .selectAll()
    .where('coverage_period_id', '=', coveragePeriodId)
    .where(sql<boolean>`dedupe_key = any(${[...keys]}::text[])`)
    .orderBy('id')
    .forUpdate()
    .execute()
}

function valuesOf(context: CheckContext, found: FoundDiscrepancy) {
  const catalogue = discrepancyMessage(found.parameter, found.kind)
  return {
    message: found.message ?? catalogue.message,
    severity: found.severity ?? catalogue.severity,
    assignee: found.assignee ?? catalogue.assignee,
    discrepancy_kind: found.kind,
    discrepancy_carrier: storedDiscrepancyValue(found.parameter, found.carrier),
    discrepancy_platform: storedDiscrepancyValue(found.parameter, found.platform),
    transaction_ids: JSON.stringify(found.transactionIds ?? []),
    census_request_id: context.censusRequestId ?? null,
  }
}

/**
 * Records what a check found, in the caller's transaction. Per dedupe key: a new discrepancy
 * creates an error; one still open is updated in place (values, kind, message; its status and
 * assignee stay where the workflow put them); a resolved one is reopened (unresolved, reopened_at
 * set, resolution cleared, assignee and severity back to their defaults). Emits `error.created`
 * for created and reopened errors (`reopened: true`). A discrepancy listed twice counts once (the
 * last wins). Concurrent checks of the same coverage period are safe: the unique dedupe index
 * makes the loser of an insert race update the winner's row instead.
 */
export async function raiseErrors(
  tx: Transaction<Database>,
  actor: Actor,
  context: CheckContext,
  discrepancies: readonly FoundDiscrepancy[],
  now: Date = new Date(),
): Promise<RaisedError[]> {
  const byKey = new Map(discrepancies.map((found) => [dedupeKeyOf(context.source, found), found] as const))
  const keys = [...byKey.keys()]
  const existing = await lockByDedupeKeys(tx, context.coveragePeriodId, keys)
  const existingKeys = new Set(existing.map((row) => row.dedupe_key))

  // Inserted in key order, like the locks above: two checks adding overlapping keys in different
  // orders would otherwise wait on each other's unique-index entries and deadlock.
  const fresh: Insertable<ErrorsTable>[] = keys
    .filter((key) => !existingKeys.has(key))
    .sort()
    .map((key) => {
      const found = byKey.get(key)!
      return {
        id: uuidv7(),
        account_id: context.accountId,
        coverage_period_id: context.coveragePeriodId,
        group_id: context.groupId,
        member_id: found.memberId,
        plan_id: found.planId,
        status: 'unresolved',
        source: context.source,
        discrepancy_parameter: found.parameter,
        created_by_user_id: null,
        dedupe_key: key,
        created_at: now,
        updated_at: now,
        ...valuesOf(context, found),
      }
    })
  const created: Insertable<ErrorsTable>[] = []
  for (let start = 0; start < fresh.length; start += INSERT_BATCH) {
    const batch = fresh.slice(start, start + INSERT_BATCH)
    const inserted = await tx
      .insertInto('errors')
      .values(batch)
      .onConflict((oc) => oc.columns(['coverage_period_id', 'dedupe_key']).where('dedupe_key', 'is not', null).doNothing())
      .returning('id')
      .execute()
    const insertedIds = new Set(inserted.map((row) => row.id))
    created.push(...batch.filter((row) => insertedIds.has(row.id)))
  }
  // Keys another transaction inserted after our lookup: its row is committed now, so update it.
  const createdKeys = new Set(created.map((row) => row.dedupe_key))
  const lost = fresh.filter((row) => !createdKeys.has(row.dedupe_key)).map((row) => row.dedupe_key!)
  existing.push(...(await lockByDedupeKeys(tx, context.coveragePeriodId, lost)))

  const results: RaisedError[] = created.map((row) => ({ id: row.id, dedupeKey: row.dedupe_key!, outcome: 'created' }))
  const audit: AuditedChange[] = created.map((row) => ({ accountId: context.accountId, action: 'error.created', resourceType: 'error', resourceId: row.id }))
  const reopened: ErrorRow[] = []
  for (const row of existing) {
    const found = byKey.get(row.dedupe_key!)!
    const values = valuesOf(context, found)
    if (row.status === 'resolved') {
      const updated = await tx
        .updateTable('errors')
        .set({
          ...values,
          status: 'unresolved',
          reopened_at: now,
          resolution_message: null,
          resolved_at: null,
          resolved_by: null,
          resolved_by_user_id: null,
          updated_at: now,
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow()
      reopened.push(updated)
      results.push({ id: row.id, dedupeKey: row.dedupe_key!, outcome: 'reopened' })
      audit.push({ accountId: row.account_id, action: 'error.reopened', resourceType: 'error', resourceId: row.id })
      continue
    }
    const { assignee: _assignee, severity: _severity, ...kept } = values
    const changed = await tx
      .updateTable('errors')
      .set({ ...kept, census_request_id: values.census_request_id ?? row.census_request_id, updated_at: now })
      .where('id', '=', row.id)
      // Only a real change counts (and moves updated_at): a check that finds the same thing again is silent.
      .where(
        sql<boolean>`(discrepancy_kind, message, discrepancy_carrier, discrepancy_platform, transaction_ids, census_request_id)
          is distinct from (${kept.discrepancy_kind}::text, ${kept.message}::text, ${kept.discrepancy_carrier}::jsonb,
                            ${kept.discrepancy_platform}::jsonb, ${kept.transaction_ids}::jsonb, ${values.census_request_id ?? row.census_request_id}::uuid)`,
      )
      .returning('id')
      .executeTakeFirst()
    results.push({ id: row.id, dedupeKey: row.dedupe_key!, outcome: changed ? 'updated' : 'unchanged' })
    if (changed) audit.push({ accountId: row.account_id, action: 'error.updated', resourceType: 'error', resourceId: row.id })
  }
  await recordAuditEvents(tx, actor, audit)
  // The service's own check raised or reopened these: its source says which check.
  for (const row of created) await emitErrorEvent(tx, 'error.created', createdFacts(row), { reopened: false }, now, { type: 'raised', actor: context.source, party: null })
  for (const row of reopened) {
    await emitErrorEvent(tx, 'error.created', row, { reopened: true }, now, { type: 'reopened', actor: context.source, party: null, fromStatus: 'resolved' })
  }
  // Answered in the order the discrepancies were given, whatever order they were written in.
  const position = new Map(keys.map((key, index) => [key, index]))
  return results.sort((a, b) => position.get(a.dedupeKey)! - position.get(b.dedupeKey)!)
}

function createdFacts(row: Insertable<ErrorsTable>) {
  return {
    id: row.id,
    account_id: row.account_id,
    coverage_period_id: row.coverage_period_id,
    group_id: row.group_id,
    member_id: row.member_id ?? null,
    plan_id: row.plan_id ?? null,
    discrepancy_parameter: row.discrepancy_parameter,
    discrepancy_kind: row.discrepancy_kind ?? 'value_invalid',
    severity: row.severity,
    source: row.source,
    status: row.status ?? 'unresolved',
    assignee: row.assignee,
  }
}

export interface Resolution {
  message: string
  /** The email of the user, the API key's name, or `reconciliation`. */
  resolvedBy: string
  resolvedByUserId?: string | null
  censusRequestId?: string | null
  /** Resolved by the service itself rather than by a person's request. */
  automatic: boolean
}

/**
 * Resolves errors the caller has locked (SELECT ... FOR UPDATE in this transaction), from any
 * status, recording the resolution, the audit trail and `error.resolved` for each. Answers the
 * rows as they are now.
 */
export async function resolveLockedErrors(
  tx: Transaction<Database>,
  actor: Actor,
  rows: readonly ErrorRow[],
  resolution: Resolution,
  now: Date = new Date(),
): Promise<ErrorRow[]> {
  if (rows.length === 0) return []
  const resolved = await tx
    .updateTable('errors')
    .set({
      status: 'resolved',
      resolution_message: resolution.message,
      resolved_at: now,
      resolved_by: resolution.resolvedBy,
      resolved_by_user_id: resolution.resolvedByUserId ?? null,
      ...(resolution.censusRequestId ? { census_request_id: resolution.censusRequestId } : {}),
      updated_at: now,
    })
    .where(sql<boolean>`id = any(${rows.map((row) => row.id)}::uuid[])`)
    .returningAll()
    .execute()
  await recordAuditEvents(
    tx,
    actor,
    resolved.map((row) => ({ accountId: row.account_id, action: 'error.resolved', resourceType: 'error', resourceId: row.id })),
  )
  const previous = new Map(rows.map((row) => [row.id, row.status]))
  resolved.sort((a, b) => (a.id < b.id ? -1 : 1))
  for (const row of resolved) {
    const previousStatus = previous.get(row.id) ?? null
    await emitErrorEvent(tx, 'error.resolved', row, { previous_status: previousStatus, automatic: resolution.automatic }, now, {
      type: resolution.automatic ? 'auto_resolved' : 'resolved',
      actor: resolution.resolvedBy,
      party: resolution.automatic ? null : actor.accountKind,
      userId: resolution.resolvedByUserId ?? null,
      fromStatus: previousStatus,
    })
  }
  return resolved
}

export interface AutoResolveScope {
  coveragePeriodId: string
  source: CheckSource
  /** What the check covered: only errors about these parameters / members are candidates. Absent: all. */
  parameters?: readonly DiscrepancyParameter[]
  memberIds?: readonly string[]
  /** Dedupe keys the check found again (raiseErrors answers them): these stay open. */
  keepDedupeKeys: readonly string[]
}

/**
 * Resolves the open errors a check raised earlier and no longer finds: those of its source and
 * scope whose dedupe key is not among `keepDedupeKeys`. Answers the ids resolved.
 */
export async function autoResolveErrors(
  tx: Transaction<Database>,
  actor: Actor,
  scope: AutoResolveScope,
  resolution: Omit<Resolution, 'automatic' | 'resolvedByUserId'>,
  now: Date = new Date(),
): Promise<string[]> {
  let query = tx
    .selectFrom('errors')
    .selectAll()
    .where('coverage_period_id', '=', scope.coveragePeriodId)
    .where('source', '=', scope.source)
    .where('status', '<>', 'resolved')
    .where('dedupe_key', 'is not', null)
    .where(sql<boolean>`not (dedupe_key = any(${[...scope.keepDedupeKeys]}::text[]))`)
  if (scope.parameters) query = query.where(sql<boolean>`discrepancy_parameter = any(${[...scope.parameters]}::text[])`)
  if (scope.memberIds) query = query.where(sql<boolean>`member_id = any(${[...scope.memberIds]}::uuid[])`)
  const stale = await query.orderBy('id').forUpdate().execute()
  const resolved = await resolveLockedErrors(tx, actor, stale, { ...resolution, automatic: true }, now)
  return resolved.map((row) => row.id)
}

export const PCP_SELECTED_RESOLUTION = 'Resolved automatically: a primary care provider was selected for this member and plan.'

/**
 * A provider selection cures "the platform lacks a primary care provider" for its member and
 * plan, whoever raised that error: resolve the open ones. Errors of other kinds (the carrier
 * holds a different provider, the provider is invalid) need a person to confirm.
 */
export async function resolvePcpErrorsForSelection(
  tx: Transaction<Database>,
  actor: Actor,
  selection: { memberId: string; planId: string },
  now: Date = new Date(),
): Promise<string[]> {
  const open = await tx
    .selectFrom('errors')
    .selectAll()
    .where('member_id', '=', selection.memberId)
    .where('plan_id', '=', selection.planId)
    .where('discrepancy_parameter', '=', 'primary_care_provider')
    .where('discrepancy_kind', '=', 'platform_missing')
    .where('status', '<>', 'resolved')
    .orderBy('id')
    .forUpdate()
    .execute()
  const resolved = await resolveLockedErrors(tx, actor, open, { message: PCP_SELECTED_RESOLUTION, resolvedBy: actorName(actor), automatic: true }, now)
  return resolved.map((row) => row.id)
}
