import { sql } from 'kysely'
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
 * It mirrors `presentSubscriber` / `presentDependent` in members.service.ts field for field:
 * optional fields are left out when null (json_strip_nulls; nested address, email, phone and
 * employment values never hold nulls, the request schemas allow none), the SSN shows its last
 * four digits only, timestamps are UTC ISO with milliseconds. test/subscriber-document.test.ts
 * compares the two for random subscribers, so a field added to one and not the other fails it.
 */
const dependentJson = sql`json_build_object(
  'id', d.id, 'subscriber_id', d.subscriber_id, 'group_id', d.group_id, 'external_identifier', d.external_identifier,
  'first_name', d.first_name, 'last_name', d.last_name, 'birth_date', d.birth_date, 'gender', d.gender,
  'subscriber_relationship', d.subscriber_relationship, 'status', d.status,
  'social_security_number', '***-**-' || d.ssn_last_four,
  'handicapped', d.handicapped, 'tobacco_use', d.tobacco_use,
  'created_at', ${isoTimestamp('d.created_at')},
  'updated_at', ${isoTimestamp('d.updated_at')})`

const subscriberJson = sql<string>`json_build_object('subscriber', json_strip_nulls(json_build_object(
  'id', s.id, 'group_id', s.group_id, 'external_identifier', s.external_identifier, 'location_id', s.location_id,
  'first_name', s.first_name, 'middle_name', s.middle_name, 'last_name', s.last_name, 'birth_date', s.birth_date,
  'gender', s.gender, 'social_security_number', '***-**-' || coalesce(s.ssn_last_four, '0000'),
  'marital_status', s.marital_status, 'tobacco_use', s.tobacco_use,
  'residential_address', s.residential_address, 'mailing_address', s.mailing_address,
  'emails', coalesce(s.emails, '[]'::jsonb), 'phone_numbers', coalesce(s.phone_numbers, '[]'::jsonb),
  'class', case when s.employment_classification_id is not null
    then json_build_object('employment_classification_id', s.employment_classification_id, 'effective_date', s.class_effective_date) end,
  'employment_details', s.employment_details, 'status', s.status,
  'current_qualifying_life_events', coalesce(
    (select json_agg(json_build_object('id', q.id, 'coverage_period_id', q.coverage_period_id, 'event', q.event, 'date', q.date,
                                       'eligibility_start_date', q.eligibility_start_date) order by q.created_at, q.id)
       from (select distinct on (e.coverage_period_id) e.* from qualifying_life_events e
               join coverage_periods cp on cp.id = e.coverage_period_id and cp.state <> 'expired'
              where e.subscriber_id = s.id order by e.coverage_period_id, e.created_at desc, e.id desc) q),
    '[]'::json),
  'dependents', coalesce(
    (select json_agg(${dependentJson} order by d.created_at, d.id) from members d where d.subscriber_id = s.id and d.kind = 'dependent'),
    '[]'::json),
  'created_at', ${isoTimestamp('s.created_at')},
  'updated_at', ${isoTimestamp('s.updated_at')})))::text`

const documentInAccount = prepare<{ body: string }, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db
    .selectFrom('members as s')
    .select(subscriberJson.as('body'))
    .where('s.id', '=', id!)
    .where('s.kind', '=', 'subscriber')
    .where('s.account_id', '=', accountId!),
)
const documentAnyAccount = prepare<{ body: string }, [id: string]>(1, (db, [id]) =>
  db.selectFrom('members as s').select(subscriberJson.as('body')).where('s.id', '=', id!).where('s.kind', '=', 'subscriber'),
)

/** The `{"subscriber": ...}` answer as JSON text, or undefined when no such subscriber is in scope. */
export async function findSubscriberDocument(db: Executor, scope: AccountScope, id: string): Promise<string | undefined> {
  const rows = scope ? await documentInAccount(db, id, scope) : await documentAnyAccount(db, id)
  return rows[0]?.body
}
