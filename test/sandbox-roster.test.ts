import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import type { AcknowledgementArrival, AcknowledgementReceiver } from '../src/modules/acknowledgements/index.js'
import { parseAcknowledgement } from '../src/modules/acknowledgements/index.js'
import { CARRIER_INSTALLATION_HOOKS } from '../src/modules/carrier-delivery/index.js'
import { CarrierCatalog } from '../src/modules/carriers/carriers.catalog.js'
import { createCensusService } from '../src/modules/census/index.js'
import { Edi834Roster, type RosterMember } from '../src/modules/edi-834/edi-834.roster.js'
import { createSandboxCarrier, SANDBOX_CARRIER_JOB } from '../src/modules/sandbox-carriers/index.js'
import { loadRosterMembers } from '../src/modules/sandbox-carriers/sandbox-roster.repo.js'
import { createWorkOrderTransitionsService } from '../src/modules/work-orders/work-order-transitions.service.js'
import { installThroughApi, settle, startCarrierTestBed, type ApiInstallation, type CarrierTestBed } from './helpers/carrier-side.js'
import { CarrierFiles, dependentBody, installGroup, medical, postLifeEvent } from './helpers/life-event-scenarios.js'
import { call, testSsnProtection, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * The sandbox carriers keep their own roster, built only from what they were sent (issue 14):
 * they read each delivery's content as stored, answer each 834 with a TA1 and a 999, load nothing
 * those reject, and answer with a census of their roster. So a wrong file the service sends now
 * shows up as reconciliation errors, as it would with a real carrier.
 *
 * The sandbox's jobs wait an hour in this file: a test lets them run (`sandboxActs`) or runs a
 * sandbox of its own with a receiver that records what it was handed, after it has looked at, or
 * deliberately broken, what was sent.
 */
let bed: CarrierTestBed
let t: TestApp
let workers: Workers
let operator: Credential
const ssn = testSsnProtection()

beforeAll(async () => {
  bed = await startCarrierTestBed({ settings: { sandboxDelayMs: 3_600_000 } })
  ;({ t, workers } = bed)
  operator = await t.newOperator()
})
afterAll(async () => bed?.close())

/** The sandbox jobs waiting run now, and whatever they queue. */
async function sandboxActs(): Promise<void> {
  await t.db.updateTable('jobs').set({ run_at: new Date() }).where('name', '=', SANDBOX_CARRIER_JOB.name).where('status', '=', 'pending').execute()
  await settle(workers)
}

/** The workers' sandbox will not act on this period: a test's own sandbox does. */
async function dropSandboxJobs(coveragePeriodId: string): Promise<void> {
  const jobs = await t.db.selectFrom('jobs').select(['id', 'payload']).where('name', '=', SANDBOX_CARRIER_JOB.name).where('status', '=', 'pending').execute()
  const ofPeriod = jobs.filter((j) => (j.payload as { coverage_period_id: string }).coverage_period_id === coveragePeriodId).map((j) => j.id)
  if (ofPeriod.length > 0) await t.db.deleteFrom('jobs').where('id', 'in', ofPeriod).execute()
}

/** A sandbox carrier of the test's own, whose acknowledgements land in `received`. */
function ownSandbox() {
  const received: AcknowledgementArrival[] = []
  const acknowledgements: AcknowledgementReceiver = {
    async receive(arrival) {
      received.push(arrival)
      return { id: `fake-${received.length}`, outcome: 'matched', fileDeliveryId: null }
    },
  }
  const carriers = new CarrierCatalog()
  const sandbox = createSandboxCarrier({
    db: t.db,
    ssn,
    carriers,
    transitions: createWorkOrderTransitionsService({ db: t.db, carriers, hooks: CARRIER_INSTALLATION_HOOKS }),
    census: createCensusService({ db: t.db, ssn, carriers }),
    acknowledgements,
  })
  return { sandbox, received }
}

const move = (workOrderId: string, status: string) => call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status, message: status })

/** The operator submits the work order: the full file is built and sent; the sandbox has not acted yet. */
async function submit(workOrderId: string): Promise<void> {
  for (const status of ['in_progress', 'submitted']) expect((await move(workOrderId, status)).statusCode).toBe(200)
  await settle(workers)
}

