import { sql } from 'kysely'
import { expect } from 'vitest'
import type { Workers } from '../../src/main/workers.js'
import { Edi834Roster } from '../../src/modules/edi-834/edi-834.roster.js'
import type { RELATIONSHIPS } from '../../src/modules/members/members.schema.js'
import { createInstallment, settle } from './carrier-side.js'
import { expectValid834 } from './edi-834-assertions.js'
import { call, type Credential, type TestApp } from './test-app.js'

/**
 * Life-event scenarios against an edi carrier that does not act on its own (aetna): a group is
 * installed through the API with families shaped for the scenario, the operator moves the work
 * order to completed, and `CarrierFiles` applies every file the carrier was sent (full, then
 * changes in order) to an `Edi834Roster`, so a test can compare what the carrier holds with what
 * GET /members/{id}/coverages says is true.
 */

const ok = (res: { statusCode: number; body: string }, status = 201) => {
  expect(res.statusCode, res.body).toBe(status)
  return JSON.parse(res.body)
}

let ssnCounter = 0
/** Valid, distinct SSNs (area 1xx, group 2x, serial non-zero). */
const nextSsn = () => {
  const k = ++ssnCounter
  return `1${String(k % 100).padStart(2, '0')}2${Math.floor(k / 100) % 10}${String(1000 + (k % 9000)).slice(-4)}`
}

/** A dependent's subscriber_relationship, as the API takes it. */
export type Relationship = (typeof RELATIONSHIPS)[number]

export interface DependentSpec {
  label: string
  relationship: Relationship
  birthDate?: string
}

export interface FamilySpec {
  /** Dependents created with the subscriber. Default: a spouse and a child. */
  dependents?: DependentSpec[]
  /** Labels enrolled at installation in the first plan ('subscriber' for the subscriber); default everyone. */
  enrolled?: string[]
  /** Initial enrollment start (default: the period's start). */
  startDate?: string
}

export interface PlanSpec {
  key: string
  description: string
}

export interface GroupSpec {
  carrier?: string
  period?: { start: string; end: string }
  /** Medical PPO plans, so a plan change stays on one HD03 line. Default gold and silver. */
  plans?: PlanSpec[]
  families: FamilySpec[]
  /** Stop before complete_setup (the caller completes the setup; workOrderId is then ''). */
  deferCompletion?: boolean
}

export interface InstalledFamily {
  subscriberId: string
  /** Member ids by label ('subscriber' and each dependent's label). */
  ids: Record<string, string>
  externalIdentifier: string
}

export interface InstalledGroup {
  groupId: string
  locationId: string
  coveragePeriodId: string
  period: { start: string; end: string }
  plans: Record<string, { id: string; description: string; externalIdentifier: string }>
  families: InstalledFamily[]
  workOrderId: string
}

const DEFAULT_DEPENDENTS: DependentSpec[] = [
  { label: 'spouse', relationship: 'spouse', birthDate: '1984-02-02' },
  { label: 'child', relationship: 'child', birthDate: '2015-09-09' },
]

const DEFAULT_PLANS: PlanSpec[] = [
  { key: 'gold', description: 'Gold PPO 500' },
  { key: 'silver', description: 'Silver PPO 1500' },
]

export const subscriberBody = (locationId: string, externalIdentifier: string, lastName: string, overrides: Record<string, unknown> = {}) => ({
  external_identifier: externalIdentifier,
  location_id: locationId,
  first_name: 'Jane',
  last_name: lastName,
  birth_date: '1985-06-15',
  gender: 'female',
  social_security_number: nextSsn(),
  marital_status: 'married',
  residential_address: { address_line_1: '12 Elm St', city: 'Springfield', state: 'IL', zip: '62704' },
  employment_details: { start_date: '2019-03-01', status: 'full_time' },
  ...overrides,
})

export const dependentBody = (spec: DependentSpec, lastName: string) => ({
  external_identifier: `dep-${spec.label}-${Math.random().toString(36).slice(2, 8)}`,
  first_name: spec.relationship === 'child' ? 'Sam' : 'John',
  last_name: lastName,
  birth_date: spec.birthDate ?? (spec.relationship === 'child' ? '2015-09-09' : '1984-02-02'),
  gender: 'male',
  subscriber_relationship: spec.relationship,
  ...(spec.relationship === 'child' ? {} : { social_security_number: nextSsn() }),
})

