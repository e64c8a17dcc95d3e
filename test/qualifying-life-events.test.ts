import type { LightMyRequestResponse } from 'fastify'
import { Compile } from 'typebox/compile'
import { MemberCoverageList } from '../src/modules/coverage-timeline/coverage-timeline.schema.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { dependentBody, subscriberBody } from './helpers/member-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const PLANS = {
  hmo: { product_line: 'medical', product_type: 'health_maintenance_organization', policy_premium_method: 'list_bill' },
  dental: { product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' },
  voluntaryLife: { product_line: 'life', voluntary: true, policy_premium_method: 'list_bill' },
  basicLife: { product_line: 'life', policy_premium_method: 'list_bill' },
  longTerm: { product_line: 'disability', product_type: 'long_term', policy_premium_method: 'list_bill' },
} as const
type PlanName = keyof typeof PLANS

interface Installation {
  partner: Credential
  groupId: string
  locationId: string
  coveragePeriodId: string
  plans: Record<PlanName, string>
  subscriberId: string
  dependentId: string
  employmentStart: string
}

async function created(res: LightMyRequestResponse, key: string) {
  expect(res.statusCode, res.body).toBe(201)
  return res.json()[key]
}

async function coveragePeriod(partner: Credential, groupId: string, externalIdentifier = 'plan-year-2027'): Promise<string> {
  const res = await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
    coverage_period: {
      external_identifier: externalIdentifier,
      coverage_start_date: '2027-01-01',
      employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' },
    },
  })
  return (await created(res, 'coverage_period')).id
}

async function plan(partner: Credential, coveragePeriodId: string, name: PlanName): Promise<string> {
  const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, {
    plan: { external_identifier: name, description: `Plan ${name}`, ...PLANS[name] },
  })
  return (await created(res, 'plan')).id
}

async function subscriber(partner: Credential, groupId: string, locationId: string, n: number) {
  const body = subscriberBody({ groupId, locationId, classificationId: '' }, n, { class: undefined, dependents: [dependentBody(n * 10)] })
  const res = await call(t.app, partner, 'POST', `/groups/${groupId}/subscribers`, { subscriber: body })
  const answer = await created(res, 'subscriber')
  return { id: answer.id as string, dependentId: answer.dependents[0].id as string, employmentStart: body.employment_details.start_date }
}

/** Steps 1 to 5 for a fresh partner: a group, a coverage period with five plans, a subscriber with a child. */
async function installation(): Promise<Installation> {
  const partner = await t.newPartner()
  const { group, location } = await insertGroupWithLocation(t.db, partner.accountId)
  const coveragePeriodId = await coveragePeriod(partner, group.id)
  const plans = {} as Record<PlanName, string>
  for (const name of Object.keys(PLANS) as PlanName[]) plans[name] = await plan(partner, coveragePeriodId, name)
  const family = await subscriber(partner, group.id, location.id, 1)
  return {
    partner,
    groupId: group.id,
    locationId: location.id,
    coveragePeriodId,
    plans,
    subscriberId: family.id,
    dependentId: family.dependentId,
    employmentStart: family.employmentStart,
  }
}

function eventBody(inst: Installation, overrides: Record<string, unknown> = {}) {
  return {
    qualifying_life_event: {
      external_identifier: 'qle-1',
      coverage_period_id: inst.coveragePeriodId,
      event: 'initial_enrollment',
      date: '2027-01-01',
      eligibility_start_date: '2027-01-01',
      plan_elections: {
        medical: {
          type: 'election',
          plan_id: inst.plans.hmo,
          coverages: [
            { member_id: inst.subscriberId, start_date: '2027-01-01', status: 'employer_sponsored' },
            { member_id: inst.dependentId, start_date: '2027-01-01', status: 'employer_sponsored' },
          ],
        },
        dental: { type: 'waiver', waiver_signature_date: '2026-11-15', waiver_reason: 'Covered by spouse' },
      },
      ...overrides,
    },
  }
}

const post = (inst: Installation, body: unknown, subscriberId = inst.subscriberId) =>
  call(t.app, inst.partner, 'POST', `/subscribers/${subscriberId}/qualifying_life_events`, body)

function expectProblem(res: LightMyRequestResponse, status: number, code: string, pointer: string, fieldCode?: string) {
  expect(res.statusCode, res.body).toBe(status)
  const body = res.json()
  expect(body.code).toBe(code)
  expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, ...(fieldCode ? { code: fieldCode } : {}) })]))
}

