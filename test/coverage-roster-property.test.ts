import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { Edi834Roster, linesHeldTwice, type RosterCoverageInForce } from '../src/modules/edi-834/edi-834.roster.js'
import { settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/*
 * What the carrier holds is what the platform says (issue: coverage over time). For random valid
 * sequences of life events, the roster a carrier builds from the full file and every change file
 * equals the platform's coverages on every date of the plan year, and no full file ever holds two
 * plans of one line for a member.
 *
 * Each run installs a group of its own with aetna (an edi carrier that does not act on its own:
 * the test moves the work order), so the only files are the ones the run causes. A failure prints
 * fast-check's seed and path: pass them as `{ seed, path }` to fc.assert to replay it.
 */

let bed: CarrierTestBed
let t: TestApp
let workers: Workers
let operator: Credential
let partner: Credential

beforeAll(async () => {
  bed = await startCarrierTestBed()
  ;({ t, workers } = bed)
  operator = await t.newOperator()
  partner = await t.newPartner()
})
afterAll(async () => bed?.close())

// ---- Dates ----

const DAY_MS = 86_400_000
const plusDays = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
const TODAY = new Date().toISOString().slice(0, 10)
/** The plan year is next year: every date the events use lies within the carrier's retroactive limit. */
const YEAR = Number(TODAY.slice(0, 4)) + 1
const YEAR_START = `${YEAR}-01-01`
const YEAR_END = `${YEAR}-12-31`
const monthStart = (m: number) => `${YEAR}-${String(m).padStart(2, '0')}-01`
const monthEnd = (m: number) => plusDays(m === 12 ? `${YEAR + 1}-01-01` : monthStart(m + 1), -1)

// ---- What a run does (abstract: members are indices into the family as it is when the step runs) ----

type Line = 'medical' | 'dental'
/** `open`, `cancel` (end = start - 1), or the end of the month `months` after the start month. */
type End = { kind: 'open' } | { kind: 'cancel' } | { kind: 'after'; months: number }
interface CoverageChoice {
  member: number
  start: number
  end: End
}
interface LineChoice {
  plan: number
  coverages: CoverageChoice[]
}
type Step =
  | { type: 'elect'; event: string; medical: LineChoice | null; dental: LineChoice | null; settle: boolean }
  | { type: 'switch'; event: string; line: Line; plan: number; start: number; settle: boolean }
  | { type: 'waive'; line: Line; eligibility: number; settle: boolean }
  | { type: 'birth'; plan: number; dental: boolean; start: number; bornDaysAgo: number; reportedAfter: number; siblings: boolean; settle: boolean }
  | { type: 'divorce'; lastMonth: number; settle: boolean }
interface Ending {
  lastMonth: number
  cobra: boolean
}
interface Scenario {
  installation: { medical: LineChoice; dental: LineChoice | null; later: LineChoice | null }
  steps: Step[]
  ending: Ending | null
}

const endArb: fc.Arbitrary<End> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<End>({ kind: 'open' }) },
  { weight: 2, arbitrary: fc.constant<End>({ kind: 'cancel' }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 11 }).map((months): End => ({ kind: 'after', months })) },
)
const month = fc.integer({ min: 1, max: 12 })
const coverageArb = fc.record({ member: fc.nat({ max: 5 }), start: month, end: endArb })
const lineArb = (plans: number) => fc.record({ plan: fc.nat({ max: plans - 1 }), coverages: fc.array(coverageArb, { minLength: 1, maxLength: 4 }) })
const eventName = fc.constantFrom('open_enrollment', 'marriage', 'loss_of_coverage', 'newly_eligible')

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ type: fc.constant('elect' as const), event: eventName, medical: fc.option(lineArb(2), { nil: null }), dental: fc.option(lineArb(1), { nil: null }), settle: fc.boolean() })
      .filter((s) => s.medical !== null || s.dental !== null),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('switch' as const), event: eventName, line: fc.constantFrom<Line>('medical', 'dental'), plan: fc.nat({ max: 1 }), start: month, settle: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('waive' as const), line: fc.constantFrom<Line>('medical', 'dental'), eligibility: month, settle: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('birth' as const),
      plan: fc.nat({ max: 1 }),
      dental: fc.boolean(),
      start: month,
      bornDaysAgo: fc.integer({ min: 0, max: 25 }),
      reportedAfter: fc.integer({ min: 0, max: 5 }),
      siblings: fc.boolean(),
      settle: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('divorce' as const), lastMonth: fc.integer({ min: 1, max: 12 }), settle: fc.boolean() }) },
)

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  installation: fc.record({
    medical: fc.record({
      plan: fc.nat({ max: 1 }),
      coverages: fc.array(fc.record({ member: fc.nat({ max: 2 }), start: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: month }), end: endArb }), { minLength: 1, maxLength: 3 }),
    }),
    dental: fc.option(lineArb(1), { nil: null }),
    // A second installation event: a plan change during the year the full file cannot say.
    later: fc.option(lineArb(2), { freq: 3, nil: null }),
  }),
  steps: fc.array(stepArb, { minLength: 3, maxLength: 8 }),
  ending: fc.option(fc.record({ lastMonth: fc.integer({ min: 1, max: 11 }), cobra: fc.boolean() }), { freq: 3, nil: null }),
})