/**
 * Steps 1 to 7 through the API, then the operator moves the work order to completed: the full
 * file is sent on `submitted`, and the group is installed with carrier group number G-<tag>.
 */
export async function installGroup(t: TestApp, workers: Workers, partner: Credential, operator: Credential, spec: GroupSpec): Promise<InstalledGroup> {
  const tag = Math.random().toString(36).slice(2, 8)
  const carrier = spec.carrier ?? 'aetna'
  const period = spec.period ?? { start: '2027-01-01', end: '2027-12-31' }
  const { groupId, locationId } = await createInstallment(t, partner, carrier, `grp-${tag}`)
  const cp = ok(
    await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
      coverage_period: {
        external_identifier: `plan-year-${period.start.slice(0, 4)}`,
        coverage_start_date: period.start,
        coverage_end_date: period.end,
        employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2025-10-15' },
      },
    }),
  ).coverage_period
  const plans: InstalledGroup['plans'] = {}
  for (const plan of spec.plans ?? DEFAULT_PLANS) {
    const created = ok(
      await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/plans`, {
        plan: { external_identifier: plan.key, description: plan.description, product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
      }),
    ).plan
    plans[plan.key] = { id: created.id, description: plan.description, externalIdentifier: plan.key }
  }
  const firstPlan = Object.values(plans)[0]!
  const families: InstalledFamily[] = []
  for (const [index, family] of spec.families.entries()) {
    const lastName = `Doe${index + 1}`
    const dependents = family.dependents ?? DEFAULT_DEPENDENTS
    const externalIdentifier = `emp-${tag}-${index + 1}`
    const created = ok(
      await call(t.app, partner, 'POST', `/groups/${groupId}/subscribers`, {
        subscriber: { ...subscriberBody(locationId, externalIdentifier, lastName, { marital_status: dependents.some((d) => d.relationship === 'spouse') ? 'married' : 'single' }), dependents: dependents.map((d) => dependentBody(d, lastName)) },
      }),
    ).subscriber as { id: string; dependents: { id: string }[] }
    const ids: Record<string, string> = { subscriber: created.id }
    dependents.forEach((d, i) => (ids[d.label] = created.dependents[i]!.id))
    const enrolled = family.enrolled ?? Object.keys(ids)
    const start = family.startDate ?? period.start
    if (enrolled.length > 0) ok(
      await call(t.app, partner, 'POST', `/subscribers/${created.id}/qualifying_life_events`, {
        qualifying_life_event: {
          coverage_period_id: cp.id,
          event: 'initial_enrollment',
          date: start,
          eligibility_start_date: start,
          plan_elections: {
            medical: { type: 'election', plan_id: firstPlan.id, coverages: enrolled.map((label) => ({ member_id: ids[label]!, start_date: start, status: 'employer_sponsored' })) },
          },
        },
      }),
    )
    families.push({ subscriberId: created.id, ids, externalIdentifier })
  }
  const installed = { groupId, locationId, coveragePeriodId: cp.id as string, period, plans, families, workOrderId: '' }
  if (spec.deferCompletion) return installed
  const workOrder = ok(await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/complete_setup`)).work_order
  await completeWorkOrder(t, workers, operator, workOrder.id, `G-${tag}`)
  return { ...installed, workOrderId: workOrder.id as string }
}

/** An operator moves a work order through in_progress and submitted (the full file goes out) to completed. */
export async function completeWorkOrder(t: TestApp, workers: Workers, operator: Credential, workOrderId: string, carrierGroupNumber: string | null): Promise<void> {
  for (const status of ['in_progress', 'submitted']) {
    ok(await call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status, message: status }), 200)
  }
  await settle(workers)
  // null: the coverage period keeps the number it has (a renewal takes the previous year's).
  const number = carrierGroupNumber === null ? {} : { carrier_group_number: carrierGroupNumber }
  ok(await call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status: 'completed', message: 'Installed.', ...number }), 200)
  await settle(workers)
}

