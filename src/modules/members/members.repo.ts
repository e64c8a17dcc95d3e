import { sql, type Selectable } from 'kysely'
import type { Executor, MembersTable } from '../../db/schema.js'
import { selectPage } from '../../db/paging.js'
import { isoTimestamp } from '../../db/iso-timestamp.js'
import { prepare } from '../../db/prepared.js'
import type { PageRequest } from '../../http/pagination.js'
import type { Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { auditActorColumns } from '../audit/audit.repo.js'

import type { AccountScope } from '../../lib/actor.js'
import type { CurrentLifeEvent } from './members.schema.js'

export type { AccountScope }

export type MemberRow = Selectable<MembersTable>

type JsonColumns = 'residential_address' | 'mailing_address' | 'emails' | 'phone_numbers' | 'employment_details'

/**
 * A member as written: the table's columns, with jsonb values as JS values (serialised once, with
 * the whole batch) and timestamps as ISO text; `status` takes its default.
 */
export type NewMember = Omit<MemberRow, JsonColumns | 'status' | 'carrier_member_id' | 'created_at' | 'updated_at'> & {
  [Column in JsonColumns]: unknown
} & { created_at: string; updated_at: string }

// Column name and SQL type, for jsonb_to_recordset: a batch is one JSON parameter, not 30 per row,
// which keeps a 12,500-member installment to a handful of statements and little parameter work.
const MEMBER_COLUMNS: ReadonlyArray<readonly [keyof NewMember, string]> = [
  ['id', 'uuid'],
  ['account_id', 'uuid'],
  ['group_id', 'uuid'],
  ['subscriber_id', 'uuid'],
  ['kind', 'text'],
  ['external_identifier', 'text'],
  ['first_name', 'text'],
  ['middle_name', 'text'],
  ['last_name', 'text'],
  ['birth_date', 'date'],
  ['gender', 'text'],
  ['ssn_ciphertext', 'text'],
  ['ssn_key_id', 'text'],
  ['ssn_hash', 'text'],
  ['ssn_last_four', 'text'],
  ['marital_status', 'text'],
  ['tobacco_use', 'boolean'],
  ['handicapped', 'boolean'],
  ['subscriber_relationship', 'text'],
  ['location_id', 'uuid'],
  ['employment_classification_id', 'uuid'],
  ['class_effective_date', 'date'],
  ['residential_address', 'jsonb'],
  ['mailing_address', 'jsonb'],
  ['emails', 'jsonb'],
  ['phone_numbers', 'jsonb'],
  ['employment_details', 'jsonb'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
]
const COLUMN_LIST = sql.raw(MEMBER_COLUMNS.map(([name]) => name).join(', '))
const RECORD_TYPE = sql.raw(MEMBER_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', '))
const BATCH_ROWS = 2500

/** Inserts in batches; subscribers must come before their dependents (the foreign key). */
export async function insertMembers(tx: Executor, rows: readonly NewMember[]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH_ROWS) {
    const batch = JSON.stringify(rows.slice(start, start + BATCH_ROWS))
    await sql`insert into members (${COLUMN_LIST}) select ${COLUMN_LIST} from jsonb_to_recordset(${batch}::jsonb) as x(${RECORD_TYPE})`.execute(tx)
  }
}

/**
 * One audit event per created or changed member, in the caller's transaction, in batches: the
 * same fields `recordAuditEvent` writes (no values, so no PII), without a statement per member.
 */
export async function recordMemberAuditEvents(
  tx: Executor,
  actor: Actor,
  accountId: string,
  action: string,
  resourceType: 'subscriber' | 'dependent',
  resourceIds: readonly string[],
): Promise<void> {
  for (let start = 0; start < resourceIds.length; start += BATCH_ROWS) {
    const batch = JSON.stringify(
      resourceIds.slice(start, start + BATCH_ROWS).map((resourceId) => ({
        id: uuidv7(),
        account_id: accountId,
        ...auditActorColumns(actor),
        action,
        resource_type: resourceType,
        resource_id: resourceId,
      })),
    )
    const columns = sql.raw('id, account_id, actor_account_id, api_key_id, actor_user_id, channel, request_id, action, resource_type, resource_id')
    await sql`insert into audit_events (${columns}) select ${columns} from jsonb_to_recordset(${batch}::jsonb) as x(
      id uuid, account_id uuid, actor_account_id uuid, api_key_id uuid, actor_user_id uuid, channel text, request_id text, action text, resource_type text, resource_id uuid)`.execute(tx)
  }
}

