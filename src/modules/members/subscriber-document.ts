import { sql, type RawBuilder } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { isoTimestamp } from '../../db/iso-timestamp.js'
import { prepare } from '../../db/prepared.js'
import type { AccountScope } from '../../lib/actor.js'

/**
 * GET /subscribers/{id}, the benchmarked read: PostgreSQL builds the whole answer,
 * `{"subscriber": {...}}`, as JSON text that is sent as it comes. Profiles of the row-based read
 * showed most of its CPU going to the driver (row descriptions of 25 columns, type parsing of
 * timestamps and jsonb) and to serialising the same values again; one text column removes both.
 *
 * The text is put together with concat() rather than json_build_object + json_strip_nulls: the
 * latter parsed and printed the whole ~1.4 KB answer a second time only to drop the null fields,
 * about a tenth of PostgreSQL's CPU for this read (issue 16). Each value still goes through
 * to_json (what json_build_object uses), so quoting and escaping are PostgreSQL's; an optional
 * field is `',"key":' || to_json(value)`, which is null, and so left out by concat, when the value
 * is null. Nested address, email, phone and employment values are jsonb as stored: they never
 * hold nulls (the request schemas allow none).
 *
 * It mirrors `presentSubscriber` / `presentDependent` in members.service.ts field for field:
 * optional fields are left out when null, the SSN shows its last four digits only, timestamps are
 * UTC ISO with milliseconds. test/subscriber-document.test.ts compares the two for random
 * subscribers, so a field added to one and not the other fails it.
 */

/** `"key":value` (after a comma unless first): for values that are never null. */
function required(key: string, value: RawBuilder<unknown>, first = false): RawBuilder<unknown> {
  return sql`${sql.lit(`${first ? '' : ','}"${key}":`)}, to_json(${value})`
}

/** `,"key":value`, or nothing when the value is null. */
function optional(key: string, value: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${sql.lit(`,"${key}":`)} || to_json(${value})`
}

const col = (name: string) => sql.ref(name)

const dependentText = sql`concat('{',
  ${required('id', col('d.id'), true)}, ${required('subscriber_id', col('d.subscriber_id'))}, ${required('group_id', col('d.group_id'))},
  ${required('external_identifier', col('d.external_identifier'))}, ${required('first_name', col('d.first_name'))},
  ${required('last_name', col('d.last_name'))}, ${required('birth_date', col('d.birth_date'))}, ${required('gender', col('d.gender'))},
  ${optional('subscriber_relationship', col('d.subscriber_relationship'))}, ${required('status', col('d.status'))},
  ${optional('social_security_number', sql`'***-**-' || d.ssn_last_four`)},
  ${optional('handicapped', col('d.handicapped'))}, ${optional('tobacco_use', col('d.tobacco_use'))},
  ${required('created_at', isoTimestamp('d.created_at'))}, ${required('updated_at', isoTimestamp('d.updated_at'))},
  '}')`

const lifeEventText = sql`concat('{',
  ${required('id', col('q.id'), true)}, ${required('coverage_period_id', col('q.coverage_period_id'))}, ${required('event', col('q.event'))},
  ${required('date', col('q.date'))}, ${required('eligibility_start_date', col('q.eligibility_start_date'))},
  '}')`

const subscriberText = sql<string>`concat('{"subscriber":{',
  ${required('id', col('s.id'), true)}, ${required('group_id', col('s.group_id'))}, ${required('external_identifier', col('s.external_identifier'))},
  ${optional('location_id', col('s.location_id'))},
  ${required('first_name', col('s.first_name'))}, ${optional('middle_name', col('s.middle_name'))}, ${required('last_name', col('s.last_name'))},
  ${required('birth_date', col('s.birth_date'))}, ${required('gender', col('s.gender'))},
  ${required('social_security_number', sql`'***-**-' || coalesce(s.ssn_last_four, '0000')`)},
  ${optional('marital_status', col('s.marital_status'))}, ${optional('tobacco_use', col('s.tobacco_use'))},
  ${optional('residential_address', col('s.residential_address'))}, ${optional('mailing_address', col('s.mailing_address'))},
  ${required('emails', sql`coalesce(s.emails, '[]'::jsonb)`)}, ${required('phone_numbers', sql`coalesce(s.phone_numbers, '[]'::jsonb)`)},
  ',"class":' || case when s.employment_classification_id is not null then concat('{',
    ${required('employment_classification_id', col('s.employment_classification_id'), true)},
    ${optional('effective_date', col('s.class_effective_date'))}, '}') end,
  ${optional('employment_details', col('s.employment_details'))}, ${required('status', col('s.status'))},
  ',"current_qualifying_life_events":[',
    (select string_agg(${lifeEventText}, ',' order by q.created_at, q.id)
       from (select distinct on (e.coverage_period_id) e.* from qualifying_life_events e
               join coverage_periods cp on cp.id = e.coverage_period_id and cp.state <> 'expired'
              where e.subscriber_id = s.id order by e.coverage_period_id, e.created_at desc, e.id desc) q),
  '],"dependents":[',
    (select string_agg(${dependentText}, ',' order by d.created_at, d.id) from members d where d.subscriber_id = s.id and d.kind = 'dependent'),
  ']',
  ${required('created_at', isoTimestamp('s.created_at'))}, ${required('updated_at', isoTimestamp('s.updated_at'))},
  '}}')`

const documentInAccount = prepare<{ body: string }, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db
    .selectFrom('members as s')
    .select(subscriberText.as('body'))
    .where('s.id', '=', id!)
    .where('s.kind', '=', 'subscriber')
    .where('s.account_id', '=', accountId!),
)
const documentAnyAccount = prepare<{ body: string }, [id: string]>(1, (db, [id]) =>
  db.selectFrom('members as s').select(subscriberText.as('body')).where('s.id', '=', id!).where('s.kind', '=', 'subscriber'),
)

/** The `{"subscriber": ...}` answer as JSON text, or undefined when no such subscriber is in scope. */
export async function findSubscriberDocument(db: Executor, scope: AccountScope, id: string): Promise<string | undefined> {
  const rows = scope ? await documentInAccount(db, id, scope) : await documentAnyAccount(db, id)
  return rows[0]?.body
}
