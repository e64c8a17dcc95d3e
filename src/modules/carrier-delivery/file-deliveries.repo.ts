import { sql, type Selectable } from 'kysely'
import { IV_BYTES, SsnKeyError, TAG_BYTES, type SsnProtection } from '../../lib/ssn-protection.js'
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
  'resent_at',
  'created_at',
] as const satisfies readonly (keyof FileDeliveriesTable)[]

type DeliveryReadRow = Pick<Selectable<FileDeliveriesTable>, (typeof DELIVERY_COLUMNS)[number]>

export function presentFileDelivery(row: DeliveryReadRow): FileDelivery {
  return {
    ...row,
    sent_at: row.sent_at?.toISOString() ?? null,
    // bigint: a number through pg's int8 parser, but typed as text; Number() covers both.
    byte_size: row.byte_size === null ? null : Number(row.byte_size),
    resent_at: row.resent_at?.toISOString() ?? null,
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
 * A chunk is read back this many bytes at a time (see fileChunks): a piece comes as 64 KiB of hex
 * text, below V8's large-object size (128 KiB), so it dies young with the buffers around it.
 */
const PIECE_BYTES = 32 * 1024

/** One piece of a stored chunk's body, with what opening the chunk needs (repeated on each piece). */
interface ChunkPieceRow {
  seq: number
  key_id: string
  sealed_bytes: number
  iv: Buffer
  tag: Buffer
  /** Null only for a chunk whose body is empty (or that is truncated). */
  piece: Buffer | null
}

/**
 * The chunk after `after`, its body in pieces of PIECE_BYTES, in order (none when there is no
 * later chunk). Sliced by PostgreSQL, which reads only the slice of the stored value it needs. As
 * bytea (hex text on the wire): encode(data, 'base64') is faster for this process to decode but
 * slower for PostgreSQL to produce, and the send then waited on PostgreSQL.
 */
async function nextChunkPieces(db: Executor, fileDeliveryId: string, after: number): Promise<ChunkPieceRow[]> {
  const { rows } = await sql<ChunkPieceRow>`
    SELECT c.seq, c.key_id, octet_length(c.data) AS sealed_bytes,
           substring(c.data FROM 1 FOR ${sql.lit(IV_BYTES)}) AS iv,
           substring(c.data FROM octet_length(c.data) - ${sql.lit(TAG_BYTES - 1)}) AS tag,
           substring(c.data FROM p.start FOR least(${sql.lit(PIECE_BYTES)}, octet_length(c.data) - ${sql.lit(TAG_BYTES)} - p.start + 1)) AS piece
      FROM (SELECT seq, key_id, data FROM file_delivery_chunks
             WHERE file_delivery_id = ${fileDeliveryId} AND seq > ${after} ORDER BY seq LIMIT 1) c
      LEFT JOIN LATERAL generate_series(${sql.lit(IV_BYTES + 1)}, octet_length(c.data) - ${sql.lit(TAG_BYTES)}, ${sql.lit(PIECE_BYTES)}) AS p(start) ON true
     ORDER BY p.start`.execute(db)
  return rows
}

/** A chunk's plain bytes, in pieces, once its tag is checked. */
function openChunk(ssn: SsnProtection, rows: readonly ChunkPieceRow[]): Buffer[] {
  const first = rows[0]!
  const body = rows.flatMap((row) => (row.piece ? [row.piece] : []))
  // Every byte between the IV and the tag, once: this guards the slicing above, and a value shorter
  // than an IV and a tag (which has no body to slice) fails here rather than opening as nothing.
  const bodyBytes = body.reduce((sum, piece) => sum + piece.length, 0)
  if (bodyBytes !== first.sealed_bytes - IV_BYTES - TAG_BYTES) throw new SsnKeyError(`chunk ${first.seq} is truncated`)
  return ssn.openPieces(first.iv, body, first.tag, first.key_id)
}

/**
 * The file's plain content in order, chunk by chunk, each chunk opened once its tag is checked
 * and handed out in the pieces it was read in. One chunk is read per query, the next while this
 * one is written out (whatever the file's size, two chunks at most are in memory), by keyset on
 * seq (an index range scan on the primary key, no growing OFFSET).
 *
 * Read in pieces, not whole: a whole 1 MiB chunk came as one 2 MiB hex field, which node-postgres
 * gathers into buffers doubled up to 4 MiB, and these, with the hex text (a large object, only
 * collected by a full collection) and the copies, left about 13 bytes of garbage per byte read,
 * most of it outside V8's heap where no collection was due soon. Reading a 10 MB change file back
 * for its checksum and again to send it grew the service by 50-60 MB; in pieces, by about 30 MB
 * (bench/RESULTS.md, 2026-11-27).
 */
export async function* fileChunks(db: Executor, ssn: SsnProtection, fileDeliveryId: string): AsyncGenerator<Buffer> {
  let next = nextChunkPieces(db, fileDeliveryId, -1)
  for (;;) {
    const rows = await next
    if (rows.length === 0) return
    next = nextChunkPieces(db, fileDeliveryId, rows[0]!.seq)
    // Awaited in its turn, which rethrows; until then a failure must not count as unhandled.
    next.catch(() => {})
    yield* openChunk(ssn, rows)
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
