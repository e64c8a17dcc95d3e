import { sql } from 'kysely'
import { executeNamed, NAMED_LIST_MAX } from '../../db/prepared.js'
import { arrayLiteral } from '../../db/array-literal.js'
import type { Executor } from '../../db/schema.js'
import { todayUtc } from '../../lib/clock.js'
import { inForceOn, type CoverageLevel } from '../coverage-timeline/coverage-timeline.model.js'
// The carrier's-view model is pure (no SQL, no state): the census's coverages in force are the
// records a carrier holds, so the read model reuses it rather than keeping a second copy.
import { carrierRecords, termOn, type SpanLike } from '../carrier-delivery/carrier-view.js'

/**
 * The enrollment read model: a coverage period's families (members, coverage spans, plans, PCPs,
 * life events) as the carrier side needs them, read in pages. The 834 files and
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
  /** The subscriber's; null for a dependent (files and censuses send the subscriber's only). */
  residential_address: Record<string, string | null> | null
  /** The subscriber's; null for a dependent. */
  mailing_address: Record<string, string | null> | null
  emails: { contact: string; type: string }[]
  phone_numbers: { contact: string; type: string }[]
  /** The subscriber's; null for a dependent. */
  employment_details: Record<string, string | number | null> | null
  /** The subscriber's employment classification, if any. */
  classification: { type: string; code: string; description: string } | null
  /** A digest of what the member's loop says about the person (see the query); null unless loaded withDigests. */
  digest: string | null
}

/** A plan as the 834 names it. */
export interface LoadedPlan {
  plan_id: string
  plan_external_identifier: string
  plan_description: string
  product_line: string
  product_type: string | null
}

export interface LoadedPcp {
  npi: string
  first_name: string | null
  last_name: string | null
  organization_name: string | null
}

/** One span of coverage of a member in a plan of the coverage period (coverage-timeline). */
export interface LoadedSpan extends LoadedPlan {
  member_id: string
  line: string
  start_date: string
  end_date: string | null
  status: 'employer_sponsored' | 'cobra'
  volume: number | null
  coverage_level: CoverageLevel
  pcp: LoadedPcp | null
}

/** A coverage as the carrier holds it on the family's reference date (census comparisons). */
export interface LoadedCoverage extends LoadedPlan {
  member_id: string
  start_date: string
  end_date: string | null
  status: 'employer_sponsored' | 'cobra'
  volume: number | null
  pcp: LoadedPcp | null
}

export interface LoadedEvent {
  id: string
  event: string
  date: string
  eligibility_start_date: string
}

/** Events that enrol a family from scratch (x12-834-notes.md, "New enrollment": installation, new hire, newly eligible). */
const NEW_ENROLLMENT_EVENTS: readonly string[] = ['initial_enrollment', 'new_hire', 'newly_eligible']

export interface LoadedFamily {
  subscriber: LoadedMember
  dependents: LoadedMember[]
  /** Every span of the family in the coverage period's plans, by member, line and start. */
  spans: LoadedSpan[]
  /** The carrier's records in force on the reference date (today within the plan year); empty unless loaded withCoverages. */
  coverages: LoadedCoverage[]
  /**
   * The family's life events on any coverage period of the group, oldest first (allEvents, or
   * cobraHistory for a family holding COBRA coverage), else its latest on the period.
   */
  events: LoadedEvent[]
  /** The family's latest qualifying life event on the coverage period. */
  latestEvent: LoadedEvent | null
  /**
   * Whether one of the family's events on the coverage period enrols it from scratch
   * (NEW_ENROLLMENT_EVENTS), whatever came after it: a renewal's full file names such a family a
   * new enrollment, not a benefit selection (edi-834-members.ts, fullFileReason).
   */
  enrolledAsNew: boolean
  /**
   * With `allEvents`: which life events set each member's active coverages on the coverage
   * period, those a later event replaced included (member id, event id), and which replaced one
   * (`replaced`: the event that voided a span, a divorce re-levelling the employee's). A change
   * file names a member the carrier was never sent by the event that brought it, and another
   * member's loop by the latest event that changed its coverage (edi-834-members.ts).
   */
  coverageEvents: { member_id: string; qualifying_life_event_id: string; replaced: boolean }[]
  /**
   * With `cobraHistory`, for a family holding COBRA coverage: every span of its members on any
   * coverage period (line, status, dates; an end no later than its period's end, since a plan
   * year's span reaches no further), since a COBRA member may have lost its active coverage in an
   * earlier plan year and continue a COBRA run begun then (loadCobraHistory). Absent otherwise:
   * `spans` tell.
   */
  spanHistory?: { member_id: string; line: string; status: string; start_date: string; end_date: string | null }[]
}

