import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { CoverageTransmissionsTable, Executor, FileDeliveriesTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'
import type { CoverageTransmission, FileDelivery } from './file-deliveries.schema.js'

// Reads of the carrier side's deliveries. The writes (generating, chunking and sending files)
// live with the delivery service.

const DELIVERY_COLUMNS = [
  'id',
  'coverage_period_id',
  'group_id',
  'carrier_name',
  'kind',
  'channel',
  'file_name',
  'status',
  'sent_at',
  'transaction_count',
  'member_count',
  'byte_size',
  'sha256',
  'interchange_control_number',
  'acknowledgement_status',
  'attempts',
  'last_error',
  'created_at',
] as const satisfies readonly (keyof FileDeliveriesTable)[]

type DeliveryReadRow = Pick<Selectable<FileDeliveriesTable>, (typeof DELIVERY_COLUMNS)[number]>

export function presentFileDelivery(row: DeliveryReadRow): FileDelivery {
  return {
    ...row,
    sent_at: row.sent_at?.toISOString() ?? null,
    // bigint: a number through pg's int8 parser, but typed as text; Number() covers both.
    byte_size: row.byte_size === null ? null : Number(row.byte_size),
    created_at: row.created_at.toISOString(),
  }
}

/** Newest first. The caller has found the coverage period in the actor's scope. */
export async function listFileDeliveries(db: Executor, coveragePeriodId: string, pageReq: PageRequest) {
  const query = db.selectFrom('file_deliveries').where('coverage_period_id', '=', coveragePeriodId)
  const { items, total } = await selectPage(query, pageReq, (q) => q.select(DELIVERY_COLUMNS), 'desc')
  return { items: items.map(presentFileDelivery), total }
}

export async function findFileDelivery(db: Executor, scope: AccountScope, id: string): Promise<FileDelivery | undefined> {
  let query = db.selectFrom('file_deliveries').select(DELIVERY_COLUMNS).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  const row = await query.executeTakeFirst()
  return row && presentFileDelivery(row)
}

/** What serving the file needs; `byte_size` is null until the last chunk is written. */
export async function findFileContentHeader(db: Executor, scope: AccountScope, id: string) {
  let query = db.selectFrom('file_deliveries').select(['id', 'channel', 'file_name', 'status', 'byte_size']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  const row = await query.executeTakeFirst()
  return row && { ...row, byte_size: row.byte_size === null ? null : Number(row.byte_size) }
}

/**
 * The file's chunks in order, opened, `pageSize` rows per query, by keyset on seq: two pages of
 * chunks at most are in memory (the one written out and the next, read meanwhile) whatever the
 * file's size, and each query is an index range scan on the primary key (no growing OFFSET).
 */
export async function* fileChunks(db: Executor, ssn: SsnProtection, fileDeliveryId: string, pageSize = 8): AsyncGenerator<Buffer> {
  const page = (after: number) =>
    db
      .selectFrom('file_delivery_chunks')
      // As bytea (hex text on the wire): encode(data, 'base64') is faster for this process to
      // decode but slower for PostgreSQL to produce, and the send then waited on PostgreSQL.
      .select(['seq', 'key_id', 'data'])
      .where('file_delivery_id', '=', fileDeliveryId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute()
  let next = page(-1)
  for (;;) {
    const rows = await next
    const more = rows.length === pageSize
    if (more) {
      // The next page is read while this one is opened and written out.
      next = page(rows[rows.length - 1]!.seq)
      // Awaited in its turn, which rethrows; until then a failure must not count as unhandled.
      next.catch(() => {})
    }
    for (const row of rows) yield ssn.openBytes(row.data, row.key_id)
    if (!more) return
  }
}

/**
 * The whole file, opened and decoded (UTF-8), for readers that need its text at once: an api
 * delivery's JSON document, a 999's findings located in the 834 we sent, the sandbox reading what
 * it received. The file is held twice for a moment (chunks, then text): sending streams fileChunks.
 */
export async function readFileContent(db: Executor, ssn: SsnProtection, fileDeliveryId: string): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of fileChunks(db, ssn, fileDeliveryId)) chunks.push(chunk)
  // Joined before decoding: a chunk may end inside a multi-byte character.
  return Buffer.concat(chunks).toString('utf8')
}

// ---- Coverage transmissions ----

type TransmissionFilters = { coveragePeriodId: string; memberId?: string | undefined; planId?: string | undefined } | { memberId: string }

/**
 * Newest first, with the sent_at and status of the file that carried each. Those come from
 * correlated subqueries rather than a join so the page's `created_at, id` order stays unambiguous.
 * The caller has found the member or coverage period in the actor's scope.
 */
export async function listCoverageTransmissions(db: Executor, filters: TransmissionFilters, pageReq: PageRequest) {
  let query = db.selectFrom('coverage_transmissions')
  if ('coveragePeriodId' in filters) {
    query = query.where('coverage_transmissions.coverage_period_id', '=', filters.coveragePeriodId)
    if (filters.planId) query = query.where('coverage_transmissions.plan_id', '=', filters.planId)
  }
  if (filters.memberId) query = query.where('coverage_transmissions.member_id', '=', filters.memberId)
  const { items, total } = await selectPage(
    query,
    pageReq,
    (q) =>
      q.selectAll('coverage_transmissions').select((eb) => [
        eb.selectFrom('file_deliveries').select('file_deliveries.sent_at').whereRef('file_deliveries.id', '=', 'coverage_transmissions.file_delivery_id').as('sent_at'),
        eb.selectFrom('file_deliveries').select('file_deliveries.status').whereRef('file_deliveries.id', '=', 'coverage_transmissions.file_delivery_id').as('delivery_status'),
      ]),
    'desc',
  )
  return { items: items.map(presentTransmission), total }
}

type TransmissionReadRow = Selectable<CoverageTransmissionsTable> & { sent_at: Date | null; delivery_status: FileDelivery['status'] | null }

function presentTransmission(row: TransmissionReadRow): CoverageTransmission {
  return {
    id: row.id,
    coverage_period_id: row.coverage_period_id,
    member_id: row.member_id,
    plan_id: row.plan_id,
    file_delivery_id: row.file_delivery_id,
    transaction_id: row.transaction_id,
    maintenance: row.maintenance,
    start_date: row.start_date,
    end_date: row.end_date,
    sent_at: row.sent_at?.toISOString() ?? null,
    // The foreign key makes the delivery always exist; the subquery's type cannot know that.
    delivery_status: row.delivery_status ?? 'pending',
    created_at: row.created_at.toISOString(),
  }
}