export interface Delivery {
  id: string
  kind: 'full' | 'change'
  status: 'pending' | 'sent' | 'failed' | 'skipped'
  last_error: string | null
}

/** One HD loop (2300) of a member loop: the HD segment, its DTP segments (sorted) and REF*CE plan code. */
export interface CoverageLoop {
  hd: string
  dates: string[]
  planCode: string | null
}

/** One member loop (2000) of an 834: INS, the member DTPs (sorted), DMG, and its HD loops in order. */
export interface MemberLoop {
  memberId: string
  ins: string
  dates: string[]
  dmg: string | null
  coverages: CoverageLoop[]
}

/** The segments of an 834, trimmed. */
export const segmentsOf = (file: string) =>
  file
    .split('~')
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '')

/** The member loops of an 834 in file order. */
export function memberLoops(file: string): MemberLoop[] {
  const loops: MemberLoop[] = []
  let loop: MemberLoop | null = null
  let coverage: CoverageLoop | null = null
  let inProvider = false
  for (const segment of segmentsOf(file)) {
    const id = segment.split('*')[0]
    if (id === 'INS') {
      loop = { memberId: '', ins: segment, dates: [], dmg: null, coverages: [] }
      coverage = null
      loops.push(loop)
      continue
    }
    if (!loop) continue
    if (id === 'SE') break
    if (id === 'HD') {
      coverage = { hd: segment, dates: [], planCode: null }
      inProvider = false
      loop.coverages.push(coverage)
    } else if (id === 'LX' || id === 'LS') {
      inProvider = true
    } else if (id === 'REF' && segment.startsWith('REF*17*') && !coverage) {
      loop.memberId = segment.slice('REF*17*'.length)
    } else if (id === 'DMG' && !coverage) {
      loop.dmg = segment
    } else if (id === 'DTP' && !inProvider) {
      ;(coverage ? coverage.dates : loop.dates).push(segment)
    } else if (id === 'REF' && segment.startsWith('REF*CE*') && coverage) {
      coverage.planCode = segment.slice('REF*CE*'.length)
    }
  }
  for (const l of loops) {
    l.dates.sort()
    for (const c of l.coverages) c.dates.sort()
  }
  return loops
}

/** A loop for comparison: INS, member dates, and each HD with its dates (plan codes left out). */
export const loopShape = (loop: MemberLoop) => ({ ins: loop.ins, dates: loop.dates, coverages: loop.coverages.map((c) => ({ hd: c.hd, dates: c.dates })) })

/** `DTP*<qualifier>*D8*<CCYYMMDD>` for an ISO date. */
export const dtp = (qualifier: string, isoDate: string) => `DTP*${qualifier}*D8*${isoDate.replaceAll('-', '')}`

const DAY_MS = 86_400_000
export const addDays = (isoDate: string, days: number) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
export const todayUtc = () => new Date().toISOString().slice(0, 10)

/** A coverage as GET /members/{id}/coverages answers it, with the plan named by its external identifier. */
export interface CoverageSeen {
  plan: string
  start: string
  end: string | null
  level: string
  status: string
}

/**
 * What a carrier holds for one coverage period: every file it was sent, applied in order to an
 * Edi834Roster, and the reads a scenario needs around it.
 */
export class CarrierFiles {
  /** What the carrier holds: every file applied, except those it rejected (`reject`). */
  roster = new Edi834Roster()
  private readonly applied = new Set<string>()
  private readonly rejected = new Set<string>()
  private readonly planCodes = new Map<string, string>()
  /** Every file applied, oldest first. */
  readonly files: { delivery: Delivery; content: string }[] = []
  /** The coverage period whose files this carrier takes. */
  readonly period: { id: string; start: string; end: string }

  constructor(
    private readonly t: TestApp,
    private readonly workers: Workers,
    private readonly partner: Credential,
    private readonly operator: Credential,
    readonly group: InstalledGroup,
  ) {
    this.period = { id: group.coveragePeriodId, ...group.period }
    for (const plan of Object.values(group.plans)) this.planCodes.set(plan.id, plan.externalIdentifier)
  }