/** The coverage period as the loader needs it: its id and its dates (the window records are seen through). */
export interface LoadWindow {
  coveragePeriodId: string
  startDate: string
  endDate: string | null
}

/**
 * Subscribers whose family has a span in the coverage period's plans (any line, any date), in id
 * order after `afterId`: the keyset that pages a full file or a reconciliation. Straight off the
 * (coverage_period_id, subscriber_id) index of the spans; a full file leaves out the families
 * whose spans it cannot carry (fullFileMembers), as countEnrolled does.
 */
async function enrolledSubscriberPage(db: Executor, coveragePeriodId: string, afterId: string | null, limit: number): Promise<string[]> {
  const rows = await sql<{ subscriber_id: string }>`
    SELECT DISTINCT subscriber_id FROM coverage_spans
     WHERE coverage_period_id = ${coveragePeriodId} AND voided_at IS NULL
       AND (${afterId}::uuid IS NULL OR subscriber_id > ${afterId}::uuid)
     ORDER BY subscriber_id
     LIMIT ${limit}`.execute(db)
  return rows.rows.map((row) => row.subscriber_id)
}

/**
 * The members a full file holds: each subscriber of an enrolled family, and each dependent with
 * coverage in one of `productLines` (null: any) within the plan year. `except` leaves out what the
 * check before sending held back: whole families (by subscriber id) and single dependents.
 */
export async function countEnrolled(
  db: Executor,
  window: LoadWindow,
  productLines: readonly string[] | null,
  except: { families: readonly string[]; dependents: readonly string[] } = { families: [], dependents: [] },
): Promise<{ subscribers: number; dependents: number }> {
  const row = await sql<{ subscribers: string; dependents: string }>`
    WITH covered AS (
      SELECT DISTINCT s.subscriber_id, s.member_id FROM coverage_spans s JOIN plans p ON p.id = s.plan_id
       WHERE s.coverage_period_id = ${window.coveragePeriodId} AND s.voided_at IS NULL
         AND (${window.endDate}::date IS NULL OR s.start_date <= ${window.endDate}::date)
         AND (s.end_date IS NULL OR s.end_date >= ${window.startDate}::date)
         AND (${productLines}::text[] IS NULL OR p.product_line = ANY(${productLines}::text[]))
         AND NOT s.subscriber_id = ANY(${[...except.families]}::uuid[]))
    SELECT (SELECT count(DISTINCT subscriber_id) FROM covered)::text AS subscribers,
           (SELECT count(*) FROM covered WHERE member_id <> subscriber_id AND NOT member_id = ANY(${[...except.dependents]}::uuid[]))::text AS dependents`.execute(db)
  return { subscribers: Number(row.rows[0]!.subscribers), dependents: Number(row.rows[0]!.dependents) }
}

/** A coverage period's window. */
export function windowOf(cp: { id: string; coverage_start_date: string; coverage_end_date: string | null }): LoadWindow {
  return { coveragePeriodId: cp.id, startDate: cp.coverage_start_date, endDate: cp.coverage_end_date }
}

/** The date a family's `coverages` describe: today, kept within the plan year. */
export function referenceDate(window: LoadWindow, today: string): string {
  if (today < window.startDate) return window.startDate
  if (window.endDate !== null && today > window.endDate) return window.endDate
  return today
}

type EventRow = { subscriber_id: string; coverage_period_id: string; enrolled_as_new?: boolean } & LoadedEvent

