import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { prepare } from '../../db/prepared.js'
import type { AccountScope } from '../../lib/actor.js'

/**
 * GET /subscribers/{id}, the benchmarked read: the whole answer, `{"subscriber": {...}}`, is JSON
 * text PostgreSQL keeps in `subscriber_documents`, read by primary key and sent as it is. Building
 * it on every read (the family's rows, its current life events) cost PostgreSQL about 95 µs of
 * CPU a read against 40 µs for a one-row read by key (issue 16, point 4); the row-based read
 * before that spent most of the service's CPU in the driver and on serialising the values again.
 *
 * The text is written by triggers in every statement that changes what it shows (members,
 * dependents, qualifying life events, a coverage period expiring), and defined once, in SQL:
 * `subscriber_document_texts` in migrations/0016_subscriber_documents.sql (0017 since), which says
 * the rule and why no write path can leave it stale. It mirrors `presentSubscriber` /
 * `presentDependent` in members.service.ts field for field: test/subscriber-document.test.ts
 * compares the two for random subscribers, test/subscriber-document-store.test.ts the stored text
 * with a fresh one after every kind of write. The ETag is the hash of the text served.
 *
 * Except the members' statuses: they change in bulk (a full file, a census: every member of
 * 50,000 families at once), so the stored text holds a placeholder byte (0x01) where each goes,
 * and the read puts in the statuses it reads beside the text, in the same statement (migrations/
 * 0017_subscriber_document_statuses.sql).
 */

type DocumentRow = { body: string; status: string; dependent_statuses: string[] }

/** The statuses in the document's order: the subscriber's, then its dependents' as the text lists them. */
const dependentStatuses = sql<string[]>`ARRAY(SELECT d.status FROM members d WHERE d.subscriber_id = sd.subscriber_id AND d.kind = 'dependent' ORDER BY d.created_at, d.id)`

const documentInAccount = prepare<DocumentRow, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db
    .selectFrom('subscriber_documents as sd')
    .innerJoin('members as s', 's.id', 'sd.subscriber_id')
    .select(['sd.body', 's.status', dependentStatuses.as('dependent_statuses')])
    .where('sd.subscriber_id', '=', id!)
    .where('sd.account_id', '=', accountId!),
)
const documentAnyAccount = prepare<DocumentRow, [id: string]>(1, (db, [id]) =>
  db
    .selectFrom('subscriber_documents as sd')
    .innerJoin('members as s', 's.id', 'sd.subscriber_id')
    .select(['sd.body', 's.status', dependentStatuses.as('dependent_statuses')])
    .where('sd.subscriber_id', '=', id!),
)

const STATUS_PLACEHOLDER = '\u0001'

/** The stored text with each placeholder replaced by its status, as JSON. */
export function withStatuses(body: string, statuses: readonly string[]): string {
  const pieces = body.split(STATUS_PLACEHOLDER)
  // Written by the same statement's snapshot as the rows: a dependent added or removed rewrites
  // the text in its own statement, so the counts always agree.
  if (pieces.length !== statuses.length + 1) throw new Error(`subscriber document has ${pieces.length - 1} status placeholders for ${statuses.length} members`)
  let text = pieces[0]!
  for (let i = 0; i < statuses.length; i++) text += JSON.stringify(statuses[i]) + pieces[i + 1]!
  return text
}

/** The `{"subscriber": ...}` answer as JSON text, or undefined when no such subscriber is in scope. */
export async function findSubscriberDocument(db: Executor, scope: AccountScope, id: string): Promise<string | undefined> {
  const rows = scope ? await documentInAccount(db, id, scope) : await documentAnyAccount(db, id)
  const row = rows[0]
  return row && withStatuses(row.body, [row.status, ...row.dependent_statuses])
}