// ---- The API side ----

const ok = (res: { statusCode: number; body: string }, status = 201) => {
  expect(res.statusCode, res.body).toBe(status)
  return JSON.parse(res.body)
}

interface Run {
  groupId: string
  coveragePeriodId: string
  workOrderId: string
  /** Medical plans, then dental, as { id, code }. */
  plans: Record<Line, { id: string; code: string }[]>
  subscriberId: string
  /** Subscriber, spouse, child, then newborns in birth order. */
  members: string[]
  tag: string
}

interface ApiCoverage {
  member_id: string
  line: string
  plan_id: string
  start_date: string
  end_date: string | null
  status: 'employer_sponsored' | 'cobra'
  coverage_level: string
}

async function createGroup(): Promise<Run> {
  const tag = Math.random().toString(36).slice(2, 8)
  const installment = ok(
    await call(t.app, partner, 'POST', '/group_installments', {
      group: {
        external_identifier: `roster-${tag}`,
        insurance_market: 'small_group',
        employer: { organization_name: 'Roster Widgets Inc.', fein: '123456789', employer_type: 'corporation', census: { employees: 5, full_time_equivalent_employees: 5, eligible_employees: 5 } },
        group_setup: { carrier_name: 'aetna' },
        primary_location: {
          external_identifier: 'hq',
          type: 'physical',
          employer_address: { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
        },
        producers_of_record: [
          { first_name: 'Pat', last_name: 'Broker', national_producer_number: '1234567', email: 'pat@example.com', signature_date: plusDays(TODAY, -30), commission_split: 100, writing_producer: true, agency: null },
        ],
      },
    }),
  ).group_installment
  const groupId = installment.group.id as string
  const cp = ok(
    await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
      coverage_period: { external_identifier: `plan-year-${YEAR}`, coverage_start_date: YEAR_START, coverage_end_date: YEAR_END, employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: plusDays(TODAY, -30) } },
    }),
  ).coverage_period
  const plan = async (body: Record<string, unknown>) => ok(await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/plans`, { plan: { policy_premium_method: 'list_bill', ...body } })).plan
  const gold = await plan({ external_identifier: `gold-${tag}`, description: 'Gold PPO', product_line: 'medical', product_type: 'preferred_provider_organization' })
  const silver = await plan({ external_identifier: `silver-${tag}`, description: 'Silver EPO', product_line: 'medical', product_type: 'exclusive_provider_organization' })
  const dental = await plan({ external_identifier: `dental-${tag}`, description: 'Dental Basic', product_line: 'dental', premium_level: 'base' })
  const subscriber = ok(
    await call(t.app, partner, 'POST', `/groups/${groupId}/subscribers`, {
      subscriber: {
        external_identifier: 'emp-1',
        location_id: installment.group.locations[0].id,
        first_name: 'Jane',
        last_name: 'Roster',
        birth_date: '1985-06-15',
        gender: 'female',
        social_security_number: '123456789',
        marital_status: 'married',
        residential_address: { address_line_1: '12 Elm St', city: 'Springfield', state: 'IL', zip: '62704' },
        employment_details: { start_date: '2019-03-01', status: 'full_time' },
        dependents: [
          { external_identifier: 'spouse', first_name: 'John', last_name: 'Roster', birth_date: '1984-02-02', gender: 'male', subscriber_relationship: 'spouse', social_security_number: '123456780' },
          { external_identifier: 'child', first_name: 'Sam', last_name: 'Roster', birth_date: '2015-09-09', gender: 'male', subscriber_relationship: 'child' },
        ],
      },
    }),
  ).subscriber as { id: string; dependents: { id: string }[] }
  return {
    groupId,
    coveragePeriodId: cp.id,
    workOrderId: '',
    plans: { medical: [gold, silver].map((p) => ({ id: p.id, code: p.external_identifier })), dental: [{ id: dental.id, code: dental.external_identifier }] },
    subscriberId: subscriber.id,
    members: [subscriber.id, ...subscriber.dependents.map((d) => d.id)],
    tag,
  }
}

const dateOfEnd = (start: number, end: End): string | undefined =>
  end.kind === 'open' ? undefined : end.kind === 'cancel' ? plusDays(monthStart(start), -1) : monthEnd(Math.min(12, start + end.months))

/** An election body from abstract choices: members by index into the family, each listed once. */
function election(run: Run, line: Line, choice: LineChoice, members: readonly string[] = run.members) {
  const seen = new Set<string>()
  const coverages = choice.coverages.flatMap((c) => {
    const memberId = members[c.member % members.length]!
    if (seen.has(memberId)) return []
    seen.add(memberId)
    const end = dateOfEnd(c.start, c.end)
    return [{ member_id: memberId, start_date: monthStart(c.start), ...(end ? { end_date: end } : {}), status: 'employer_sponsored' }]
  })
  return { type: 'election', plan_id: run.plans[line][choice.plan % run.plans[line].length]!.id, coverages }
}

const firstStart = (elections: Record<string, { coverages?: { start_date: string }[] }>) =>
  Object.values(elections)
    .flatMap((e) => e.coverages ?? [])
    .map((c) => c.start_date)
    .sort()[0] ?? YEAR_START

async function lifeEvent(run: Run, event: string, planElections: Record<string, unknown>, o: { date?: string; eligibility?: string } = {}) {
  const start = firstStart(planElections as Record<string, { coverages?: { start_date: string }[] }>)
  ok(
    await call(t.app, partner, 'POST', `/subscribers/${run.subscriberId}/qualifying_life_events`, {
      qualifying_life_event: { coverage_period_id: run.coveragePeriodId, event, date: o.date ?? start, eligibility_start_date: o.eligibility ?? start, plan_elections: planElections },
    }),
  )
}

/** The member's coverage history as the platform says it. */
async function history(memberId: string): Promise<ApiCoverage[]> {
  return ok(await call(t.app, partner, 'GET', `/members/${memberId}/coverages?as_of=all`), 200).coverages
}

/** Coverages as the carrier names them: neighbouring spans of one plan and status are one coverage. */
function records(spans: readonly ApiCoverage[]): { line: string; plan_id: string; status: string; start_date: string; end_date: string | null }[] {
  const out: { line: string; plan_id: string; status: string; start_date: string; end_date: string | null }[] = []
  for (const s of [...spans].sort((a, b) => (a.line === b.line ? a.start_date.localeCompare(b.start_date) : a.line.localeCompare(b.line)))) {
    const last = out.at(-1)
    if (last && last.line === s.line && last.plan_id === s.plan_id && last.status === s.status && last.end_date !== null && plusDays(last.end_date, 1) === s.start_date) {
      last.end_date = s.end_date
    } else {
      out.push({ line: s.line, plan_id: s.plan_id, status: s.status, start_date: s.start_date, end_date: s.end_date })
    }
  }
  return out
}

/** Ends every coverage of `members` that runs past `lastDay` on it (cancels those starting later); the plan and start stay. */
async function endCoverages(run: Run, event: string, members: readonly string[], lastDay: string): Promise<void> {
  const elections: Record<string, { type: string; plan_id: string; coverages: Record<string, unknown>[] }[]> = {}
  for (const memberId of members) {
    // Per line, the first coverage running past the last day: an election from its start replaces it and every later one.
    const first = new Map<string, ReturnType<typeof records>[number]>()
    for (const r of records(await history(memberId))) {
      if ((r.end_date === null || r.end_date > lastDay) && !first.has(r.line)) first.set(r.line, r)
    }
    for (const r of first.values()) {
      const end = r.start_date > lastDay ? plusDays(r.start_date, -1) : lastDay
      ;(elections[r.line] ??= []).push({ type: 'election', plan_id: r.plan_id, coverages: [{ member_id: memberId, start_date: r.start_date, end_date: end, status: r.status }] })
    }
  }
  // One event per plan of a line (an election names one plan).
  const byPlan = new Map<string, { line: string; plan_id: string; coverages: Record<string, unknown>[] }>()
  for (const [line, list] of Object.entries(elections)) {
    for (const e of list) {
      const key = `${line}|${e.plan_id}`
      byPlan.set(key, { line, plan_id: e.plan_id, coverages: [...(byPlan.get(key)?.coverages ?? []), ...e.coverages] })
    }
  }
  for (const e of byPlan.values()) {
    await lifeEvent(run, event, { [e.line]: { type: 'election', plan_id: e.plan_id, coverages: e.coverages } }, { date: lastDay, eligibility: plusDays(lastDay, 1) })
  }
}

async function install(run: Run, scenario: Scenario): Promise<void> {
  const family = run.members
  const { medical, dental, later } = scenario.installation
  const first: Record<string, unknown> = { medical: election(run, 'medical', medical, family) }
  if (dental) first.dental = election(run, 'dental', dental, family)
  await lifeEvent(run, 'initial_enrollment', first)
  if (later) await lifeEvent(run, 'newly_eligible', { medical: election(run, 'medical', later, family) })
  run.workOrderId = ok(await call(t.app, partner, 'POST', `/coverage_periods/${run.coveragePeriodId}/complete_setup`)).work_order.id
  for (const status of ['in_progress', 'submitted']) ok(await call(t.app, operator, 'POST', `/work_orders/${run.workOrderId}/transitions`, { status, message: status }), 200)
  await settle(workers)
  ok(await call(t.app, operator, 'POST', `/work_orders/${run.workOrderId}/transitions`, { status: 'completed', message: 'Installed.', carrier_group_number: `AET-${run.tag}` }), 200)
}

async function runStep(run: Run, step: Step): Promise<void> {
  switch (step.type) {
    case 'elect': {
      const elections: Record<string, unknown> = {}
      if (step.medical) elections.medical = election(run, 'medical', step.medical)
      if (step.dental) elections.dental = election(run, 'dental', step.dental)
      await lifeEvent(run, step.event, elections)
      break
    }
    case 'switch': {
      const coverages = run.members.map((_, member) => ({ member, start: step.start, end: { kind: 'open' } as End }))
      await lifeEvent(run, step.event, { [step.line]: election(run, step.line, { plan: step.plan, coverages }) })
      break
    }
    case 'waive':
      await lifeEvent(run, 'loss_of_coverage', { [step.line]: { type: 'waiver', waiver_signature_date: TODAY, waiver_reason: 'Covered elsewhere' } }, { date: monthStart(step.eligibility), eligibility: monthStart(step.eligibility) })
      break
    case 'birth': {
      const born = plusDays(TODAY, -step.bornDaysAgo)
      const child = ok(
        await call(t.app, partner, 'POST', `/subscribers/${run.subscriberId}/dependents`, {
          dependent: { external_identifier: `baby-${run.members.length}`, first_name: 'Ivy', last_name: 'Roster', birth_date: born, gender: 'female', subscriber_relationship: 'child' },
        }),
      ).dependent.id as string
      run.members.push(child)
      const start = monthStart(step.start)
      const covered = step.siblings ? [run.subscriberId, child] : [child]
      const coverages = covered.map((member_id) => ({ member_id, start_date: start, status: 'employer_sponsored' }))
      const elections: Record<string, unknown> = { medical: { type: 'election', plan_id: run.plans.medical[step.plan]!.id, coverages } }
      if (step.dental) elections.dental = { type: 'election', plan_id: run.plans.dental[0]!.id, coverages }
      await lifeEvent(run, 'birth', elections, { date: plusDays(born, step.reportedAfter), eligibility: start })
      break
    }
    case 'divorce':
      await endCoverages(run, 'divorce', [run.members[1]!], monthEnd(step.lastMonth))
      break
  }
}

/** Termination of employment at the end of a month, then (maybe) COBRA for those covered that day, on the same plans. */
async function runEnding(run: Run, ending: Ending): Promise<void> {
  const lastDay = monthEnd(ending.lastMonth)
  const covered = new Map<string, { line: string; plan_id: string; member_id: string }[]>()
  for (const memberId of run.members) {
    for (const r of records(await history(memberId))) {
      if (r.start_date <= lastDay && (r.end_date === null || r.end_date >= lastDay) && r.status === 'employer_sponsored') {
        covered.set(`${r.line}|${r.plan_id}`, [...(covered.get(`${r.line}|${r.plan_id}`) ?? []), { line: r.line, plan_id: r.plan_id, member_id: memberId }])
      }
    }
  }
  await endCoverages(run, 'termination_of_employment', run.members, lastDay)
  if (!ending.cobra) return
  const cobraStart = plusDays(lastDay, 1)
  const elections: Record<string, unknown> = {}
  for (const list of covered.values()) {
    const { line, plan_id } = list[0]!
    // One plan per line per event: a second plan of the line (members on different plans) goes in an event of its own.
    if (elections[line]) {
      await lifeEvent(run, 'cobra', { [line]: { type: 'election', plan_id, coverages: list.map((c) => ({ member_id: c.member_id, start_date: cobraStart, status: 'cobra' })) } })
      continue
    }
    elections[line] = { type: 'election', plan_id, coverages: list.map((c) => ({ member_id: c.member_id, start_date: cobraStart, status: 'cobra' })) }
  }
  if (Object.keys(elections).length > 0) await lifeEvent(run, 'cobra', elections)
}

// ---- The carrier side ----

async function deliveredFiles(run: Run): Promise<{ kind: string; content: string }[]> {
  const list = ok(await call(t.app, partner, 'GET', `/coverage_periods/${run.coveragePeriodId}/file_deliveries?per_page=100`), 200).file_deliveries as {
    id: string
    kind: string
    status: string
    last_error: string | null
  }[]
  const files: { kind: string; content: string }[] = []
  for (const d of [...list].reverse()) {
    if (d.status !== 'sent' && d.status !== 'skipped') {
      // Why it is stuck, for the failure message: a build or send retrying keeps its error on its job.
      const jobs = await t.db.selectFrom('jobs').select(['name', 'last_error']).where(sql<boolean>`payload->>'file_delivery_id' = ${d.id}`).execute()
      expect.fail(`delivery ${d.kind} ${d.status}: ${d.last_error ?? jobs.map((j) => `${j.name}: ${j.last_error}`).join('; ')}`)
    }
    if (d.status === 'skipped') continue
    const res = await call(t.app, operator, 'GET', `/file_deliveries/${d.id}/content`)
    expect(res.statusCode, res.body).toBe(200)
    files.push({ kind: d.kind, content: res.body })
  }
  return files
}

/** The dates to compare: every first and last of a month, and every date a coverage starts, ends or resumes. */
function checkDates(histories: readonly ApiCoverage[]): string[] {
  const dates = new Set<string>()
  for (let m = 1; m <= 12; m++) dates.add(monthStart(m)).add(monthEnd(m))
  for (const s of histories) {
    dates.add(s.start_date)
    if (s.end_date !== null) dates.add(s.end_date).add(plusDays(s.end_date, 1))
  }
  return [...dates].filter((d) => d >= YEAR_START && d <= YEAR_END).sort()
}

interface Held {
  planCode: string
  startDate: string
  endDate: string | null
  benefitStatus: 'active' | 'cobra'
  coverageLevel?: string
}

async function compare(run: Run, roster: Edi834Roster): Promise<void> {
  const codeOf = new Map([...run.plans.medical, ...run.plans.dental].map((p) => [p.id, p.code]))
  const histories = new Map<string, ApiCoverage[]>()
  for (const memberId of run.members) histories.set(memberId, await history(memberId))
  for (const spans of histories.values()) for (const s of spans) expect(s.start_date >= YEAR_START, JSON.stringify(s)).toBe(true)
  const mismatches: string[] = []
  for (const date of checkDates([...histories.values()].flat())) {
    const held = roster.onDate(date)
    for (const memberId of run.members) {
      const subscriber = memberId === run.subscriberId
      const asOf = ok(await call(t.app, partner, 'GET', `/members/${memberId}/coverages?as_of=${date}`), 200).coverages as ApiCoverage[]
      const recs = records(histories.get(memberId)!)
      const want: Held[] = asOf
        .map((s) => {
          const r = recs.find((x) => x.line === s.line && x.plan_id === s.plan_id && x.status === s.status && x.start_date <= s.start_date && (x.end_date === null || (s.end_date !== null && x.end_date >= s.end_date)))
          if (!r) expect.fail(`as_of=${date} answers a coverage the whole history does not hold: ${JSON.stringify(s)}`)
          return {
            planCode: codeOf.get(s.plan_id)!,
            startDate: r.start_date,
            // The plan year ends what reaches its last day: open-ended for the carrier.
            endDate: r.end_date === null || r.end_date >= YEAR_END ? null : r.end_date,
            benefitStatus: s.status === 'cobra' ? ('cobra' as const) : ('active' as const),
            ...(subscriber ? { coverageLevel: s.coverage_level } : {}),
          }
        })
        .sort((a, b) => a.planCode.localeCompare(b.planCode))
      const got: Held[] = (held.find((m) => m.memberId === memberId)?.coverages ?? [])
        .map((c: RosterCoverageInForce) => ({
          planCode: c.planCode,
          startDate: c.startDate,
          endDate: c.endDate,
          benefitStatus: c.benefitStatus,
          ...(subscriber ? { coverageLevel: c.coverageLevel } : {}),
        }))
        .sort((a, b) => a.planCode.localeCompare(b.planCode))
      if (JSON.stringify(want) !== JSON.stringify(got)) {
        mismatches.push(`${date} member #${run.members.indexOf(memberId)}: platform ${JSON.stringify(want)} carrier ${JSON.stringify(got)}`)
      }
    }
    // The carrier holds no one outside the family.
    expect(held.map((m) => m.memberId).filter((id) => !run.members.includes(id))).toEqual([])
  }
  expect(mismatches.slice(0, 10), `${mismatches.length} mismatches`).toEqual([])
}