async function completeSetup(coveragePeriodId: string) {
  // Step 7 is built elsewhere; the rule only reads setup_completed_at.
  await t.db.updateTable('coverage_periods').set({ setup_completed_at: new Date() }).where('id', '=', coveragePeriodId).execute()
}

describe('qualifying life events (installation step 6)', () => {
  it('when an initial_enrollment with a medical election and a dental waiver is added, then 201 answers it with ids, stores it and GETs agree', async () => {
    const inst = await installation()
    const res = await post(inst, eventBody(inst))
    expect(res.statusCode, res.body).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const event = res.json().qualifying_life_event
    expect(event).toMatchObject({
      id: expect.any(String),
      subscriber_id: inst.subscriberId,
      coverage_period_id: inst.coveragePeriodId,
      external_identifier: 'qle-1',
      event: 'initial_enrollment',
      date: '2027-01-01',
      eligibility_start_date: '2027-01-01',
      plan_elections: {
        medical: {
          id: expect.any(String),
          type: 'election',
          plan_id: inst.plans.hmo,
          coverages: [
            { id: expect.any(String), member_id: inst.subscriberId, start_date: '2027-01-01', end_date: null, status: 'employer_sponsored', volume: null },
            { id: expect.any(String), member_id: inst.dependentId, start_date: '2027-01-01', end_date: null, status: 'employer_sponsored', volume: null },
          ],
        },
        dental: { id: expect.any(String), type: 'waiver', waiver_signature_date: '2026-11-15', waiver_reason: 'Covered by spouse' },
      },
    })

    const read = await call(t.app, inst.partner, 'GET', `/qualifying_life_events/${event.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.headers['cache-control']).toBe('no-store')
    expect(read.json().qualifying_life_event).toEqual(event)

    const list = await call(t.app, inst.partner, 'GET', `/subscribers/${inst.subscriberId}/qualifying_life_events`)
    expect(list.statusCode).toBe(200)
    expect(list.headers.total).toBe('1')
    expect(list.headers['cache-control']).toBe('no-store')
    expect(list.json().qualifying_life_events).toEqual([event])

    const coverages = await t.db.selectFrom('coverages').selectAll().where('plan_id', '=', inst.plans.hmo).execute()
    expect(coverages.map((c) => c.member_id).sort()).toEqual([inst.subscriberId, inst.dependentId].sort())
    const audit = await t.db.selectFrom('audit_events').selectAll().where('resource_id', '=', event.id).execute()
    expect(audit.map((a) => a.action)).toEqual(['qualifying_life_event.created'])
  })

  it('when voluntary life, non-voluntary life and long-term disability are elected with volumes, then each key takes its fitting plan', async () => {
    const inst = await installation()
    const cover = (volume: number) => [{ member_id: inst.subscriberId, start_date: '2027-01-01', end_date: '2027-12-31', status: 'employer_sponsored', volume }]
    const res = await post(
      inst,
      eventBody(inst, {
        event: 'newly_eligible',
        plan_elections: {
          voluntary_life: { type: 'election', plan_id: inst.plans.voluntaryLife, coverages: cover(5_000_000) },
          non_voluntary_life: { type: 'election', plan_id: inst.plans.basicLife, coverages: cover(2_500_000) },
          long_term_disability: { type: 'election', plan_id: inst.plans.longTerm, coverages: cover(300_000) },
        },
      }),
    )
    expect(res.statusCode, res.body).toBe(201)
    const elections = res.json().qualifying_life_event.plan_elections
    expect(Object.keys(elections)).toEqual(['voluntary_life', 'non_voluntary_life', 'long_term_disability'])
    expect(elections.voluntary_life.coverages[0]).toMatchObject({ volume: 5_000_000, end_date: '2027-12-31' })
  })

  it('when the setup is not complete and the event is not initial_enrollment or newly_eligible, then 422 says why at /event; after setup it is accepted', async () => {
    const inst = await installation()
    const res = await post(inst, eventBody(inst, { event: 'marriage' }))
    expectProblem(res, 422, 'validation_failed', '/qualifying_life_event/event', 'event_not_allowed_during_installation')
    expect(res.json().errors[0].detail).toMatch(/initial_enrollment or newly_eligible.*setup/)
    await completeSetup(inst.coveragePeriodId)
    expect((await post(inst, eventBody(inst, { event: 'marriage' }))).statusCode).toBe(201)
  })

  it('when a new_hire date differs from the employment start date, then 422 at /date; with the start date it is accepted', async () => {
    const inst = await installation()
    await completeSetup(inst.coveragePeriodId)
    const res = await post(inst, eventBody(inst, { event: 'new_hire', date: '2027-01-01' }))
    expectProblem(res, 422, 'validation_failed', '/qualifying_life_event/date', 'not_employment_start_date')
    const ok = await post(inst, eventBody(inst, { event: 'new_hire', date: inst.employmentStart }))
    expect(ok.statusCode, ok.body).toBe(201)
  })

  it("when the coverage period belongs to another group or another account, then 422 not_in_group at /coverage_period_id", async () => {
    const inst = await installation()
    const { group: otherGroup } = await insertGroupWithLocation(t.db, inst.partner.accountId)
    const otherPeriod = await coveragePeriod(inst.partner, otherGroup.id)
    expectProblem(await post(inst, eventBody(inst, { coverage_period_id: otherPeriod })), 422, 'validation_failed', '/qualifying_life_event/coverage_period_id', 'not_in_group')
    const stranger = await installation()
    expectProblem(
      await post(inst, eventBody(inst, { coverage_period_id: stranger.coveragePeriodId })),
      422,
      'validation_failed',
      '/qualifying_life_event/coverage_period_id',
      'not_in_group',
    )
  })

  it('when the plan belongs to another coverage period, then 422 not_in_coverage_period at the plan_id', async () => {
    const inst = await installation()
    const otherPeriod = await coveragePeriod(inst.partner, inst.groupId, 'plan-year-2028')
    const otherPlan = await plan(inst.partner, otherPeriod, 'hmo')
    const body = eventBody(inst)
    body.qualifying_life_event.plan_elections.medical.plan_id = otherPlan
    expectProblem(await post(inst, body), 422, 'validation_failed', '/qualifying_life_event/plan_elections/medical/plan_id', 'not_in_coverage_period')
  })

  it('when a plan does not fit its key (line, voluntary or disability type), then 422 plan_does_not_fit_election at each plan_id', async () => {
    const inst = await installation()
    const cover = [{ member_id: inst.subscriberId, start_date: '2027-01-01', status: 'employer_sponsored' }]
    const res = await post(
      inst,
      eventBody(inst, {
        plan_elections: {
          medical: { type: 'election', plan_id: inst.plans.dental, coverages: cover },
          voluntary_life: { type: 'election', plan_id: inst.plans.basicLife, coverages: cover },
          non_voluntary_life: { type: 'election', plan_id: inst.plans.voluntaryLife, coverages: cover },
          short_term_disability: { type: 'election', plan_id: inst.plans.longTerm, coverages: cover },
        },
      }),
    )
    expect(res.statusCode).toBe(422)
    const pointers = res.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])
    expect(pointers).toEqual([
      ['/qualifying_life_event/plan_elections/medical/plan_id', 'plan_does_not_fit_election'],
      ['/qualifying_life_event/plan_elections/voluntary_life/plan_id', 'plan_does_not_fit_election'],
      ['/qualifying_life_event/plan_elections/non_voluntary_life/plan_id', 'plan_does_not_fit_election'],
      ['/qualifying_life_event/plan_elections/short_term_disability/plan_id', 'plan_does_not_fit_election'],
    ])
  })

  it('when a covered member is not the subscriber or its dependent, then 422 not_in_family at that member_id', async () => {
    const inst = await installation()
    const neighbour = await subscriber(inst.partner, inst.groupId, inst.locationId, 2)
    const body = eventBody(inst)
    body.qualifying_life_event.plan_elections.medical.coverages[1]!.member_id = neighbour.dependentId
    expectProblem(await post(inst, body), 422, 'validation_failed', '/qualifying_life_event/plan_elections/medical/coverages/1/member_id', 'not_in_family')
  })

  it('when a member is covered twice in one election, then 422 duplicate_in_request at the repeat', async () => {
    const inst = await installation()
    const body = eventBody(inst)
    body.qualifying_life_event.plan_elections.medical.coverages[1]!.member_id = inst.subscriberId
    expectProblem(await post(inst, body), 422, 'validation_failed', '/qualifying_life_event/plan_elections/medical/coverages/1/member_id', 'duplicate_in_request')
  })

  it('when an event is made, then the coverage in force is read on any date, with its history, and the subscriber lists it among its current events', async () => {
    const inst = await installation()
    const first = await post(inst, eventBody(inst))
    expect(first.statusCode, first.body).toBe(201)
    // Not yet in force today (the plan year starts in 2027); in force on its start.
    const today = await call(t.app, inst.partner, 'GET', `/members/${inst.subscriberId}/coverages`)
    expect(today.statusCode, today.body).toBe(200)
    expect(today.json()).toEqual({ as_of: new Date().toISOString().slice(0, 10), coverages: [] })
    const onStart = (await call(t.app, inst.partner, 'GET', `/members/${inst.subscriberId}/coverages?as_of=2027-01-01`)).json()
    expect(onStart.coverages).toEqual([
      expect.objectContaining({ member_id: inst.subscriberId, line: 'medical', plan_id: inst.plans.hmo, start_date: '2027-01-01', end_date: null, coverage_level: 'employee_and_one_dependent', qualifying_life_event_id: first.json().qualifying_life_event.id }),
    ])
    // The child leaves the plan at the end of March: the subscriber's level changes from April.
    const second = await post(
      inst,
      eventBody(inst, {
        external_identifier: 'qle-2',
        plan_elections: { medical: { type: 'election', plan_id: inst.plans.hmo, coverages: [{ member_id: inst.dependentId, start_date: '2027-01-01', end_date: '2027-03-31', status: 'employer_sponsored' }] } },
      }),
    )
    expect(second.statusCode, second.body).toBe(201)
    const history = (await call(t.app, inst.partner, 'GET', `/members/${inst.subscriberId}/coverages?as_of=all`)).json()
    // The answer is JSON text built by PostgreSQL: it must still be what the schema documents.
    const answers = Compile(MemberCoverageList)
    expect(answers.Check(history), JSON.stringify([...answers.Errors(history)].slice(0, 3))).toBe(true)
    expect(answers.Check(today.json())).toBe(true)
    expect(history.as_of).toBeNull()
    expect(history.coverages.map((c: { start_date: string; end_date: string | null; coverage_level: string }) => [c.start_date, c.end_date, c.coverage_level])).toEqual([
      ['2027-01-01', '2027-03-31', 'employee_and_one_dependent'],
      ['2027-04-01', null, 'employee_only'],
    ])
    expect((await call(t.app, inst.partner, 'GET', `/members/${inst.dependentId}/coverages?as_of=2027-04-01`)).json().coverages).toEqual([])

    const events = [{ id: second.json().qualifying_life_event.id, coverage_period_id: inst.coveragePeriodId, event: 'initial_enrollment', date: '2027-01-01', eligibility_start_date: '2027-01-01' }]
    expect((await call(t.app, inst.partner, 'GET', `/subscribers/${inst.subscriberId}`)).json().subscriber.current_qualifying_life_events).toEqual(events)
    const listed = (await call(t.app, inst.partner, 'GET', `/groups/${inst.groupId}/subscribers`)).json().subscribers
    expect(listed.find((s: { id: string }) => s.id === inst.subscriberId).current_qualifying_life_events).toEqual(events)
  })

  it("when coverages are read with a bad date or from another account, then 422 at as_of or 404", async () => {
    const inst = await installation()
    for (const asOf of ['2027-13-01', '2027-02-30', '0000-01-01', 'never']) {
      const bad = await call(t.app, inst.partner, 'GET', `/members/${inst.subscriberId}/coverages?as_of=${asOf}`)
      expect(bad.statusCode, bad.body).toBe(422)
      expect(bad.json().errors).toEqual([expect.objectContaining({ parameter: 'as_of' })])
    }
    const stranger = await t.newPartner()
    const hidden = await call(t.app, stranger, 'GET', `/members/${inst.subscriberId}/coverages`)
    expect(hidden.statusCode).toBe(404)
    expect(hidden.json().code).toBe('member_not_found')
  })

  it('when a coverage ends more than a day before it starts, then 422 end_before_start at its end_date', async () => {
    const inst = await installation()
    const body = eventBody(inst)
    Object.assign(body.qualifying_life_event.plan_elections.medical.coverages[0]!, { end_date: '2026-12-30' })
    expectProblem(await post(inst, body), 422, 'validation_failed', '/qualifying_life_event/plan_elections/medical/coverages/0/end_date', 'end_before_start')
  })

  it("when a coverage ends the day before it starts (Ideon's never effective), then it is accepted and the member holds nothing on that line", async () => {
    const inst = await installation()
    const body = eventBody(inst)
    Object.assign(body.qualifying_life_event.plan_elections.medical.coverages[0]!, { end_date: '2026-12-31' })
    const res = await post(inst, body)
    expect(res.statusCode, res.body).toBe(201)
    const held = await call(t.app, inst.partner, 'GET', `/members/${inst.subscriberId}/coverages?as_of=all`)
    expect(held.statusCode, held.body).toBe(200)
    expect(held.json().coverages).toEqual([])
  })

  it('when an election lacks plan_id and coverages and a waiver carries a plan_id, then every problem is listed at once', async () => {
    const inst = await installation()
    const res = await post(
      inst,
      eventBody(inst, {
        plan_elections: {
          medical: { type: 'election', waiver_reason: 'none' },
          dental: { type: 'waiver', plan_id: inst.plans.dental },
        },
      }),
    )
    expect(res.statusCode).toBe(422)
    expect(res.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([
      ['/qualifying_life_event/plan_elections/medical/waiver_reason', 'not_allowed_for_election'],
      ['/qualifying_life_event/plan_elections/medical/plan_id', 'required'],
      ['/qualifying_life_event/plan_elections/medical/coverages', 'required'],
      ['/qualifying_life_event/plan_elections/dental/plan_id', 'not_allowed_for_waiver'],
    ])
  })

  it('when plan_elections is empty, then 422 required at /plan_elections', async () => {
    const inst = await installation()
    expectProblem(await post(inst, eventBody(inst, { plan_elections: {} })), 422, 'validation_failed', '/qualifying_life_event/plan_elections', 'required')
  })

  it('when plan_elections has an unknown key or the event an unknown value, then the schema refuses it with 422', async () => {
    const inst = await installation()
    const res = await post(inst, eventBody(inst, { event: 'promotion', plan_elections: { pet: { type: 'waiver' } } }))
    expect(res.statusCode).toBe(422)
    expect(res.json().code).toBe('validation_failed')
  })

  it('when the external_identifier is already used for the subscriber, then 409 duplicate_external_identifier', async () => {
    const inst = await installation()
    expect((await post(inst, eventBody(inst))).statusCode).toBe(201)
    expectProblem(await post(inst, eventBody(inst)), 409, 'duplicate_external_identifier', '/qualifying_life_event/external_identifier')
  })

  it("when another account's subscriber or event is addressed, then 404 and nothing is revealed", async () => {
    const owner = await installation()
    const event = (await post(owner, eventBody(owner))).json().qualifying_life_event
    const other = await t.newPartner('Other partner')
    const read = await call(t.app, other, 'GET', `/qualifying_life_events/${event.id}`)
    expect(read.statusCode).toBe(404)
    expect(read.json().code).toBe('qualifying_life_event_not_found')
    const list = await call(t.app, other, 'GET', `/subscribers/${owner.subscriberId}/qualifying_life_events`)
    expect(list.json().code).toBe('subscriber_not_found')
    const create = await call(t.app, other, 'POST', `/subscribers/${owner.subscriberId}/qualifying_life_events`, eventBody(owner))
    expect(create.statusCode).toBe(404)
    expect(create.json().code).toBe('subscriber_not_found')
    expect(await t.db.selectFrom('qualifying_life_events').select('id').where('subscriber_id', '=', owner.subscriberId).execute()).toHaveLength(1)
  })

  it("when an operator (service credential) adds and reads a partner's event, then it is stored in the partner's account", async () => {
    const inst = await installation()
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'POST', `/subscribers/${inst.subscriberId}/qualifying_life_events`, eventBody(inst))
    expect(res.statusCode, res.body).toBe(201)
    const id = res.json().qualifying_life_event.id
    expect((await call(t.app, operator, 'GET', `/qualifying_life_events/${id}`)).statusCode).toBe(200)
    const row = await t.db.selectFrom('qualifying_life_events').select('account_id').where('id', '=', id).executeTakeFirstOrThrow()
    expect(row.account_id).toBe(inst.partner.accountId)
  })

  it('when a dependent id is used as the subscriber, then 404 subscriber_not_found', async () => {
    const inst = await installation()
    const res = await post(inst, eventBody(inst), inst.dependentId)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('subscriber_not_found')
  })
})