export async function findGroup(db: Executor, scope: AccountScope, id: string): Promise<{ id: string; account_id: string } | undefined> {
  let query = db.selectFrom('groups').select(['id', 'account_id']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function locationIdsOfGroup(db: Executor, groupId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('locations')
    .select('id')
    .where('group_id', '=', groupId)
    .where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
    .execute()
  return new Set(rows.map((row) => row.id))
}

export async function classificationIdsOfGroup(db: Executor, groupId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('employment_classifications')
    .select('id')
    .where('group_id', '=', groupId)
    .where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
    .execute()
  return new Set(rows.map((row) => row.id))
}

/** Which of these external identifiers subscribers of the group already use (other than `exceptId`). */
export async function takenSubscriberIdentifiers(db: Executor, groupId: string, identifiers: readonly string[], exceptId?: string): Promise<Set<string>> {
  if (identifiers.length === 0) return new Set()
  let query = db
    .selectFrom('members')
    .select('external_identifier')
    .where('group_id', '=', groupId)
    .where('kind', '=', 'subscriber')
    .where(sql<boolean>`external_identifier = any(${[...identifiers]}::text[])`)
  if (exceptId) query = query.where('id', '<>', exceptId)
  const rows = await query.execute()
  return new Set(rows.map((row) => row.external_identifier))
}

export async function dependentIdentifierTaken(db: Executor, subscriberId: string, identifier: string, exceptId?: string): Promise<boolean> {
  let query = db
    .selectFrom('members')
    .select('id')
    .where('subscriber_id', '=', subscriberId)
    .where('kind', '=', 'dependent')
    .where('external_identifier', '=', identifier)
  if (exceptId) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Locks the member's row until the transaction ends: an If-Match check and the write it guards see one version. */
export async function lockMember(tx: Executor, id: string): Promise<void> {
  await tx.selectFrom('members').select('id').where('id', '=', id).forUpdate().execute()
}

export async function findMember(db: Executor, scope: AccountScope, id: string, kind?: 'subscriber' | 'dependent'): Promise<MemberRow | undefined> {
  let query = db.selectFrom('members').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  if (kind) query = query.where('kind', '=', kind)
  return query.executeTakeFirst()
}

/**
 * What answers show of a member: every column but the sealed SSN and its hash, with timestamps
 * as ISO text. Built rows (NewMember) and rows read for an answer (MemberReadRow) both fit it.
 */
export type PresentableMember = Omit<NewMember, 'account_id' | 'ssn_ciphertext' | 'ssn_key_id' | 'ssn_hash'> & {
  status: MemberRow['status']
}

/** A member row read for an answer: PresentableMember plus its kind (subscriber rows come first). */
export type MemberReadRow = PresentableMember

// Timestamps are formatted by PostgreSQL as the API's ISO text: parsing them into Dates only to
// print them again was a visible share of the subscriber read's CPU.
const isoText = (column: 'created_at' | 'updated_at') => isoTimestamp(column).as(column)

const PRESENTED_COLUMNS = [
  'id', 'group_id', 'subscriber_id', 'kind', 'external_identifier', 'first_name', 'middle_name', 'last_name',
  'birth_date', 'gender', 'ssn_last_four', 'marital_status', 'tobacco_use', 'handicapped', 'subscriber_relationship',
  'location_id', 'employment_classification_id', 'class_effective_date', 'residential_address', 'mailing_address',
  'emails', 'phone_numbers', 'employment_details', 'status',
] as const

// GET /subscribers/{id} and GET /members/{id}: the subscriber and its dependents in one round
// trip, subscriber first, only the columns an answer shows. Prepared: it is on the benchmarked
// read path.
const familyInAccount = prepare<MemberReadRow, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db
    .selectFrom('members')
    .select([...PRESENTED_COLUMNS, isoText('created_at'), isoText('updated_at')])
    .where((eb) => eb.or([eb.and([eb('id', '=', id!), eb('kind', '=', 'subscriber')]), eb('subscriber_id', '=', id!)]))
    .where('account_id', '=', accountId!)
    .orderBy(sql`kind = 'dependent', created_at, id`),
)
const familyAnyAccount = prepare<MemberReadRow, [id: string]>(1, (db, [id]) =>
  db
    .selectFrom('members')
    .select([...PRESENTED_COLUMNS, isoText('created_at'), isoText('updated_at')])
    .where((eb) => eb.or([eb.and([eb('id', '=', id!), eb('kind', '=', 'subscriber')]), eb('subscriber_id', '=', id!)]))
    .orderBy(sql`kind = 'dependent', created_at, id`),
)

/** A subscriber with its dependents (oldest first), or undefined when no such subscriber is in scope. */
export async function findSubscriberFamily(
  db: Executor,
  scope: AccountScope,
  id: string,
): Promise<{ subscriber: MemberReadRow; dependents: MemberReadRow[] } | undefined> {
  const rows = scope ? await familyInAccount(db, id, scope) : await familyAnyAccount(db, id)
  const [subscriber, ...dependents] = rows
  return subscriber?.kind === 'subscriber' ? { subscriber, dependents } : undefined
}

/** Dependents of these subscribers, oldest first. */
export async function dependentsOf(db: Executor, subscriberIds: readonly string[]): Promise<MemberRow[]> {
  if (subscriberIds.length === 0) return []
  return db
    .selectFrom('members')
    .selectAll()
    .where(sql<boolean>`subscriber_id = any(${[...subscriberIds]}::uuid[])`)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export async function listSubscribers(db: Executor, groupId: string, pageReq: PageRequest) {
  const query = db.selectFrom('members').where('group_id', '=', groupId).where('kind', '=', 'subscriber')
  return selectPage(query, pageReq, (q) => q.selectAll())
}

export type MemberChanges = Omit<NewMember, 'id' | 'account_id' | 'group_id' | 'subscriber_id' | 'kind' | 'created_at' | 'ssn_ciphertext' | 'ssn_key_id' | 'ssn_hash' | 'ssn_last_four'> &
  Partial<Pick<NewMember, 'ssn_ciphertext' | 'ssn_key_id' | 'ssn_hash' | 'ssn_last_four'>>

const JSON_COLUMNS = new Set(['residential_address', 'mailing_address', 'emails', 'phone_numbers', 'employment_details'])

export async function updateMember(tx: Executor, id: string, changes: MemberChanges): Promise<MemberRow> {
  const values: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue
    values[name] = JSON_COLUMNS.has(name) && value !== null ? JSON.stringify(value) : value
  }
  // The values were checked against MemberChanges above; jsonb ones are now JSON text as the table type wants.
  return tx.updateTable('members').set(values as never).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/** Per subscriber, its latest life event on each coverage period that has not expired, oldest first. */
export async function currentLifeEventsOf(db: Executor, subscriberIds: readonly string[]): Promise<Map<string, CurrentLifeEvent[]>> {
  const found = new Map<string, CurrentLifeEvent[]>()
  if (subscriberIds.length === 0) return found
  const rows = await sql<CurrentLifeEvent & { subscriber_id: string; created_at: Date }>`
    SELECT * FROM (
      SELECT DISTINCT ON (e.subscriber_id, e.coverage_period_id) e.subscriber_id, e.id, e.coverage_period_id, e.event,
             to_char(e.date, 'YYYY-MM-DD') AS date, to_char(e.eligibility_start_date, 'YYYY-MM-DD') AS eligibility_start_date, e.created_at
        FROM qualifying_life_events e
        JOIN coverage_periods cp ON cp.id = e.coverage_period_id AND cp.state <> 'expired'
       WHERE e.subscriber_id = ANY(${[...subscriberIds]}::uuid[])
       ORDER BY e.subscriber_id, e.coverage_period_id, e.created_at DESC, e.id DESC) latest
     ORDER BY created_at, id`.execute(db)
  for (const { subscriber_id: subscriberId, created_at: _created, ...event } of rows.rows) {
    found.set(subscriberId, [...(found.get(subscriberId) ?? []), event])
  }
  return found
}

/**
 * The SSN hashes of a family (the subscriber and its dependents), but `exceptId`'s: what a new or
 * changed SSN of the family is compared with. Call it with the subscriber locked (lockMember), so
 * that two requests cannot both pass the check with the same number.
 */
export async function familySsnHashes(tx: Executor, subscriberId: string, exceptId?: string): Promise<Set<string>> {
  let query = tx
    .selectFrom('members')
    .select('ssn_hash')
    .where((eb) => eb.or([eb('id', '=', subscriberId), eb('subscriber_id', '=', subscriberId)]))
    .where('ssn_hash', 'is not', null)
  if (exceptId) query = query.where('id', '<>', exceptId)
  return new Set((await query.execute()).map((row) => row.ssn_hash!))
}