  /** The deliveries of the coverage period, oldest first (by ISA13, increasing per carrier). */
  async deliveries(): Promise<(Delivery & { interchange_control_number: number })[]> {
    const res = await call(this.t.app, this.partner, 'GET', `/coverage_periods/${this.period.id}/file_deliveries?per_page=100`)
    const all = ok(res, 200).file_deliveries as (Delivery & { interchange_control_number: number })[]
    return all.sort((a, b) => a.interchange_control_number - b.interchange_control_number)
  }

  async content(deliveryId: string): Promise<string> {
    const res = await call(this.t.app, this.operator, 'GET', `/file_deliveries/${deliveryId}/content`)
    expect(res.statusCode, res.body).toBe(200)
    return res.body
  }

  /**
   * Runs the workers, then applies every sent delivery not applied yet (valid 834s, in order) and
   * answers them. Deliveries that failed fail the test; skipped ones carry nothing.
   */
  async sync(): Promise<{ delivery: Delivery; content: string }[]> {
    await settle(this.workers)
    const fresh: { delivery: Delivery; content: string }[] = []
    for (const delivery of await this.deliveries()) {
      if (this.applied.has(delivery.id)) continue
      expect(delivery.status, `delivery ${delivery.kind}: ${delivery.last_error}`).not.toBe('failed')
      if (delivery.status === 'pending') {
        const jobs = await this.t.db
          .selectFrom('jobs')
          .select(['name', 'attempts', 'last_error'])
          .where(sql<string>`payload->>'file_delivery_id'`, '=', delivery.id)
          .execute()
        expect.fail(`delivery ${delivery.kind} is still pending after the workers settled; its jobs: ${JSON.stringify(jobs)}`)
      }
      this.applied.add(delivery.id)
      // Rejected before the test read it (reject): the carrier never took it.
      if (delivery.status !== 'sent' || this.rejected.has(delivery.id)) continue
      const content = await this.content(delivery.id)
      expectValid834(content)
      this.roster.apply(content)
      this.files.push({ delivery, content })
      fresh.push({ delivery, content })
    }
    return fresh
  }

  /** The one change file the last step produced (after `sync`), as member loops. */
  async nextChangeFile(): Promise<{ content: string; loops: MemberLoop[] }> {
    const fresh = await this.sync()
    expect(fresh.map((f) => f.delivery.kind), 'one change file was sent').toEqual(['change'])
    const content = fresh[0]!.content
    return { content, loops: memberLoops(content) }
  }

  /** Names a plan created after the carrier was opened (a line added to the coverage period). */
  knowPlan(planId: string, externalIdentifier: string): void {
    this.planCodes.set(planId, externalIdentifier)
  }

  /** The plan external identifier of a plan id (plans of this coverage period). */
  planCodeOf(planId: string): string {
    return this.planCodes.get(planId) ?? planId
  }

  /** GET /members/{id}/coverages?as_of=…, each coverage with its coverage period. */
  async coveragesWithPeriod(memberId: string, asOf: string): Promise<(CoverageSeen & { coveragePeriodId: string })[]> {
    const body = ok(await call(this.t.app, this.partner, 'GET', `/members/${memberId}/coverages?as_of=${asOf}`), 200)
    expect(body.as_of).toBe(asOf === 'all' ? null : asOf)
    return (body.coverages as { plan_id: string; coverage_period_id: string; start_date: string; end_date: string | null; coverage_level: string; status: string }[]).map((c) => ({
      plan: this.planCodeOf(c.plan_id),
      start: c.start_date,
      end: c.end_date,
      level: c.coverage_level,
      status: c.status,
      coveragePeriodId: c.coverage_period_id,
    }))
  }

  /** GET /members/{id}/coverages?as_of=… with plans named by external identifier. */
  async coverages(memberId: string, asOf: string): Promise<CoverageSeen[]> {
    return (await this.coveragesWithPeriod(memberId, asOf)).map(({ coveragePeriodId: _, ...c }) => c)
  }