/** One scenario end to end: install, run the steps, settle, and compare the carrier's roster with the platform. */
async function check(scenario: Scenario): Promise<void> {
  const run = await createGroup()
  await install(run, scenario)
  for (const step of scenario.steps) {
    await runStep(run, step)
    if (step.settle) await settle(workers)
  }
  if (scenario.ending) await runEnding(run, scenario.ending)
  await settle(workers)

  const files = await deliveredFiles(run)
  // One full file, first (none when the installation left nobody covered: it is skipped).
  expect(files.slice(1).filter((f) => f.kind === 'full')).toEqual([])
  if (files[0]?.kind === 'full') {
    for (const date of checkDates([])) {
      expect(linesHeldTwice(files[0].content, date).filter((held) => held.line !== 'AG'), `full file on ${date}`).toEqual([])
    }
  }
  const roster = new Edi834Roster()
  files.forEach((file, index) => {
    try {
      roster.apply(file.content)
    } catch (error) {
      throw new Error(`file ${index} (${file.kind}) does not apply: ${(error as Error).message}\n${file.content.split('~').join('~\n')}`)
    }
  })
  await compare(run, roster)
}

const open: End = { kind: 'open' }
const family = (plan: number, start = 1): LineChoice => ({ plan, coverages: [0, 1, 2].map((member) => ({ member, start, end: open })) })