/** Every life event of these families (an array literal of subscriber ids), on any coverage period, oldest first. */
function everyEventOf(idList: string) {
  return sql<EventRow>`
    SELECT subscriber_id, coverage_period_id, id, event, to_char(date, 'YYYY-MM-DD') AS date,
           to_char(eligibility_start_date, 'YYYY-MM-DD') AS eligibility_start_date
      FROM qualifying_life_events
     WHERE subscriber_id = ANY(${idList}::uuid[])
     ORDER BY subscriber_id, created_at, id`
}

/** Adds event rows to their families, oldest first: the last on the coverage period is the family's latest. */
function attachEvents(families: ReadonlyMap<string, LoadedFamily>, rows: readonly EventRow[], coveragePeriodId: string): void {
  for (const row of rows) {
    const family = families.get(row.subscriber_id)
    if (!family) continue
    const event: LoadedEvent = { id: row.id, event: row.event, date: row.date, eligibility_start_date: row.eligibility_start_date }
    family.events.push(event)
    if (row.coverage_period_id === coveragePeriodId) {
      family.latestEvent = event
      if (row.enrolled_as_new || NEW_ENROLLMENT_EVENTS.includes(row.event)) family.enrolledAsNew = true
    }
  }
}

/**
 * A COBRA member's loop says why it continues (INS07) from the family's history: the divorce of a
 * year ago, not the renewal's election, and the day its active coverage on that line ended, in
 * whichever plan year. The few families holding COBRA coverage get every span of their members on
 * any coverage period (spanHistory) and, when only their latest event was loaded, every event.
 */
async function loadCobraHistory(db: Executor, families: ReadonlyMap<string, LoadedFamily>, coveragePeriodId: string, reloadEvents: boolean): Promise<void> {
  const withCobra = [...families.values()].filter((family) => family.spans.some((span) => span.status === 'cobra')).map((family) => family.subscriber.id)
  if (withCobra.length === 0) return
  const idList = arrayLiteral(withCobra)
  const named = withCobra.length <= NAMED_LIST_MAX
  if (reloadEvents) {
    for (const id of withCobra) families.get(id)!.events = []
    attachEvents(families, (await executeNamed(db, everyEventOf(idList), named)).rows, coveragePeriodId)
  }
  const spans = await executeNamed(db, sql<{ subscriber_id: string; member_id: string; line: string; status: string; start_date: string; end_date: string | null }>`
    SELECT s.subscriber_id, s.member_id, s.line, s.status, to_char(s.start_date, 'YYYY-MM-DD') AS start_date,
           to_char(CASE WHEN s.end_date IS NULL OR s.end_date > cp.coverage_end_date THEN cp.coverage_end_date ELSE s.end_date END, 'YYYY-MM-DD') AS end_date
      FROM coverage_spans s JOIN coverage_periods cp ON cp.id = s.coverage_period_id
     WHERE s.subscriber_id = ANY(${idList}::uuid[]) AND s.voided_at IS NULL`, named)
  for (const id of withCobra) families.get(id)!.spanHistory = []
  for (const row of spans.rows) families.get(row.subscriber_id)!.spanHistory!.push({ member_id: row.member_id, line: row.line, status: row.status, start_date: row.start_date, end_date: row.end_date })
}

/**
 * The families of these subscribers, in the order given. `coverages` (what a census compares) only
 * with `withCoverages`: files do not need them; every life event of the family with `allEvents`;
 * a COBRA family's history with `cobraHistory` (loadCobraHistory: what a file's COBRA loops say);
 * member digests (what files compare) unless `withDigests` is false.
 */
