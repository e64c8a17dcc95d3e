import pino from 'pino'
import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { createWorkers } from '../src/main/workers.js'
import { createCoveragePeriodExpiryCheck, expireCoveragePeriods } from '../src/modules/coverage-periods/coverage-period-expiry.js'
import { isFirstCoveragePeriodWithCarrier } from '../src/modules/coverage-periods/coverage-periods.repo.js'
import { CarrierCatalog } from '../src/modules/carriers/carriers.catalog.js'
import { installThroughApi, settle, type ApiInstallation, carrierTestBedForFile } from './helpers/carrier-side.js'
import { deliveriesOf, insertWatcher } from './helpers/error-fixtures.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { call, startTestApp, testSsnProtection, type Credential, type TestApp } from './helpers/test-app.js'
import { openIsolatedDatabase, testCarrierSettings, testWebhookSettings, waitFor } from './helpers/webhooks.js'

/**
 * Plan years over time with a clock the tests control: expiry is driven with the date each test
 * passes, and renewals go through the API and the sandbox carriers. The database is this file's
 * own (expiry touches every coverage period of a database, and the workers claim every due job).
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const SIGN_OFF = { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' }
const stateOf = async (who: Credential, coveragePeriodId: string) => (await call(t.app, who, 'GET', `/coverage_periods/${coveragePeriodId}`)).json().coverage_period.state
const move = (workOrderId: string, status: string, extra: Record<string, unknown> = {}) =>
  call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status, message: `moved to ${status}`, ...extra })
const idsOf = (periods: { id: string }[]) => periods.map((cp) => cp.id)

async function addCoveragePeriod(who: Credential, groupId: string, coveragePeriod: Record<string, unknown>) {
  const res = await call(t.app, who, 'POST', `/groups/${groupId}/coverage_periods`, { coverage_period: { employer_sign_off: SIGN_OFF, ...coveragePeriod } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().coverage_period
}

describe('expiry: a coverage period expires the day after its coverage_end_date', () => {
  it('when today is the end date, then the period is current; the day after it expires once, with an audit event and one coverage_period.state_changed', async () => {
    const partner = await t.newPartner()
    const watcher = await insertWatcher(t.db, partner.accountId, ['coverage_period.state_changed'])
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const cp = await addCoveragePeriod(partner, group.id, { external_identifier: 'plan-year-2021', coverage_start_date: '2021-01-01', coverage_end_date: '2021-06-30' })

    expect(idsOf(await expireCoveragePeriods(t.db, '2021-06-30'))).not.toContain(cp.id)
    expect(await stateOf(partner, cp.id)).toBe('initial')
    expect(await deliveriesOf(t.db, watcher)).toEqual([])

    const now = new Date('2021-07-01T00:02:00.000Z')
    expect(idsOf(await expireCoveragePeriods(t.db, '2021-07-01', now))).toContain(cp.id)
    const expired = (await call(t.app, partner, 'GET', `/coverage_periods/${cp.id}`)).json().coverage_period
    expect(expired).toMatchObject({ state: 'expired', updated_at: now.toISOString() })
    const events = await deliveriesOf(t.db, watcher)
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['coverage_period.state_changed', { coverage_period_id: cp.id, group_id: group.id, previous_state: 'initial', state: 'expired' }],
    ])
    const audit = await t.db.selectFrom('audit_events').selectAll().where('resource_id', '=', cp.id).where('action', '=', 'coverage_period.expired').execute()
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ account_id: partner.accountId, channel: 'system', api_key_id: null })

    // Running again, the same day or later, changes and announces nothing.
    expect(idsOf(await expireCoveragePeriods(t.db, '2021-07-01'))).not.toContain(cp.id)
    expect(idsOf(await expireCoveragePeriods(t.db, '2021-09-15'))).not.toContain(cp.id)
    expect(await deliveriesOf(t.db, watcher)).toHaveLength(1)
    expect(await stateOf(partner, cp.id)).toBe('expired')
  })

  it('when two runs overlap, then each period expires and is announced once', async () => {
    const partner = await t.newPartner()
    const watcher = await insertWatcher(t.db, partner.accountId, ['coverage_period.state_changed'])
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const first = await addCoveragePeriod(partner, group.id, { external_identifier: 'a', coverage_start_date: '2021-02-01', coverage_end_date: '2021-07-31' })
    const second = await addCoveragePeriod(partner, group.id, { external_identifier: 'b', coverage_start_date: '2021-03-01', coverage_end_date: '2021-08-31' })

    const runs = await Promise.all([expireCoveragePeriods(t.db, '2021-09-01'), expireCoveragePeriods(t.db, '2021-09-01')])
    const expiredIds = runs.flatMap(idsOf).filter((id) => id === first.id || id === second.id)
    expect(expiredIds.sort()).toEqual([first.id, second.id].sort())
    expect((await deliveriesOf(t.db, watcher)).map((e) => e.data.coverage_period_id).sort()).toEqual([first.id, second.id].sort())
  })

  it('when a period has no coverage_end_date, then it never expires; a period in production reports production as its previous state', async () => {
    const partner = await t.newPartner()
    const watcher = await insertWatcher(t.db, partner.accountId, ['coverage_period.state_changed'])
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const open = await addCoveragePeriod(partner, group.id, { external_identifier: 'open-ended', coverage_start_date: '2021-01-01', coverage_end_date: null })
    const installed = await addCoveragePeriod(partner, group.id, { external_identifier: 'installed', coverage_start_date: '2021-01-01', coverage_end_date: '2021-10-31' })
    await t.db.updateTable('coverage_periods').set({ state: 'production', installed_at: new Date() }).where('id', '=', installed.id).execute()

    const expired = idsOf(await expireCoveragePeriods(t.db, '2021-11-01'))
    expect(expired).toContain(installed.id)
    expect(expired).not.toContain(open.id)
    expect(await deliveriesOf(t.db, watcher)).toMatchObject([{ data: { coverage_period_id: installed.id, previous_state: 'production', state: 'expired' } }])
    expect(idsOf(await expireCoveragePeriods(t.db, '2026-12-31'))).not.toContain(open.id)
    expect(await stateOf(partner, open.id)).toBe('initial')
  })

  it('when today is not a YYYY-MM-DD date, then expiry refuses to guess', async () => {
    await expect(expireCoveragePeriods(t.db, '2021-7-1')).rejects.toThrow(/YYYY-MM-DD/)
  })
})

describe('the scheduled expiry check', () => {
  it('when the clock passes the end date, then the check expires the period, running at most every interval', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const cp = await addCoveragePeriod(partner, group.id, { external_identifier: 'plan-year-2022', coverage_start_date: '2022-01-01', coverage_end_date: '2022-03-31' })
    let clock = new Date('2022-03-31T23:59:00.000Z')
    const check = createCoveragePeriodExpiryCheck(t.db, { clock: () => clock, everyMs: 5 * 60_000 })

    await check() // runs: still the end date (UTC)
    expect(await stateOf(partner, cp.id)).toBe('initial')
    clock = new Date('2022-04-01T00:01:00.000Z')
    await check() // two minutes after the last run: not due yet
    expect(await stateOf(partner, cp.id)).toBe('initial')
    clock = new Date('2022-04-01T00:04:00.000Z')
    await check() // five minutes after the last run
    expect(await stateOf(partner, cp.id)).toBe('expired')
  })

  it("when the service's workers run, then the general worker's polls expire coverage periods by the clock they are given", async () => {
    // A database of its own: started workers claim every due job of theirs.
    const isolated = await openIsolatedDatabase()
    const own = await startTestApp({ database: isolated.handle })
    let running: Workers | undefined
    try {
      const partner = await own.newPartner()
      const { group } = await insertGroupWithLocation(own.db, partner.accountId)
      const res = await call(own.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, {
        coverage_period: { external_identifier: 'plan-year-2027', coverage_start_date: '2027-01-01', coverage_end_date: '2027-12-31', employer_sign_off: SIGN_OFF },
      })
      const cp = res.json().coverage_period
      const stateNow = async () => (await own.db.selectFrom('coverage_periods').select('state').where('id', '=', cp.id).executeTakeFirstOrThrow()).state
      running = createWorkers({
        db: own.db,
        log: pino({ level: 'silent' }),
        worker: { concurrency: 1, pollMs: 20 },
        staleAfterMs: 300_000,
        webhooks: testWebhookSettings(),
        housekeeping: false,
        clock: () => new Date('2028-01-01T00:00:00.000Z'),
        carrierSide: { ssn: testSsnProtection(), carriers: new CarrierCatalog(), settings: testCarrierSettings() },
      })
      running.start()
      // A few polls, which a loaded machine can stretch to seconds.
      expect(await waitFor(async () => ((await stateNow()) === 'expired' ? true : undefined), 20_000, 'the coverage period to expire')).toBe(true)
    } finally {
      await running?.stop()
      await own.close()
      await isolated.close()
    }
    // Opening a database of its own takes most of the 6 s this took in CI; the wait adds up to 20 s.
  }, 60_000)
})

/** The carrier installs the group: the operations team submits its work order and the sandbox carrier completes it. */
async function submitAndSettle(workOrderId: string) {
  expect((await move(workOrderId, 'in_progress')).statusCode).toBe(200)
  const submitted = await move(workOrderId, 'submitted')
  expect(submitted.statusCode, submitted.body).toBe(200)
  await settle(workers)
}