describe('the carrier roster against the coverage timeline', () => {
  it('when a plan is changed from the day the old one started, then the carrier is told to cancel the old plan and add the new one', async () => {
    await check({
      installation: { medical: family(0), dental: null, later: null },
      steps: [{ type: 'switch', event: 'open_enrollment', line: 'medical', plan: 1, start: 1, settle: true }],
      ending: null,
    })
  })

  it('when a coverage the carrier holds is cancelled before it starts, then the carrier holds nothing of it', async () => {
    await check({
      installation: { medical: family(0), dental: { plan: 0, coverages: [{ member: 0, start: 3, end: open }] }, later: null },
      steps: [{ type: 'elect', event: 'loss_of_coverage', medical: null, dental: { plan: 0, coverages: [{ member: 0, start: 3, end: { kind: 'cancel' } }] }, settle: true }],
      ending: null,
    })
  })

  it('when a spouse joins and leaves and the plan changes mid-year, then the carrier follows on every date', async () => {
    await check({
      installation: { medical: { plan: 0, coverages: [{ member: 0, start: 1, end: open }, { member: 2, start: 1, end: open }] }, dental: family(0), later: { plan: 1, coverages: [{ member: 0, start: 7, end: open }] } },
      steps: [
        { type: 'elect', event: 'marriage', medical: { plan: 0, coverages: [{ member: 1, start: 3, end: open }] }, dental: null, settle: true },
        { type: 'divorce', lastMonth: 9, settle: false },
        { type: 'waive', line: 'dental', eligibility: 11, settle: true },
      ],
      ending: { lastMonth: 11, cobra: true },
    })
  })

  it('when a level the carrier holds from a later date is undone by an earlier change, then the carrier holds the true level on every date', async () => {
    const spouse = (start: number, end: End): Step => ({ type: 'elect', event: 'marriage', medical: { plan: 0, coverages: [{ member: 1, start, end }] }, dental: null, settle: true })
    await check({
      // The subscriber and the child; the spouse joins from March, then from January after all, then for January only.
      installation: { medical: { plan: 0, coverages: [{ member: 0, start: 1, end: open }, { member: 2, start: 1, end: open }] }, dental: null, later: null },
      steps: [spouse(3, open), spouse(1, open), spouse(1, { kind: 'after', months: 0 })],
      ending: null,
    })
  })

  it('when an active coverage and a COBRA one of a member travel in one change file, then the carrier holds each with its own benefit status', async () => {
    await check({
      installation: { medical: { plan: 0, coverages: [{ member: 0, start: 1, end: open }] }, dental: null, later: null },
      // Dental is added and, before any file goes, employment ends in January with COBRA from February.
      steps: [{ type: 'elect', event: 'open_enrollment', medical: null, dental: { plan: 0, coverages: [{ member: 0, start: 1, end: open }] }, settle: false }],
      ending: { lastMonth: 1, cobra: true },
    })
  })

  it('when random life events are sent, then the roster from the full file and every change file equals the platform on every date, and no full file holds two plans of one line', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, check), { numRuns: 20, endOnFailure: true })
  }, 600_000)
})
