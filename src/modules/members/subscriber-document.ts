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
 * `subscriber_document_texts` in migrations/0016_subscriber_documents.sql, which says the rule
 * and why no write path can leave it stale. It mirrors `presentSubscriber` / `presentDependent`
 * in members.service.ts field for field: test/subscriber-document.test.ts compares the two for
 * random subscribers, test/subscriber-document-store.test.ts the stored text with a fresh one
 * after every kind of write. The ETag is the hash of this text, so it is the hash of the bytes served.
 */

const documentInAccount = prepare<{ body: string }, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db.selectFrom('subscriber_documents').select('body').where('subscriber_id', '=', id!).where('account_id', '=', accountId!),
)
const documentAnyAccount = prepare<{ body: string }, [id: string]>(1, (db, [id]) =>
  db.selectFrom('subscriber_documents').select('body').where('subscriber_id', '=', id!),
)

/** The `{"subscriber": ...}` answer as JSON text, or undefined when no such subscriber is in scope. */
export async function findSubscriberDocument(db: Executor, scope: AccountScope, id: string): Promise<string | undefined> {
  const rows = scope ? await documentInAccount(db, id, scope) : await documentAnyAccount(db, id)
  return rows[0]?.body
}