/** Steps 1 to 7 and the carrier's installation of the first plan year (2027). */
async function installedGroup(partner: Credential, carrierName: string): Promise<ApiInstallation & { groupNumber: string }> {
  const install = await installThroughApi(t, partner, carrierName, 2)
  await submitAndSettle(install.workOrderId)
  const cp = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}`)).json().coverage_period
  expect(cp).toMatchObject({ state: 'production', carrier_group_number: expect.stringMatching(/^SBX-/) })
  return { ...install, groupNumber: cp.carrier_group_number }
}

/**
 * The renewal's plans copied, its setup completed before any life event, then open enrollment for
 * every family, each member employer-sponsored unless `statusOf` says otherwise (null: not enrolled).
 */
async function renewPlansAndEnroll(partner: Credential, install: ApiInstallation, renewalId: string, statusOf: (memberId: string) => string | null = () => 'employer_sponsored') {
  const copied = await call(t.app, partner, 'POST', `/coverage_periods/${renewalId}/plans/copy`, { from_coverage_period_id: install.coveragePeriodId })
  expect(copied.statusCode, copied.body).toBe(201)
  const [plan] = copied.json().plans
  expect(plan).toMatchObject({ external_identifier: 'gold-ppo', coverage_period_id: renewalId })

  const setup = await call(t.app, partner, 'POST', `/coverage_periods/${renewalId}/complete_setup`)
  expect(setup.statusCode, setup.body).toBe(201)
  expect(await stateOf(partner, renewalId)).toBe('configuration')

  for (const family of install.families) {
    const res = await call(t.app, partner, 'POST', `/subscribers/${family.subscriberId}/qualifying_life_events`, {
      qualifying_life_event: {
        coverage_period_id: renewalId,
        event: 'open_enrollment',
        date: '2027-11-15',
        eligibility_start_date: '2028-01-01',
        plan_elections: {
          medical: {
            type: 'election',
            plan_id: plan.id,
            coverages: [family.subscriberId, ...family.dependentIds].flatMap((member_id) => {
              const status = statusOf(member_id)
              return status === null ? [] : [{ member_id, start_date: '2028-01-01', status }]
            }),
          },
        },
      },
    })
    expect(res.statusCode, res.body).toBe(201)
  }
  return setup.json().work_order.id as string
}

/** An employee hired for the renewal's year, enrolled from its first day (event new_hire), then married with the spouse covered. */
async function hireIntoRenewal(partner: Credential, install: ApiInstallation, renewalId: string): Promise<void> {
  const colleague = (await call(t.app, partner, 'GET', `/subscribers/${install.families[0]!.subscriberId}`)).json().subscriber
  const hired = await call(t.app, partner, 'POST', `/groups/${install.groupId}/subscribers`, {
    subscribers: [
      {
        external_identifier: 'emp-new-hire',
        location_id: colleague.location_id,
        first_name: 'Nia',
        last_name: 'Okoro',
        birth_date: '1990-04-04',
        gender: 'female',
        social_security_number: '123456780',
        residential_address: { address_line_1: '9 Oak St', city: 'Springfield', state: 'IL', zip: '62704' },
        employment_details: { start_date: '2028-01-01', status: 'full_time' },
      },
    ],
  })
  expect(hired.statusCode, hired.body).toBe(201)
  const subscriberId = hired.json().subscribers[0].id as string
  const [plan] = (await call(t.app, partner, 'GET', `/coverage_periods/${renewalId}/plans`)).json().plans
  const event = await call(t.app, partner, 'POST', `/subscribers/${subscriberId}/qualifying_life_events`, {
    qualifying_life_event: {
      coverage_period_id: renewalId,
      event: 'new_hire',
      date: '2028-01-01',
      eligibility_start_date: '2028-01-01',
      plan_elections: { medical: { type: 'election', plan_id: plan.id, coverages: [{ member_id: subscriberId, start_date: '2028-01-01', status: 'employer_sponsored' }] } },
    },
  })
  expect(event.statusCode, event.body).toBe(201)
  // Married before the renewal's file goes out: the family's latest event is no longer the hire.
  const spouse = await call(t.app, partner, 'POST', `/subscribers/${subscriberId}/dependents`, {
    dependent: { external_identifier: 'new-hire-spouse', first_name: 'Sam', last_name: 'Okoro', birth_date: '1989-05-05', gender: 'male', subscriber_relationship: 'spouse' },
  })
  expect(spouse.statusCode, spouse.body).toBe(201)
  const marriage = await call(t.app, partner, 'POST', `/subscribers/${subscriberId}/qualifying_life_events`, {
    qualifying_life_event: {
      coverage_period_id: renewalId,
      event: 'marriage',
      date: '2028-01-01',
      eligibility_start_date: '2028-01-01',
      plan_elections: {
        medical: { type: 'election', plan_id: plan.id, coverages: [subscriberId, spouse.json().dependent.id].map((member_id) => ({ member_id, start_date: '2028-01-01', status: 'employer_sponsored' })) },
      },
    },
  })
  expect(marriage.statusCode, marriage.body).toBe(201)
}

/** A group installed with one family (employee, spouse, child) and a way to post its first year's events. */
async function firstYear() {
  const partner = await t.newPartner()
  const install = await installedGroup(partner, 'sandbox_edi')
  const { subscriberId, dependentIds } = install.families[0]!
  const ids = { subscriber: subscriberId, spouse: dependentIds[0]!, child: dependentIds[1]! }
  const event = async (kind: string, effective: string, coverages: Record<string, unknown>[]) => {
    const res = await call(t.app, partner, 'POST', `/subscribers/${subscriberId}/qualifying_life_events`, {
      qualifying_life_event: { coverage_period_id: install.coveragePeriodId, event: kind, date: effective, eligibility_start_date: effective, plan_elections: { medical: { type: 'election', plan_id: install.planId, coverages } } },
    })
    expect(res.statusCode, res.body).toBe(201)
  }
  return { partner, install: { ...install, partner }, event, ids }
}

/** The 2028 renewal's full file, open enrollment per `statusOf`, after the first year's files went out: its COBRA members' INS segments. */
async function renewalCobraLoops(install: ApiInstallation & { partner: Credential }, statusOf: (memberId: string) => string | null): Promise<string[]> {
  await settle(workers)
  const renewal = await addCoveragePeriod(install.partner, install.groupId, { external_identifier: 'plan-year-2028', coverage_start_date: '2028-01-01', coverage_end_date: '2028-12-31' })
  await submitAndSettle(await renewPlansAndEnroll(install.partner, install, renewal.id, statusOf))
  const [full] = (await call(t.app, install.partner, 'GET', `/coverage_periods/${renewal.id}/file_deliveries`)).json().file_deliveries
  expect(full).toMatchObject({ kind: 'full', status: 'sent' })
  const content = (await call(t.app, operator, 'GET', `/file_deliveries/${full.id}/content`)).body as string
  return content.split('~').map((segment) => segment.trim()).filter((segment) => segment.startsWith('INS*') && segment.split('*')[5] === 'C')
}

describe('renewal: the next plan year', () => {
  it('when a group installed with a carrier renews with it, then plans copy in one call, setup completes before any event, the full file goes out and the group number is kept', async () => {
    const partner = await t.newPartner()
    const watcher = await insertWatcher(t.db, partner.accountId, ['coverage_period.state_changed'])
    const install = await installedGroup(partner, 'sandbox_edi')
    expect((await call(t.app, partner, 'GET', `/groups/${install.groupId}`)).json().group.phase).toBe('member_management')

    const renewal = await addCoveragePeriod(partner, install.groupId, {
      external_identifier: 'plan-year-2028',
      coverage_start_date: '2028-01-01',
      coverage_end_date: '2028-12-31',
      open_enrollment_start_date: '2027-11-01',
      open_enrollment_end_date: '2027-11-30',
    })
    expect(renewal).toMatchObject({ carrier_name: 'sandbox_edi', carrier_group_number: install.groupNumber, state: 'initial' })
    expect(await isFirstCoveragePeriodWithCarrier(t.db, install.groupId, 'sandbox_edi', install.coveragePeriodId)).toBe(true)
    expect(await isFirstCoveragePeriodWithCarrier(t.db, install.groupId, 'sandbox_edi', renewal.id)).toBe(false)

    const workOrderId = await renewPlansAndEnroll(partner, install, renewal.id)
    await hireIntoRenewal(partner, install, renewal.id)
    await submitAndSettle(workOrderId)

    // The renewal's own full file, with every family's new-year elections.
    const deliveries = (await call(t.app, partner, 'GET', `/coverage_periods/${renewal.id}/file_deliveries`)).json().file_deliveries
    expect(deliveries).toMatchObject([{ kind: 'full', status: 'sent', channel: 'edi', member_count: 8 }])
    // x12-834-notes.md, "Open enrollment / benefit selection": `INS*…*001*EC` (new members
    // `021*EC`), 348 = plan-year start. A replace file adds every member, each by its benefit
    // selection; the first year's full file said `021*28` (new enrollment) for the same people.
    const renewalFile = (await call(t.app, operator, 'GET', `/file_deliveries/${deliveries[0].id}/content`)).body
    const segmentsOf = (file: string) => file.split('~').map((segment) => segment.trim())
    const insOf = (file: string) => segmentsOf(file).filter((segment) => segment.startsWith('INS*')).map((segment) => segment.split('*').slice(3, 5).join('*'))
    // The new hire of the renewal's year is a new enrollment (`021*28`), its spouse too, although
    // the marriage came after the hire.
    const loops = renewalFile.split(/~\s*(?=INS\*)/).slice(1)
    const newHireFamily = loops.filter((loop) => loop.includes('REF*0F*emp-new-hire'))
    expect(newHireFamily.map(insOf)).toEqual([['021*28'], ['021*28']])
    expect(insOf(renewalFile).sort()).toEqual([...Array(2).fill('021*28'), ...Array(6).fill('021*EC')].sort())
    expect(segmentsOf(renewalFile).filter((segment) => segment.startsWith('DTP*348'))).toEqual(Array(8).fill('DTP*348*D8*20280101'))
    const firstYear = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    const firstFull = firstYear.find((d: { kind: string }) => d.kind === 'full')
    expect(insOf((await call(t.app, operator, 'GET', `/file_deliveries/${firstFull.id}/content`)).body)).toEqual(Array(6).fill('021*28'))
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${renewal.id}/work_order`)).json().work_order.status).toBe('completed')
    const installed = (await call(t.app, partner, 'GET', `/coverage_periods/${renewal.id}`)).json().coverage_period
    expect(installed).toMatchObject({ state: 'production', carrier_group_number: install.groupNumber, installed_at: expect.any(String) })
    expect((await call(t.app, partner, 'GET', `/groups/${install.groupId}`)).json().group.phase).toBe('member_management')
    // The installment stays the first plan year's.
    const installment = (await call(t.app, partner, 'GET', `/group_installments/${install.installmentId}`)).json().group_installment
    expect(installment).toMatchObject({ status: 'installed', coverage_period_id: install.coveragePeriodId })

    // The old year runs to its end date and expires the day after; the renewal goes on.
    expect(await stateOf(partner, install.coveragePeriodId)).toBe('production')
    await expireCoveragePeriods(t.db, '2027-12-31')
    expect(await stateOf(partner, install.coveragePeriodId)).toBe('production')
    await expireCoveragePeriods(t.db, '2028-01-01')
    expect(await stateOf(partner, install.coveragePeriodId)).toBe('expired')
    expect(await stateOf(partner, renewal.id)).toBe('production')
    const expiredEvents = (await deliveriesOf(t.db, watcher)).filter((e) => e.data.state === 'expired')
    expect(expiredEvents.map((e) => e.data)).toEqual([{ coverage_period_id: install.coveragePeriodId, group_id: install.groupId, previous_state: 'production', state: 'expired' }])
  })

  it('when an ex-spouse continues under COBRA into the renewal, then its full file names her COBRA by the divorce of the year before (INS07 5)', async () => {
    const { install, event, ids } = await firstYear()
    await event('divorce', '2027-07-01', [{ member_id: ids.spouse, start_date: '2027-01-01', end_date: '2027-06-30', status: 'employer_sponsored' }])
    await event('cobra', '2027-07-01', [{ member_id: ids.spouse, start_date: '2027-07-01', status: 'cobra' }])
    // x12-834-notes.md, COBRA continuation: INS07 5 for a divorce. Until 2026-11-27 a full file read
    // only the family's latest event (the renewal's election) and said 1, a termination.
    expect(await renewalCobraLoops(install, (id) => (id === ids.spouse ? 'cobra' : 'employer_sponsored'))).toEqual(['INS*N*01*021*EC*C**5'])
  })

  it('when the ex-spouse’s COBRA is followed by the employee’s termination and the family’s COBRA, then the renewal says 5 for her and 1 for the others', async () => {
    const { install, event, ids } = await firstYear()
    await event('divorce', '2027-07-01', [{ member_id: ids.spouse, start_date: '2027-01-01', end_date: '2027-06-30', status: 'employer_sponsored' }])
    await event('cobra', '2027-07-01', [{ member_id: ids.spouse, start_date: '2027-07-01', status: 'cobra' }])
    await event('termination_of_employment', '2027-10-01', [ids.subscriber, ids.child].map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-09-30', status: 'employer_sponsored' })))
    await event('cobra', '2027-10-01', [ids.subscriber, ids.child].map((member_id) => ({ member_id, start_date: '2027-10-01', status: 'cobra' })))
    // Each member's INS07 is the event that ended its own active coverage, in whichever plan year.
    expect(await renewalCobraLoops(install, (id) => (Object.values(ids).includes(id) ? 'cobra' : 'employer_sponsored'))).toEqual(['INS*Y*18*021*EC*C**1*FT', 'INS*N*01*021*EC*C**5', 'INS*N*19*021*EC*C**1'])
  })

  it('when a child aged out onto COBRA months after a divorce, then the renewal still says 7 for the child, not 5', async () => {
    const { install, event, ids } = await firstYear()
    await event('divorce', '2027-03-01', [{ member_id: ids.spouse, start_date: '2027-01-01', end_date: '2027-02-28', status: 'employer_sponsored' }])
    await event('loss_of_coverage', '2027-09-01', [{ member_id: ids.child, start_date: '2027-01-01', end_date: '2027-08-31', status: 'employer_sponsored' }])
    await event('cobra', '2027-09-01', [{ member_id: ids.child, start_date: '2027-09-01', status: 'cobra' }])
    expect(await renewalCobraLoops(install, (id) => (id === ids.spouse ? null : id === ids.child ? 'cobra' : 'employer_sponsored'))).toEqual(['INS*N*19*021*EC*C**7'])
  })

  it('when the group moves to another carrier at renewal, then no group number is copied, the new carrier gets its full file and number, and the old period expires at its end', async () => {
    const partner = await t.newPartner()
    const install = await installedGroup(partner, 'sandbox_edi')

    const moved = await addCoveragePeriod(partner, install.groupId, {
      external_identifier: 'plan-year-2028',
      carrier_name: 'sandbox_api',
      coverage_start_date: '2028-01-01',
      coverage_end_date: '2028-12-31',
    })
    expect(moved).toMatchObject({ carrier_name: 'sandbox_api', distribution_format: 'api', carrier_group_number: null })
    expect(await isFirstCoveragePeriodWithCarrier(t.db, install.groupId, 'sandbox_api', moved.id)).toBe(true)

    const workOrderId = await renewPlansAndEnroll(partner, install, moved.id)
    await submitAndSettle(workOrderId)

    const deliveries = (await call(t.app, partner, 'GET', `/coverage_periods/${moved.id}/file_deliveries`)).json().file_deliveries
    expect(deliveries).toMatchObject([{ kind: 'full', status: 'sent', channel: 'api', member_count: 6 }])
    const installed = (await call(t.app, partner, 'GET', `/coverage_periods/${moved.id}`)).json().coverage_period
    expect(installed.state).toBe('production')
    expect(installed.carrier_group_number).toMatch(/^SBX-/)
    expect(installed.carrier_group_number).not.toBe(install.groupNumber)

    await expireCoveragePeriods(t.db, '2028-01-01')
    expect(await stateOf(partner, install.coveragePeriodId)).toBe('expired')
    expect(await stateOf(partner, moved.id)).toBe('production')
    // The old carrier's period keeps the one full file it was installed with.
    const oldDeliveries = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(oldDeliveries.map((d: { kind: string }) => d.kind)).toEqual(['full'])
  })

  it('when the operator completes a renewal by hand without a number, then the kept group number stays; a number given wins', async () => {
    const partner = await t.newPartner()
    const install = await installedGroup(partner, 'sandbox_edi')
    const keep = await addCoveragePeriod(partner, install.groupId, { external_identifier: 'plan-year-2028', coverage_start_date: '2028-01-01', coverage_end_date: '2028-12-31' })
    const copied = await call(t.app, partner, 'POST', `/coverage_periods/${keep.id}/plans/copy`, { from_coverage_period_id: install.coveragePeriodId })
    expect(copied.statusCode, copied.body).toBe(201)
    const workOrder = (await call(t.app, partner, 'POST', `/coverage_periods/${keep.id}/complete_setup`)).json().work_order
    // The operator completes the order before the sandbox acts (it then finds it completed and leaves it).
    expect((await move(workOrder.id, 'in_progress')).statusCode).toBe(200)
    expect((await move(workOrder.id, 'submitted')).statusCode).toBe(200)
    const completed = await move(workOrder.id, 'completed')
    expect(completed.statusCode, completed.body).toBe(200)
    await settle(workers)
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${keep.id}`)).json().coverage_period).toMatchObject({ state: 'production', carrier_group_number: install.groupNumber })

    const renumbered = await addCoveragePeriod(partner, install.groupId, { external_identifier: 'plan-year-2029', coverage_start_date: '2029-01-01', coverage_end_date: '2029-12-31' })
    await call(t.app, partner, 'POST', `/coverage_periods/${renumbered.id}/plans/copy`, { from_coverage_period_id: keep.id })
    const second = (await call(t.app, partner, 'POST', `/coverage_periods/${renumbered.id}/complete_setup`)).json().work_order
    expect((await move(second.id, 'in_progress')).statusCode).toBe(200)
    expect((await move(second.id, 'submitted')).statusCode).toBe(200)
    expect((await move(second.id, 'completed', { carrier_group_number: 'NEW-2029' })).statusCode).toBe(200)
    await settle(workers)
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${renumbered.id}`)).json().coverage_period.carrier_group_number).toBe('NEW-2029')
  })
})