const deliveries = (coveragePeriodId: string) =>
  t.db.selectFrom('file_deliveries').selectAll().where('coverage_period_id', '=', coveragePeriodId).orderBy('created_at').orderBy('id').execute()

const taken = (coveragePeriodId: string) =>
  t.db
    .selectFrom('sandbox_applied_deliveries')
    .select(['file_delivery_id', 'outcome', 'detail', 'answered_at'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .orderBy('seq')
    .execute()

/** What the sandbox holds, by member id. */
async function sandboxRoster(coveragePeriodId: string): Promise<Map<string, RosterMember>> {
  return new Map((await loadRosterMembers(t.db, ssn, coveragePeriodId)).map((m) => [m.memberId, m]))
}

const unresolvedReconciliation = async (coveragePeriodId: string) =>
  (
    await t.db
      .selectFrom('errors')
      .select(['member_id', 'discrepancy_parameter as parameter', 'discrepancy_kind as kind'])
      .where('coverage_period_id', '=', coveragePeriodId)
      .where('source', '=', 'reconciliation')
      .where('status', '=', 'unresolved')
      .execute()
  )
    .map((e) => `${e.parameter} ${e.member_id}`)
    .sort()

/** The differences the sandbox still keeps, as the errors they raise. */
const keptDifferences = async (coveragePeriodId: string) =>
  (await t.db.selectFrom('sandbox_carrier_differences').select(['member_id', 'parameter']).where('coverage_period_id', '=', coveragePeriodId).execute())
    .map((d) => `${d.parameter} ${d.member_id}`)
    .sort()

/** The stored content of a delivery, opened. */
async function contentOf(deliveryId: string): Promise<string> {
  const rows = await t.db.selectFrom('file_delivery_chunks').select(['key_id', 'data']).where('file_delivery_id', '=', deliveryId).orderBy('seq').execute()
  return Buffer.concat(rows.map((row) => ssn.openBytes(row.data, row.key_id))).toString('utf8')
}

/** The fault: the delivery's stored content replaced by `edit` of it, after it was sent and before the carrier reads it. */
async function rewriteContent(deliveryId: string, edit: (text: string) => string): Promise<void> {
  const text = await contentOf(deliveryId)
  const edited = edit(text)
  expect(edited, 'the fault changes the file').not.toBe(text)
  const { data, keyId } = ssn.sealBytes(Buffer.from(edited, 'utf8'))
  await t.db.deleteFrom('file_delivery_chunks').where('file_delivery_id', '=', deliveryId).execute()
  await t.db.insertInto('file_delivery_chunks').values({ file_delivery_id: deliveryId, seq: 0, key_id: keyId, data }).execute()
}

/**
 * The 834 without the member loop of `memberId`, its control totals and SE01 made to agree: a
 * file the rules accept that forgets a member, as a builder bug would.
 */
function withoutMemberLoop(text: string, memberId: string): string {
  const segments = text.split('~')
  const id = (s: string) => s.trim().split('*')[0]
  const loopEnd = (start: number) => {
    let end = start + 1
    while (end < segments.length && id(segments[end]!) !== 'INS' && id(segments[end]!) !== 'SE') end++
    return end
  }
  const start = segments.findIndex((s, i) => id(s) === 'INS' && segments.slice(i, loopEnd(i)).some((n) => n.trim() === `REF*17*${memberId}`))
  expect(start, `a loop of member ${memberId}`).toBeGreaterThan(0)
  const kept = [...segments.slice(0, start), ...segments.slice(loopEnd(start))]
  const st = kept.findIndex((s) => id(s) === 'ST')
  const se = kept.findIndex((s) => id(s) === 'SE')
  return kept
    .map((s, i) => {
      const elements = s.split('*')
      if (i === se) elements[1] = String(se - st + 1)
      if (id(s) === 'QTY' && (elements[1] === 'TO' || elements[1] === 'DT')) elements[2] = String(Number(elements[2]) - 1)
      return elements.join('*')
    })
    .join('~')
}

/** PUT /subscribers/{id} with a new street: a change of the subscriber's own loop. */
async function moveHouse(partner: Credential, subscriberId: string, street: string): Promise<void> {
  const read = (await call(t.app, partner, 'GET', `/subscribers/${subscriberId}`)).json().subscriber
  const { id: _i, group_id: _g, status: _s, current_qualifying_life_events: _e, dependents: _d, created_at: _c, updated_at: _u, social_security_number: _n, ...fields } = read
  const update = await call(t.app, partner, 'PUT', `/subscribers/${subscriberId}`, { subscriber: { ...fields, residential_address: { ...fields.residential_address, address_line_1: street } } })
  expect(update.statusCode, update.body).toBe(200)
}

/** A dependent added to the family and enrolled from the period's start (birth). */
async function addBaby(partner: Credential, install: Pick<ApiInstallation, 'coveragePeriodId' | 'planId'>, subscriberId: string, lastName: string): Promise<string> {
  const res = await call(t.app, partner, 'POST', `/subscribers/${subscriberId}/dependents`, {
    dependent: { ...dependentBody({ label: 'baby', relationship: 'child', birthDate: '2026-11-20' }, lastName), first_name: 'Ivy' },
  })
  expect(res.statusCode, res.body).toBe(201)
  const baby = res.json().dependent.id as string
  const event = await postLifeEvent(t, partner, subscriberId, {
    coverage_period_id: install.coveragePeriodId,
    event: 'birth',
    date: '2026-11-24',
    eligibility_start_date: '2027-01-01',
    plan_elections: medical(install.planId, [{ member_id: baby, start_date: '2027-01-01' }]),
  })
  expect(event.statusCode, event.body).toBe(201)
  return baby
}

describe('sandbox_edi reads what it was sent', () => {
  it('when it installs a group, then it answers the full file with an accepting TA1 and 999 of its own numbering, holds what the file said, and reports only its deliberate differences; run again, it takes nothing twice', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'sandbox_edi', 3)
    await submit(install.workOrderId)
    const [full] = await deliveries(install.coveragePeriodId)
    expect(full).toMatchObject({ kind: 'full', status: 'sent' })
    await dropSandboxJobs(install.coveragePeriodId)

    const own = ownSandbox()
    await own.sandbox.install(install.coveragePeriodId)
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/work_order`)).json().work_order.status).toBe('completed')

    // A TA1 then a 999, each an interchange of the sandbox's own numbering, handed as the sandbox's.
    expect(own.received.map((a) => [a.carrierName, a.source])).toEqual([
      ['sandbox_edi', 'sandbox'],
      ['sandbox_edi', 'sandbox'],
    ])
    const [ta1, ack] = own.received.map((a) => parseAcknowledgement(a.text))
    const icn = full!.interchange_control_number!
    expect(ta1!.ta1s).toMatchObject([{ status: 'accepted', note: { code: '000' } }])
    expect(Number(ta1!.ta1s[0]!.acknowledgedControlNumber)).toBe(icn)
    expect(ack!.groups).toMatchObject([{ status: 'accepted', transactionSets: [{ status: 'accepted', segments: [] }] }])
    expect(Number(ack!.groups[0]!.acknowledgedGroupControlNumber)).toBe(icn)
    expect(Number(ack!.groups[0]!.transactionSets[0]!.controlNumber)).toBe(icn)
    const counter = await t.db.selectFrom('sandbox_control_numbers').select('last_value').where('carrier_name', '=', 'sandbox_edi').executeTakeFirstOrThrow()
    expect([Number(ta1!.envelope.controlNumber), Number(ack!.envelope.controlNumber)]).toEqual([Number(counter.last_value) - 1, Number(counter.last_value)])
    expect(await taken(install.coveragePeriodId)).toEqual([{ file_delivery_id: full!.id, outcome: 'applied', detail: null, answered_at: expect.any(Date) }])

    // Its roster: the nine members sent, the SSN sealed at rest.
    const roster = await sandboxRoster(install.coveragePeriodId)
    expect(roster.size).toBe(9)
    expect(roster.get(install.families[0]!.subscriberId)).toMatchObject({ subscriber: true, ssn: '100011000', coverages: [{ line: 'HLT', planCode: 'gold-ppo', startDate: '2027-01-01', endDate: null }] })
    const stored = await t.db.selectFrom('sandbox_roster_members').select(['record', 'ssn_ciphertext']).where('coverage_period_id', '=', install.coveragePeriodId).execute()
    expect(JSON.stringify(stored)).not.toContain('100011000')

    // Its census: the differences it chose from its own roster, and nothing else.
    const differences = await keptDifferences(install.coveragePeriodId)
    expect(differences).toEqual(
      [
        `residential_address ${install.families[0]!.subscriberId}`,
        `birth_date ${install.families[1]!.subscriberId}`,
        `dependent ${[...install.families[2]!.dependentIds].sort()[0]}`,
      ].sort(),
    )
    expect(await unresolvedReconciliation(install.coveragePeriodId)).toEqual(differences)

    // Run again: nothing new to take, nothing acknowledged twice.
    await own.sandbox.answer(install.coveragePeriodId)
    await own.sandbox.install(install.coveragePeriodId)
    expect(own.received).toHaveLength(2)
    expect(await taken(install.coveragePeriodId)).toHaveLength(1)
    expect((await sandboxRoster(install.coveragePeriodId)).size).toBe(9)
  })

  it('when a change file is rejected by its 999 (a DMG date the rules refuse), then the sandbox says so and does not load it: the change never reaches its roster', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'sandbox_edi', 2)
    await submit(install.workOrderId)
    await dropSandboxJobs(install.coveragePeriodId)
    const own = ownSandbox()
    await own.sandbox.install(install.coveragePeriodId)

    const subscriberId = install.families[1]!.subscriberId
    await moveHouse(partner, subscriberId, '99 Oak Ave')
    await settle(workers)
    const change = (await deliveries(install.coveragePeriodId)).find((d) => d.kind === 'change')!
    expect(change.status).toBe('sent')
    await dropSandboxJobs(install.coveragePeriodId)
    await rewriteContent(change.id, (text) => text.replace(/DMG\*D8\*19850615\*/, 'DMG*D8*19851345*'))

    await own.sandbox.answer(install.coveragePeriodId)
    const [ta1, ack] = own.received.slice(2).map((a) => parseAcknowledgement(a.text))
    expect(ta1!.ta1s).toMatchObject([{ status: 'accepted' }])
    expect(Number(ta1!.ta1s[0]!.acknowledgedControlNumber)).toBe(change.interchange_control_number)
    expect(Number(ack!.groups[0]!.acknowledgedGroupControlNumber)).toBe(change.interchange_control_number)
    expect(ack!.groups).toMatchObject([
      {
        status: 'rejected',
        transactionSets: [{ status: 'rejected', segments: [{ segmentId: 'DMG', loopId: '2100A', elements: [{ position: 2, error: { code: '8' } }] }] }],
      },
    ])
    const outcomes = await taken(install.coveragePeriodId)
    expect(outcomes.map((o) => o.outcome)).toEqual(['applied', 'rejected'])
    expect(outcomes[1]!.detail).toMatch(/^999 AK9 rejected; IK5 5; IK3 DMG at \d+ \(2100A\)/)
    expect(outcomes[1]!.detail).not.toMatch(/1985/)
    // Not loaded: the carrier still holds the old address.
    expect((await sandboxRoster(install.coveragePeriodId)).get(subscriberId)?.residentialAddress?.address_line_1).toBe('13 Elm St')
  })

  it('when a change file forgets a dependent it should add (a fault in the file as sent), then the sandbox accepts and applies it, and its next census raises a reconciliation error for that dependent', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'sandbox_edi', 3)
    await submit(install.workOrderId)
    await sandboxActs()
    const before = await unresolvedReconciliation(install.coveragePeriodId)
    expect(before).toHaveLength(3)

    // One change file: the baby's addition, and the subscriber's new address (so a loop remains once the baby's is gone).
    const baby = await addBaby(partner, install, install.families[1]!.subscriberId, 'Doe2')
    await moveHouse(partner, install.families[1]!.subscriberId, '99 Oak Ave')
    await settle(workers)
    const change = (await deliveries(install.coveragePeriodId)).find((d) => d.kind === 'change')!
    expect(change.status).toBe('sent')
    expect(await contentOf(change.id)).toContain(`REF*17*${baby}`)
    await rewriteContent(change.id, (text) => withoutMemberLoop(text, baby))
    await sandboxActs()

    // The file passed the rules, so the carrier loaded it as sent (without the baby), and said so.
    expect((await taken(install.coveragePeriodId)).map((o) => o.outcome)).toEqual(['applied', 'applied'])
    expect((await call(t.app, operator, 'GET', `/file_deliveries/${change.id}`)).json().file_delivery.acknowledgement_status).toBe('accepted')
    const roster = await sandboxRoster(install.coveragePeriodId)
    expect(roster.has(baby)).toBe(false)
    // The subscriber's own loop went through: its new address is held, and its birth date difference is gone.
    expect(roster.get(install.families[1]!.subscriberId)?.residentialAddress?.address_line_1).toBe('99 Oak Ave')

    // The next census shows the carrier lacks the baby.
    const after = await unresolvedReconciliation(install.coveragePeriodId)
    expect(after).toContain(`dependent ${baby}`)
    expect(after).not.toContain(`birth_date ${install.families[1]!.subscriberId}`)
  })
})

describe('sandbox_api reads what it was sent', () => {
  it('when a group is installed and a child is born, then the sandbox applies each JSON delivery to its roster, acknowledges nothing by X12, and its census agrees but for its differences', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'sandbox_api', 3)
    await submit(install.workOrderId)
    await sandboxActs()
    expect((await sandboxRoster(install.coveragePeriodId)).size).toBe(9)
    expect(await unresolvedReconciliation(install.coveragePeriodId)).toEqual(await keptDifferences(install.coveragePeriodId))

    const baby = await addBaby(partner, install, install.families[0]!.subscriberId, 'Doe1')
    await settle(workers)
    await sandboxActs()
    const outcomes = await t.db.selectFrom('sandbox_applied_deliveries').select(['outcome', 'ta1', 'ack_999']).where('coverage_period_id', '=', install.coveragePeriodId).orderBy('seq').execute()
    expect(outcomes).toEqual([
      { outcome: 'applied', ta1: null, ack_999: null },
      { outcome: 'applied', ta1: null, ack_999: null },
    ])
    const roster = await sandboxRoster(install.coveragePeriodId)
    expect(roster.get(baby)).toMatchObject({ subscriber: false, relationship: 'child', coverages: [{ planCode: 'gold-ppo', startDate: '2027-01-01', endDate: null }] })
    // A FAM family's newborn travels alone: the subscriber's loop was not sent, so its difference stays.
    const kept = await keptDifferences(install.coveragePeriodId)
    expect(kept).toHaveLength(3)
    expect(await unresolvedReconciliation(install.coveragePeriodId)).toEqual(kept)
    expect(await t.db.selectFrom('acknowledgements').select('id').where('carrier_name', '=', 'sandbox_api').execute()).toEqual([])
  })

  it('when a JSON delivery cannot be read or applied, then the sandbox loads nothing of it, says why, and still answers with a census of what it holds', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'sandbox_api', 1)
    await submit(install.workOrderId)
    const [full] = await deliveries(install.coveragePeriodId)
    await dropSandboxJobs(install.coveragePeriodId)
    await rewriteContent(full!.id, () => `{"kind":"full","coverage_period_id":"${install.coveragePeriodId}","members":[{"memberId":"x","coverages":[null]}]}`)
    const own = ownSandbox()
    await own.sandbox.install(install.coveragePeriodId)
    expect(await taken(install.coveragePeriodId)).toMatchObject([{ outcome: 'unreadable', detail: 'the members cannot be applied (TypeError)' }])
    expect((await sandboxRoster(install.coveragePeriodId)).size).toBe(0)
    expect(own.received).toEqual([])
    // Its census holds nobody: the service learns the carrier has none of the family.
    const census = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/census_requests`)).json().census_requests
    expect(census).toMatchObject([{ format: 'json', subscriber_count: 0 }])
    expect(await unresolvedReconciliation(install.coveragePeriodId)).not.toEqual([])
  })
})

