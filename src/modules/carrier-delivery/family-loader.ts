import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'

/**
 * A coverage period's families as the carrier side needs them, read in pages: the 834 files and
 * the reconciliation both start here, so what the carrier is sent and what its census is
 * compared with are the same data. Three queries per page (members, coverages, PCPs) whatever
 * its size, so a 50,000-family group is a few hundred queries, never one per member.
 */

export interface LoadedMember {
  id: string
  subscriber_id: string | null
  kind: 'subscriber' | 'dependent'
  external_identifier: string
  carrier_member_id: string | null
  first_name: string
  middle_name: string | null
  last_name: string
  birth_date: string
  gender: string
  ssn_ciphertext: string | null
  ssn_key_id: string | null
  ssn_hash: string | null
  ssn_last_four: string | null
  marital_status: string | null
  tobacco_use: boolean | null
  handicapped: boolean | null
  subscriber_relationship: string | null
  residential_address: Record<string, string | null> | null
  mailing_address: Record<string, string | null> | null
  emails: { contact: string; type: string }[]
  phone_numbers: { contact: string; type: string }[]
  employment_details: Record<string, string | number | null> | null
  /** The subscriber's employment classification, if any. */
  classification: { type: string; code: string; description: string } | null
}

export interface LoadedCoverage {
  member_id: string
  plan_id: string
  plan_external_identifier: string
  plan_description: string
  product_line: string
  product_type: string | null
  start_date: string
  end_date: string | null
  status: 'employer_sponsored' | 'cobra'
  volume: number | null
  qualifying_life_event_id: string
  event: string
  eligibility_start_date: string
  pcp: { npi: string; first_name: string | null; last_name: string | null; organization_name: string | null } | null
}

export interface LoadedFamily {
  subscriber: LoadedMember
  dependents: LoadedMember[]
  /** The latest coverage of each member in each plan of the coverage period. */
  coverages: LoadedCoverage[]
  /** The family's latest qualifying life event on the coverage period. */
  latestEvent: { id: string; event: string; eligibility_start_date: string } | null
}

/**
 * Subscribers of the coverage period's group enrolled in it (a qualifying life event on it), in
 * id order after `afterId`: the keyset that pages a full file or a reconciliation.
 */
export async function enrolledSubscriberPage(db: Executor, coveragePeriodId: string, afterId: string | null, limit: number): Promise<string[]> {
  // Straight off the (coverage_period_id, subscriber_id) index, starting after the last page:
  // a life event's coverage period is always one of its subscriber's group (checked when it is
  // created), so no join to members is needed.
  const rows = await sql<{ subscriber_id: string }>`
    SELECT DISTINCT subscriber_id FROM qualifying_life_events
     WHERE coverage_period_id = ${coveragePeriodId}
       AND (${afterId}::uuid IS NULL OR subscriber_id > ${afterId}::uuid)
     ORDER BY subscriber_id
     LIMIT ${limit}`.execute(db)
  return rows.rows.map((row) => row.subscriber_id)
}

export async function countEnrolled(db: Executor, coveragePeriodId: string): Promise<{ subscribers: number; dependents: number }> {
  const row = await sql<{ subscribers: string; dependents: string }>`
    WITH enrolled AS (SELECT DISTINCT subscriber_id AS id FROM qualifying_life_events WHERE coverage_period_id = ${coveragePeriodId})
    SELECT (SELECT count(*) FROM enrolled)::text AS subscribers,
           (SELECT count(*) FROM members d JOIN enrolled e ON d.subscriber_id = e.id)::text AS dependents`.execute(db)
  return { subscribers: Number(row.rows[0]!.subscribers), dependents: Number(row.rows[0]!.dependents) }
}

