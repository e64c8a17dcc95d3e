import { expect } from 'vitest'
import type { Workers } from '../../src/main/workers.js'
import { linesHeldTwice } from '../../src/modules/edi-834/edi-834.roster.js'
import { CarrierFiles, installGroup, postLifeEvent, type GroupSpec, type InstalledGroup, type MemberLoop } from './life-event-scenarios.js'
import { call, type Credential, type TestApp } from './test-app.js'

/**
 * The harness of the change-file tests (test/life-events-834.test.ts, test/x12-834-audit.test.ts):
 * a group installed with an edi carrier that does not act on its own, its full file applied, and
 * each change file's member loops shaped for comparison, with members named by their labels.
 */

export const GOLD = 'Gold PPO 500'
export const SILVER = 'Silver PPO 1500'

export interface LoopShape {
  member: string
  ins: string
  dates: string[]
  coverages: { hd: string; dates: string[] }[]
}

/** One installed group with its carrier's files applied, and names for its members. */
export interface Scenario {
  t: TestApp
  partner: Credential
  group: InstalledGroup
  carrier: CarrierFiles
  /** Family 0's member ids by label. */
  ids: Record<string, string>
  names: Map<string, string>
  event(subscriberId: string, body: Record<string, unknown>): Promise<{ id: string }>
  /** The change file of what was done since the last one, loops named and shaped for comparison. */
  changeFile(): Promise<{ content: string; loops: MemberLoop[]; shapes: LoopShape[] }>
}

/**
 * A loop as compared: the member's name, INS, member DTPs and each HD with its DTPs (sorted).
 * DTP*336 (employment begin) is a standing fact of the subscriber on every loop, not part of an
 * event's change: left out here, asserted where it matters (the new hire).
 */
export const shapeOf = (names: Map<string, string>) => (loop: MemberLoop): LoopShape => ({
  member: names.get(loop.memberId) ?? loop.memberId,
  ins: loop.ins,
  dates: loop.dates.filter((d) => !d.startsWith('DTP*336*')),
  coverages: loop.coverages.map((c) => ({ hd: c.hd, dates: c.dates })),
})

/** The loops of a member in a change file's shapes (two when a file splits what one loop cannot say). */
export const loopsOf = (shapes: readonly LoopShape[], member: string) => shapes.filter((l) => l.member === member)

/** The one loop of a member in a change file's shapes (fails the test unless there is exactly one). */
export function loopOf(shapes: readonly LoopShape[], member: string): LoopShape {
  const found = loopsOf(shapes, member)
  expect(found.length, `one loop for ${member}: ${JSON.stringify(shapes)}`).toBe(1)
  return found[0]!
}

export const loop = (member: string, ins: string, dates: string[], ...coverages: { hd: string; dates: string[] }[]): LoopShape => ({ member, ins, dates: [...dates].sort(), coverages })
export const hd = (segment: string, ...dates: string[]) => ({ hd: segment, dates: [...dates].sort() })

/** Installs the group, applies its full file (one, holding no line twice) and answers the scenario. */
export async function openScenario(t: TestApp, workers: Workers, operator: Credential, spec: GroupSpec): Promise<Scenario> {
  const partner = await t.newPartner()
  const group = await installGroup(t, workers, partner, operator, spec)
  const carrier = new CarrierFiles(t, workers, partner, operator, group)
  const first = await carrier.sync()
  expect(first.map((f) => f.delivery.kind), 'the installation sends one full file').toEqual(['full'])
  expect(linesHeldTwice(first[0]!.content, group.period.start)).toEqual([])
  const names = new Map<string, string>()
  group.families.forEach((family, index) => {
    for (const [label, id] of Object.entries(family.ids)) names.set(id, index === 0 ? label : `f${index + 1}.${label}`)
  })
  const shape = shapeOf(names)
  return {
    t,
    partner,
    group,
    carrier,
    ids: group.families[0]!.ids,
    names,
    async event(subscriberId, body) {
      const res = await postLifeEvent(t, partner, subscriberId, { coverage_period_id: group.coveragePeriodId, ...body })
      expect(res.statusCode, res.body).toBe(201)
      return res.json().qualifying_life_event
    },
    async changeFile() {
      const file = await carrier.nextChangeFile()
      expect(file.content, 'an original change file (BGN01 00, BGN08 2)').toMatch(/BGN\*00\*[^~]*\*2~/)
      return { ...file, shapes: file.loops.map(shape) }
    },
  }
}

/** The dependent added to a family through the API; answers its id. */
export async function addDependent(s: Scenario, subscriberId: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(s.t.app, s.partner, 'POST', `/subscribers/${subscriberId}/dependents`, { dependent: body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().dependent.id
}

/** PUT /subscribers/{id} with the subscriber as it is but `changes` applied (If-Match from a fresh read). */
export async function updateSubscriber(s: Scenario, subscriberId: string, changes: (current: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const read = await call(s.t.app, s.partner, 'GET', `/subscribers/${subscriberId}`)
  expect(read.statusCode, read.body).toBe(200)
  const { id: _id, group_id: _g, status: _s, dependents: _d, social_security_number: _ssn, created_at: _c, updated_at: _u, current_qualifying_life_events: _q, ...fields } =
    read.json().subscriber
  const res = await call(s.t.app, s.partner, 'PUT', `/subscribers/${subscriberId}`, { subscriber: changes(fields) }, { 'if-match': read.headers.etag as string })
  expect(res.statusCode, res.body).toBe(200)
}

/** Every member the scenario named, by name. */
export const memberIdsOf = (s: Scenario) => Object.fromEntries([...s.names].map(([id, name]) => [name, id]))

/** The family's change file, once the roster the carrier builds from it is checked against the platform's coverage. */
export async function changeFileMatchingTruth(s: Scenario) {
  const file = await s.changeFile()
  await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  return file
}

/** The 2028 renewal of a scenario's group (plans copied, setup completed before any event); the caller moves the work order. */
export async function createRenewal(s: Scenario) {
  const { t } = s
  const res = await call(t.app, s.partner, 'POST', `/groups/${s.group.groupId}/coverage_periods`, {
    coverage_period: { external_identifier: 'plan-year-2028', coverage_start_date: '2028-01-01', coverage_end_date: '2028-12-31', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
  })
  expect(res.statusCode, res.body).toBe(201)
  const id = res.json().coverage_period.id as string
  const copied = await call(t.app, s.partner, 'POST', `/coverage_periods/${id}/plans/copy`, { from_coverage_period_id: s.group.coveragePeriodId })
  expect(copied.statusCode, copied.body).toBe(201)
  const plans: InstalledGroup['plans'] = Object.fromEntries(
    (copied.json().plans as { id: string; external_identifier: string; description: string }[]).map((p) => [
      p.external_identifier,
      { id: p.id, description: p.description, externalIdentifier: p.external_identifier },
    ]),
  )
  const setup = await call(t.app, s.partner, 'POST', `/coverage_periods/${id}/complete_setup`)
  expect(setup.statusCode, setup.body).toBe(201)
  const group: InstalledGroup = { ...s.group, coveragePeriodId: id, period: { start: '2028-01-01', end: '2028-12-31' }, plans, workOrderId: setup.json().work_order.id }
  return { id, plans, group, workOrderId: group.workOrderId }
}