export async function loadFamilies(
  db: Executor,
  window: LoadWindow,
  subscriberIds: readonly string[],
  options: { today?: string; withCoverages?: boolean; allEvents?: boolean; cobraHistory?: boolean; withDigests?: boolean; plans?: ReadonlyMap<string, LoadedPlan> } = {},
): Promise<LoadedFamily[]> {
  if (subscriberIds.length === 0) return []
  const ids = [...subscriberIds]
  const idList = arrayLiteral(ids)
  // A page or a batch runs as a named statement; a longer list is planned for its size (executeNamed).
  const named = ids.length <= NAMED_LIST_MAX
  const coveragePeriodId = window.coveragePeriodId
  // The plan's names come from the period's plans, read once, not with each of 200,000 spans.
  const plans = options.plans ?? (await plansOfPeriod(db, coveragePeriodId))
  // The four queries go together: on the build's one connection they then run back to back, not
  // each behind whatever the file writes in between (file-builder.ts reads ahead while it writes).
  const membersQuery = executeNamed(db, sql<LoadedMember>`
    SELECT m.id, m.subscriber_id, m.kind, m.external_identifier, m.carrier_member_id, m.first_name, m.middle_name, m.last_name,
           to_char(m.birth_date, 'YYYY-MM-DD') AS birth_date, m.gender, m.ssn_ciphertext, m.ssn_key_id, m.ssn_hash, m.ssn_last_four,
           m.marital_status, m.tobacco_use, m.handicapped, m.subscriber_relationship,
           -- Addresses and employment are the subscriber's in a file and a census: not read for dependents.
           CASE WHEN m.kind = 'subscriber' THEN m.residential_address END AS residential_address,
           CASE WHEN m.kind = 'subscriber' THEN m.mailing_address END AS mailing_address,
           m.emails, m.phone_numbers, CASE WHEN m.kind = 'subscriber' THEN m.employment_details END AS employment_details,
           CASE WHEN ec.id IS NULL THEN NULL ELSE json_build_object(
             'type', ec.type, 'code', coalesce(ec.carrier_identifier, ec.external_identifier), 'description', ec.description) END AS classification,
           -- What a member loop says about the person, digested here (cheaper than in this process):
           -- its own data (the SSN as its keyed hash), and for every member the subscriber's
           -- identifier it carries in REF*0F; for the subscriber its addresses, employment and class.
           -- The carrier's own member id (REF*23) is the carrier's to know: left out.
           CASE WHEN ${sql.lit(options.withDigests !== false)} THEN md5(json_build_array(
             m.first_name, m.middle_name, m.last_name, m.birth_date, m.gender, m.ssn_hash, m.marital_status, m.tobacco_use, m.handicapped,
             m.subscriber_relationship, m.phone_numbers -> 0 -> 'contact', m.emails -> 0 -> 'contact', coalesce(sub.external_identifier, m.external_identifier),
             CASE WHEN m.kind = 'subscriber' THEN json_build_array(m.residential_address, m.mailing_address, m.employment_details, ec.type,
               coalesce(ec.carrier_identifier, ec.external_identifier)) END)::text) END AS digest
      FROM members m
      LEFT JOIN members sub ON sub.id = m.subscriber_id
      LEFT JOIN employment_classifications ec ON ec.id = m.employment_classification_id
     WHERE m.id = ANY(${idList}::uuid[]) OR m.subscriber_id = ANY(${idList}::uuid[])
     ORDER BY m.subscriber_id NULLS FIRST, m.created_at, m.id`, named)
  const spansQuery = executeNamed(db, sql<Omit<LoadedSpan, 'pcp' | 'volume' | keyof LoadedPlan> & { plan_id: string; volume: string | null }>`
    SELECT s.member_id, s.line, s.plan_id, to_char(s.start_date, 'YYYY-MM-DD') AS start_date, to_char(s.end_date, 'YYYY-MM-DD') AS end_date,
           s.status, s.volume, s.coverage_level
      FROM coverage_spans s
     WHERE s.subscriber_id = ANY(${idList}::uuid[]) AND s.coverage_period_id = ${coveragePeriodId} AND s.voided_at IS NULL
     ORDER BY s.member_id, s.line, s.start_date`, named)
  const pcpsQuery = executeNamed(db, sql<{ member_id: string; plan_id: string; npi: string; first_name: string | null; last_name: string | null; organization_name: string | null }>`
    SELECT DISTINCT ON (member_id, plan_id) member_id, plan_id, npi, first_name, last_name, organization_name
      FROM provider_selections
     WHERE member_id IN (SELECT id FROM members WHERE id = ANY(${idList}::uuid[]) OR subscriber_id = ANY(${idList}::uuid[]))
     ORDER BY member_id, plan_id, effective_date DESC, created_at DESC`, named)
  // Every event of the family (a change file names its loops after them), or for a full file only
  // the latest on the coverage period (its eligibility date), with whether any of the family's
  // events on the period enrolled it from scratch (enrolledAsNew).
  const eventsQuery = executeNamed(db, options.allEvents
    ? everyEventOf(idList)
    : sql<EventRow>`
        SELECT DISTINCT ON (subscriber_id) subscriber_id, coverage_period_id, id, event, to_char(date, 'YYYY-MM-DD') AS date,
               to_char(eligibility_start_date, 'YYYY-MM-DD') AS eligibility_start_date,
               bool_or(event = ANY(${arrayLiteral(NEW_ENROLLMENT_EVENTS)}::text[])) OVER (PARTITION BY subscriber_id) AS enrolled_as_new
          FROM qualifying_life_events
         WHERE subscriber_id = ANY(${idList}::uuid[]) AND coverage_period_id = ${coveragePeriodId}
         ORDER BY subscriber_id, created_at DESC, id DESC`,
    named,
  )
  type CoverageEventRow = { subscriber_id: string; member_id: string; qualifying_life_event_id: string; replaced: boolean }
  const coverageEventsQuery = options.allEvents
    ? executeNamed(db, sql<CoverageEventRow>`
        SELECT DISTINCT subscriber_id, member_id, qualifying_life_event_id, false AS replaced
          FROM coverage_spans
         WHERE subscriber_id = ANY(${idList}::uuid[]) AND coverage_period_id = ${coveragePeriodId} AND status <> 'cobra'
        UNION
        SELECT DISTINCT subscriber_id, member_id, voided_by_event_id, true
          FROM coverage_spans
         WHERE subscriber_id = ANY(${idList}::uuid[]) AND coverage_period_id = ${coveragePeriodId} AND status <> 'cobra' AND voided_by_event_id IS NOT NULL`, named)
    : Promise.resolve({ rows: [] as CoverageEventRow[] })
  const [members, spans, pcps, events, coverageEvents] = await Promise.all([membersQuery, spansQuery, pcpsQuery, eventsQuery, coverageEventsQuery])

  const pcpOf = new Map(pcps.rows.map((row) => [`${row.member_id}:${row.plan_id}`, row]))
  const families = new Map<string, LoadedFamily>()
  for (const member of members.rows) {
    if (member.kind === 'subscriber') families.set(member.id, { subscriber: member, dependents: [], spans: [], coverages: [], events: [], latestEvent: null, enrolledAsNew: false, coverageEvents: [] })
  }
  for (const member of members.rows) {
    if (member.kind === 'dependent') families.get(member.subscriber_id!)?.dependents.push(member)
  }
  const subscriberOf = new Map(members.rows.map((member) => [member.id, member.subscriber_id ?? member.id]))
  for (const row of spans.rows) {
    const pcp = pcpOf.get(`${row.member_id}:${row.plan_id}`)
    const plan = plans.get(row.plan_id)!
    // Field by field, not `{ ...row, ...plan }`: see carrier-view.ts on spreads in hot paths.
    families.get(subscriberOf.get(row.member_id)!)?.spans.push({
      member_id: row.member_id,
      line: row.line,
      plan_id: row.plan_id,
      plan_external_identifier: plan.plan_external_identifier,
      plan_description: plan.plan_description,
      product_line: plan.product_line,
      product_type: plan.product_type,
      start_date: row.start_date,
      end_date: row.end_date,
      status: row.status,
      volume: row.volume === null ? null : Number(row.volume),
      coverage_level: row.coverage_level,
      pcp: pcp ? { npi: pcp.npi, first_name: pcp.first_name, last_name: pcp.last_name, organization_name: pcp.organization_name } : null,
    })
  }
  attachEvents(families, events.rows, coveragePeriodId)
  if (options.cobraHistory) await loadCobraHistory(db, families, coveragePeriodId, !options.allEvents)
  for (const row of coverageEvents.rows) families.get(row.subscriber_id)?.coverageEvents.push({ member_id: row.member_id, qualifying_life_event_id: row.qualifying_life_event_id, replaced: row.replaced })
  if (options.withCoverages) {
    const onDate = referenceDate(window, options.today ?? todayUtc())
    for (const family of families.values()) family.coverages = coveragesOn(family, window, onDate)
  }
  return ids.map((id) => families.get(id)).filter((family): family is LoadedFamily => family !== undefined)
}