/** The families of these subscribers, in the order given. */
export async function loadFamilies(db: Executor, coveragePeriodId: string, subscriberIds: readonly string[]): Promise<LoadedFamily[]> {
  if (subscriberIds.length === 0) return []
  const ids = [...subscriberIds]
  const members = await sql<LoadedMember>`
    SELECT m.id, m.subscriber_id, m.kind, m.external_identifier, m.carrier_member_id, m.first_name, m.middle_name, m.last_name,
           to_char(m.birth_date, 'YYYY-MM-DD') AS birth_date, m.gender, m.ssn_ciphertext, m.ssn_key_id, m.ssn_hash, m.ssn_last_four,
           m.marital_status, m.tobacco_use, m.handicapped, m.subscriber_relationship, m.residential_address, m.mailing_address,
           m.emails, m.phone_numbers, m.employment_details,
           CASE WHEN ec.id IS NULL THEN NULL ELSE json_build_object(
             'type', ec.type, 'code', coalesce(ec.carrier_identifier, ec.external_identifier), 'description', ec.description) END AS classification
      FROM members m
      LEFT JOIN employment_classifications ec ON ec.id = m.employment_classification_id
     WHERE m.id = ANY(${ids}::uuid[]) OR m.subscriber_id = ANY(${ids}::uuid[])
     ORDER BY m.subscriber_id NULLS FIRST, m.created_at, m.id`.execute(db)
  const memberIds = members.rows.map((member) => member.id)
  const coverages = await sql<Omit<LoadedCoverage, 'pcp'>>`
    SELECT DISTINCT ON (c.member_id, c.plan_id)
           c.member_id, c.plan_id, p.external_identifier AS plan_external_identifier, p.description AS plan_description,
           p.product_line, p.product_type, to_char(c.start_date, 'YYYY-MM-DD') AS start_date, to_char(c.end_date, 'YYYY-MM-DD') AS end_date,
           c.status, c.volume, q.id AS qualifying_life_event_id, q.event, to_char(q.eligibility_start_date, 'YYYY-MM-DD') AS eligibility_start_date
      FROM coverages c
      JOIN plan_elections pe ON pe.id = c.plan_election_id
      JOIN qualifying_life_events q ON q.id = pe.qualifying_life_event_id
      JOIN plans p ON p.id = c.plan_id
     WHERE c.member_id = ANY(${memberIds}::uuid[]) AND q.coverage_period_id = ${coveragePeriodId}
     ORDER BY c.member_id, c.plan_id, q.created_at DESC, q.id DESC`.execute(db)
  const pcps = await sql<{ member_id: string; plan_id: string; npi: string; first_name: string | null; last_name: string | null; organization_name: string | null }>`
    SELECT DISTINCT ON (member_id, plan_id) member_id, plan_id, npi, first_name, last_name, organization_name
      FROM provider_selections
     WHERE member_id = ANY(${memberIds}::uuid[])
     ORDER BY member_id, plan_id, effective_date DESC, created_at DESC`.execute(db)
  const latestEvents = await sql<{ subscriber_id: string; id: string; event: string; eligibility_start_date: string }>`
    SELECT DISTINCT ON (subscriber_id) subscriber_id, id, event, to_char(eligibility_start_date, 'YYYY-MM-DD') AS eligibility_start_date
      FROM qualifying_life_events
     WHERE subscriber_id = ANY(${ids}::uuid[]) AND coverage_period_id = ${coveragePeriodId}
     ORDER BY subscriber_id, created_at DESC, id DESC`.execute(db)

  const pcpOf = new Map(pcps.rows.map((row) => [`${row.member_id}:${row.plan_id}`, row]))
  const coveragesOf = new Map<string, LoadedCoverage[]>()
  for (const row of coverages.rows) {
    const pcp = pcpOf.get(`${row.member_id}:${row.plan_id}`)
    const list = coveragesOf.get(row.member_id) ?? []
    list.push({ ...row, volume: row.volume === null ? null : Number(row.volume), pcp: pcp ? { npi: pcp.npi, first_name: pcp.first_name, last_name: pcp.last_name, organization_name: pcp.organization_name } : null })
    coveragesOf.set(row.member_id, list)
  }
  const eventOf = new Map(latestEvents.rows.map((row) => [row.subscriber_id, row]))
  const families = new Map<string, LoadedFamily>()
  for (const member of members.rows) {
    if (member.kind === 'subscriber') {
      const event = eventOf.get(member.id)
      families.set(member.id, {
        subscriber: member,
        dependents: [],
        coverages: [],
        latestEvent: event ? { id: event.id, event: event.event, eligibility_start_date: event.eligibility_start_date } : null,
      })
    }
  }
  for (const member of members.rows) {
    if (member.kind === 'dependent') families.get(member.subscriber_id!)?.dependents.push(member)
  }
  for (const family of families.values()) {
    for (const member of [family.subscriber, ...family.dependents]) family.coverages.push(...(coveragesOf.get(member.id) ?? []))
  }
  return ids.map((id) => families.get(id)).filter((family): family is LoadedFamily => family !== undefined)
}

const ALL_IDS_PAGE = 10_000
const ALL_FAMILIES_PAGE = 1000

/**
 * Every enrolled family of the coverage period, for work that needs them all at once (a census,
 * a sandbox carrier's records). Two pages at a time on two connections: the database reads one
 * while this process parses the other (on the embedded database they simply take turns).
 */
export async function loadAllFamilies(db: Executor, coveragePeriodId: string): Promise<LoadedFamily[]> {
  const ids: string[] = []
  for (let after: string | null = null; ; after = ids[ids.length - 1]!) {
    const page = await enrolledSubscriberPage(db, coveragePeriodId, after, ALL_IDS_PAGE)
    if (page.length === 0) break
    ids.push(...page)
  }
  const pages: string[][] = []
  for (let start = 0; start < ids.length; start += ALL_FAMILIES_PAGE) pages.push(ids.slice(start, start + ALL_FAMILIES_PAGE))
  const loaded: LoadedFamily[][] = new Array(pages.length)
  let nextPage = 0
  const loadNext = async (): Promise<void> => {
    while (nextPage < pages.length) {
      const index = nextPage++
      loaded[index] = await loadFamilies(db, coveragePeriodId, pages[index]!)
    }
  }
  await Promise.all([loadNext(), loadNext()])
  return loaded.flat()
}