describe('life events end to end with sandbox_edi reading the files', () => {
  it('when a birth, a divorce and a termination follow the installation, then after each the sandbox holds what the files said (as a reader of the same files does) and its census agrees with the service but for the differences it still keeps', async () => {
    const partner = await t.newPartner()
    const group = await installGroup(t, workers, partner, operator, { carrier: 'sandbox_edi', families: [{}, {}, {}], deferCompletion: true })
    const setup = await call(t.app, partner, 'POST', `/coverage_periods/${group.coveragePeriodId}/complete_setup`)
    expect(setup.statusCode, setup.body).toBe(201)
    await submit(setup.json().work_order.id)
    await sandboxActs()
    const reader = new CarrierFiles(t, workers, partner, operator, { ...group, workOrderId: setup.json().work_order.id })
    const cp = group.coveragePeriodId
    const gold = group.plans.gold!.id
    const allIds = () => Object.fromEntries(group.families.flatMap((f, i) => Object.entries(f.ids).map(([label, id]) => [`f${i}.${label}`, id])))

    /** The sandbox's roster is the reader's, its deliveries all acknowledged and applied, its census agreeing. */
    const expectSandboxHoldsTheFiles = async (alsoRaised: string[] = []) => {
      await reader.sync()
      await sandboxActs()
      const held = [...(await sandboxRoster(cp)).values()].sort((a, b) => a.memberId.localeCompare(b.memberId))
      expect(held).toEqual(reader.roster.members().sort((a, b) => a.memberId.localeCompare(b.memberId)))
      expect(Edi834Roster.fromMembers(held).onDate('2027-06-01')).toEqual(Edi834Roster.fromMembers(reader.roster.members()).onDate('2027-06-01'))
      expect((await taken(cp)).every((o) => o.outcome === 'applied')).toBe(true)
      for (const d of await deliveries(cp)) expect(d.acknowledgement_status, `delivery ${d.kind}`).toBe('accepted')
      expect(await unresolvedReconciliation(cp)).toEqual([...(await keptDifferences(cp)), ...alsoRaised].sort())
      await reader.expectRosterMatchesTruth(allIds())
    }
    await expectSandboxHoldsTheFiles()
    expect(await keptDifferences(cp)).toHaveLength(3)

    const [first, second, third] = group.families
    group.families[0]!.ids.baby = await addBaby(partner, { coveragePeriodId: cp, planId: gold }, first!.subscriberId, 'Doe1')
    await expectSandboxHoldsTheFiles()

    const divorce = await postLifeEvent(t, partner, second!.subscriberId, {
      coverage_period_id: cp,
      event: 'divorce',
      date: '2027-03-15',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(gold, [{ member_id: second!.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]),
    })
    expect(divorce.statusCode, divorce.body).toBe(201)
    // The file tells the carrier the subscriber is divorced (DMG04 D) while the record still says
    // married: the carrier's census shows it, until the partner corrects the record.
    await expectSandboxHoldsTheFiles([`marital_status ${second!.subscriberId}`])
    const read = (await call(t.app, partner, 'GET', `/subscribers/${second!.subscriberId}`)).json().subscriber
    const { id: _i, group_id: _g, status: _s, current_qualifying_life_events: _e, dependents: _d, created_at: _c, updated_at: _u, social_security_number: _n, ...fields } = read
    const corrected = await call(t.app, partner, 'PUT', `/subscribers/${second!.subscriberId}`, { subscriber: { ...fields, marital_status: 'divorced' } })
    expect(corrected.statusCode, corrected.body).toBe(200)
    await expectSandboxHoldsTheFiles()

    // The client marks the employment ended (the file's INS08 TE and DTP*337 then agree with the record).
    const employed = (await call(t.app, partner, 'GET', `/subscribers/${third!.subscriberId}`)).json().subscriber
    const { id: _i3, group_id: _g3, status: _s3, current_qualifying_life_events: _e3, dependents: _d3, created_at: _c3, updated_at: _u3, social_security_number: _n3, ...record } = employed
    const ended = await call(t.app, partner, 'PUT', `/subscribers/${third!.subscriberId}`, {
      subscriber: { ...record, employment_details: { ...record.employment_details, status: 'terminated', end_date: '2027-04-16' } },
    })
    expect(ended.statusCode, ended.body).toBe(200)
    const termination = await postLifeEvent(t, partner, third!.subscriberId, {
      coverage_period_id: cp,
      event: 'termination_of_employment',
      date: '2027-04-16',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(gold, Object.values(third!.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-04-30' }))),
    })
    expect(termination.statusCode, termination.body).toBe(201)
    await expectSandboxHoldsTheFiles()
    // The divorce sent the second subscriber's loop and the termination every loop of the third
    // family: only the first subscriber's address difference is left (its newborn travelled alone).
    expect(await keptDifferences(cp)).toEqual([`residential_address ${first!.subscriberId}`])
    expect(await unresolvedReconciliation(cp)).toEqual([`residential_address ${first!.subscriberId}`])
    // An installation and three change files through the sandbox: 2.9 s in CI and 8.8 s on a loaded machine, of the 30 s default.
  }, 60_000)
})