  /**
   * The carrier's roster equals GET /members/{id}/coverages on every date where anything of these
   * members may change within the coverage period (each start, each day after an end, the period's
   * first and last days): same plans, same benefit status (A/C against employer_sponsored/cobra),
   * and for subscribers the same coverage level (dependents' levels are not told: level changes go
   * on the subscriber's loop only). Coverages of other coverage periods are left out.
   */
  async expectRosterMatchesTruth(memberIds: Record<string, string>): Promise<void> {
    const subscriberIds = new Set(this.group.families.map((f) => f.subscriberId))
    const { id: periodId, start, end } = this.period
    const dates = new Set([start, end])
    for (const memberId of Object.values(memberIds)) {
      for (const c of await this.coverages(memberId, 'all')) {
        dates.add(c.start)
        if (c.end) dates.add(addDays(c.end, 1))
      }
    }
    const inPeriod = [...dates].filter((date) => start <= date && date <= end).sort()
    const seen: string[] = []
    const held: string[] = []
    for (const date of inPeriod) {
      const roster = new Map(this.roster.onDate(date).map((m) => [m.memberId, m.coverages]))
      for (const [label, memberId] of Object.entries(memberIds)) {
        const withLevel = subscriberIds.has(memberId)
        const ofPeriod = (await this.coveragesWithPeriod(memberId, date)).filter((c) => c.coveragePeriodId === periodId)
        for (const c of ofPeriod) seen.push(`${date} ${label} ${c.plan} ${c.status === 'cobra' ? 'C' : 'A'}${withLevel ? ` ${c.level}` : ''}`)
        for (const c of roster.get(memberId) ?? []) held.push(`${date} ${label} ${c.planCode} ${c.benefitStatus === 'cobra' ? 'C' : 'A'}${withLevel ? ` ${c.coverageLevel}` : ''}`)
      }
    }
    expect(held.sort(), 'what the carrier holds (roster) equals GET /members/{id}/coverages').toEqual(seen.sort())
  }

  /**
   * The carrier rejects a file it was sent: the operator posts the carrier's TA1 rejecting the
   * interchange (note 024, invalid interchange content), the workers run (the rollback is a job),
   * and the roster gives back what the file
   * told (rebuilt from the other files, in order). `rebuild: false` leaves the roster for a later
   * reject to rebuild (a later file that built on this one cannot apply without it). Answers the
   * acknowledgement post's response.
   */
  async reject(deliveryId: string, options: { rebuild?: boolean } = {}): Promise<{ statusCode: number; body: string }> {
    const delivery = (await this.deliveries()).find((d) => d.id === deliveryId)
    expect(delivery, `delivery ${deliveryId} of this coverage period`).toBeDefined()
    const isa13 = String(delivery!.interchange_control_number).padStart(9, '0')
    const ta1 =
      'ISA*00*          *00*          *ZZ*AETNA          *ZZ*ENROLLSYNC     *261125*1739*^*00501*700000001*0*T*:~' +
      `TA1*${isa13}*261125*1738*R*024~` +
      'IEA*0*700000001~'
    const res = await call(this.t.app, this.operator, 'POST', `/file_deliveries/${deliveryId}/acknowledgements`, ta1, { 'content-type': 'application/edi-x12' })
    // The rollback is a job of its own (carrier.undo_rejected_delivery).
    await settle(this.workers)
    this.rejected.add(deliveryId)
    if (options.rebuild === false) return res
    this.roster = new Edi834Roster()
    for (const file of this.files) if (!this.rejected.has(file.delivery.id)) this.roster.apply(file.content)
    return res
  }

  /** GET /subscribers/{id} → subscriber.status. */
  async familyStatus(subscriberId: string): Promise<string> {
    return ok(await call(this.t.app, this.partner, 'GET', `/subscribers/${subscriberId}`), 200).subscriber.status
  }
}

/** POST /subscribers/{id}/qualifying_life_events; answers the raw response. */
export const postLifeEvent = (t: TestApp, partner: Credential, subscriberId: string, event: Record<string, unknown>) =>
  call(t.app, partner, 'POST', `/subscribers/${subscriberId}/qualifying_life_events`, { qualifying_life_event: event })

/** A medical election of `planId` for the coverages given. */
export const medical = (planId: string, coverages: { member_id: string; start_date: string; end_date?: string; status?: 'employer_sponsored' | 'cobra' }[]) => ({
  medical: { type: 'election', plan_id: planId, coverages: coverages.map((c) => ({ status: 'employer_sponsored', ...c })) },
})