describe('an expired coverage period receives nothing more', () => {
  it('when its work order is moved to submitted or completed, then 422 coverage_period_expired and no file is opened; it can still be cancelled', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'sandbox_edi', 1)
    expect((await move(install.workOrderId, 'in_progress')).statusCode).toBe(200)
    await expireCoveragePeriods(t.db, '2028-01-01')
    expect(await stateOf(partner, install.coveragePeriodId)).toBe('expired')

    const refused = (res: Awaited<ReturnType<typeof move>>) => {
      expect(res.statusCode, res.body).toBe(422)
      expect(res.json()).toMatchObject({ code: 'work_order_transition_not_allowed', errors: [{ pointer: '/status', code: 'coverage_period_expired' }] })
    }
    refused(await move(install.workOrderId, 'submitted'))
    // An order submitted before the plan year ended cannot be completed after it either.
    await t.db.updateTable('work_orders').set({ status: 'submitted' }).where('id', '=', install.workOrderId).execute()
    refused(await move(install.workOrderId, 'completed', { carrier_group_number: 'G-1' }))
    expect((await move(install.workOrderId, 'cancelled')).statusCode).toBe(200)

    await settle(workers)
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries).toEqual([])
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}`)).json().coverage_period).toMatchObject({ state: 'expired', carrier_group_number: null })
  })

  it('when plans are copied into it, then 422 names it expired', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const old = await addCoveragePeriod(partner, group.id, { external_identifier: 'plan-year-2020', coverage_start_date: '2020-01-01', coverage_end_date: '2020-12-31' })
    const next = await addCoveragePeriod(partner, group.id, { external_identifier: 'plan-year-2021', coverage_start_date: '2021-01-01', coverage_end_date: '2021-12-31' })
    await expireCoveragePeriods(t.db, '2021-01-01')
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${old.id}/plans/copy`, { from_coverage_period_id: next.id })
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().errors).toEqual([expect.objectContaining({ parameter: 'id', code: 'coverage_period_expired' })])
  })
})