/** The family's spans of one member as carrier-view spans. */
export function spansOf(family: LoadedFamily, memberId: string): (SpanLike & { span: LoadedSpan })[] {
  return family.spans
    .filter((span) => span.member_id === memberId)
    .map((span) => ({
      span,
      line: span.line,
      planId: span.plan_id,
      status: span.status,
      startDate: span.start_date,
      endDate: span.end_date,
      volume: span.volume,
      coverageLevel: span.coverage_level,
    }))
}

/**
 * Each member's coverages in force on `date`, with their plan and PCP, as a census would show them:
 * with their own end dates (a coverage ending on the plan year's last day says so).
 */
function coveragesOn(family: LoadedFamily, window: LoadWindow, date: string): LoadedCoverage[] {
  const coverages: LoadedCoverage[] = []
  const openEnded = { startDate: window.startDate, endDate: null }
  for (const member of [family.subscriber, ...family.dependents]) {
    const spans = spansOf(family, member.id)
    for (const record of carrierRecords(spans, openEnded, member.kind === 'subscriber')) {
      if (!inForceOn(record, date)) continue
      const plan = spans.find((s) => s.planId === record.planId)!.span
      coverages.push({
        member_id: member.id,
        plan_id: plan.plan_id,
        plan_external_identifier: plan.plan_external_identifier,
        plan_description: plan.plan_description,
        product_line: plan.product_line,
        product_type: plan.product_type,
        start_date: record.startDate,
        end_date: record.endDate,
        status: record.status,
        volume: termOn(record, date).volume,
        pcp: plan.pcp,
      })
    }
  }
  return coverages
}

const ALL_IDS_PAGE = 10_000
const ALL_FAMILIES_PAGE = 1000

/** Every enrolled subscriber of the coverage period, in id order, read `pageSize` at a time. */
export async function* enrolledSubscriberIds(db: Executor, coveragePeriodId: string, pageSize = ALL_IDS_PAGE): AsyncGenerator<string> {
  for (let after: string | null = null; ; ) {
    const page = await enrolledSubscriberPage(db, coveragePeriodId, after, pageSize)
    yield* page
    if (page.length < pageSize) return
    after = page[page.length - 1]!
  }
}

/**
 * Every enrolled family of the coverage period at once. The census no longer reads them so (it
 * streams, src/modules/census/census-comparison.ts); its tests do, to compare the streaming census
 * with the in-memory reconciliation on the same data. Two pages at a time on two connections: the
 * database reads one while this process parses the other (on the embedded database they take turns).
 */
export async function loadAllFamilies(db: Executor, window: LoadWindow): Promise<LoadedFamily[]> {
  const ids: string[] = []
  for await (const id of enrolledSubscriberIds(db, window.coveragePeriodId)) ids.push(id)
  const pages: string[][] = []
  for (let start = 0; start < ids.length; start += ALL_FAMILIES_PAGE) pages.push(ids.slice(start, start + ALL_FAMILIES_PAGE))
  const loaded: LoadedFamily[][] = new Array(pages.length)
  let nextPage = 0
  const loadNext = async (executor: Executor): Promise<void> => {
    while (nextPage < pages.length) {
      const index = nextPage++
      loaded[index] = await loadFamilies(executor, window, pages[index]!, { withCoverages: true, withDigests: false })
    }
  }
  // Each loader keeps to one connection: a page's four queries queue on it instead of taking four
  // of the pool's connections from the requests served meanwhile.
  const onOneConnection = (work: (executor: Executor) => Promise<void>) => (db.isTransaction ? work(db) : db.connection().execute(work))
  await Promise.all([onOneConnection(loadNext), onOneConnection(loadNext)])
  return loaded.flat()
}

/** The coverage period's plans as the 834 names them, by id. */
export async function plansOfPeriod(db: Executor, coveragePeriodId: string): Promise<Map<string, LoadedPlan>> {
  const rows = await sql<LoadedPlan>`
    SELECT id AS plan_id, external_identifier AS plan_external_identifier, description AS plan_description, product_line, product_type
      FROM plans WHERE coverage_period_id = ${coveragePeriodId}`.execute(db)
  return new Map(rows.rows.map((plan) => [plan.plan_id, plan]))
}
