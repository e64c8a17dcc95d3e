import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { installThroughApi, settle, type ApiInstallation, carrierTestBedForFile } from './helpers/carrier-side.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * The member management phase with a real (non-sandbox) edi carrier: every change becomes a
 * transaction, changes travel together in one change file, and nothing is recorded before the
 * group is installed.
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const transactionsOf = (coveragePeriodId: string) =>
  t.db.selectFrom('member_transactions').select(['kind', 'status', 'member_id', 'file_delivery_id']).where('coverage_period_id', '=', coveragePeriodId).orderBy('created_at').orderBy('id').execute()

async function installed(partner: Credential): Promise<ApiInstallation> {
  const install = await installThroughApi(t, partner, 'aetna', 2)
  for (const status of ['in_progress', 'submitted']) {
    expect((await call(t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status, message: status })).statusCode).toBe(200)
  }
  await settle(workers)
  const done = await call(t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status: 'completed', message: 'Installed.', carrier_group_number: 'AET-77' })
  expect(done.statusCode, done.body).toBe(200)
  return install
}

describe('member management', () => {
  it('when the group is still being installed, then a member change records no transaction', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'aetna', 1)
    const res = await call(t.app, partner, 'POST', `/subscribers/${install.families[0]!.subscriberId}/dependents`, {
      dependent: { external_identifier: 'late-child', first_name: 'Kim', last_name: 'Doe1', birth_date: '2020-01-01', gender: 'female', subscriber_relationship: 'child' },
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(await transactionsOf(install.coveragePeriodId)).toEqual([])
  })

  it('when members change after installation, then each change is a transaction and they travel together in one change file', async () => {
    const partner = await t.newPartner()
    const install = await installed(partner)
    const installation = await transactionsOf(install.coveragePeriodId)
    expect(installation.map((row) => [row.kind, row.status])).toEqual([
      ['installation', 'submitted'],
      ['installation', 'submitted'],
    ])
    const family = install.families[0]!

    // A new hire with a spouse, a newborn of an existing family, and a divorce, each with its life event.
    const created = await call(t.app, partner, 'POST', `/groups/${install.groupId}/subscribers`, {
      subscriber: {
        external_identifier: 'emp-new',
        location_id: (await call(t.app, partner, 'GET', `/groups/${install.groupId}`)).json().group.locations[0].id,
        first_name: 'Noor',
        last_name: 'Newhire',
        birth_date: '1990-01-01',
        gender: 'female',
        social_security_number: '223456789',
        residential_address: { address_line_1: '1 New St', city: 'Springfield', state: 'IL', zip: '62701' },
        employment_details: { start_date: '2027-02-01', status: 'full_time' },
        dependents: [{ external_identifier: 'emp-new-spouse', first_name: 'Omar', last_name: 'Newhire', birth_date: '1989-01-01', gender: 'male', subscriber_relationship: 'spouse' }],
      },
    })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json().subscriber.status).toBe('pending')
    const child = await call(t.app, partner, 'POST', `/subscribers/${family.subscriberId}/dependents`, {
      dependent: { external_identifier: 'baby', first_name: 'Ivy', last_name: 'Doe1', birth_date: '2026-11-20', gender: 'female', subscriber_relationship: 'child' },
    })
    expect(child.statusCode, child.body).toBe(201)
    const newHire = created.json().subscriber as { id: string; dependents: { id: string }[] }
    const event = (subscriberId: string, body: Record<string, unknown>) =>
      call(t.app, partner, 'POST', `/subscribers/${subscriberId}/qualifying_life_events`, { qualifying_life_event: { coverage_period_id: install.coveragePeriodId, ...body } })
    const medical = (coverages: Record<string, unknown>[]) => ({ medical: { type: 'election', plan_id: install.planId, coverages } })
    const hired = await event(newHire.id, {
      event: 'new_hire',
      date: '2027-02-01',
      eligibility_start_date: '2027-02-01',
      plan_elections: medical([newHire.id, newHire.dependents[0]!.id].map((member_id) => ({ member_id, start_date: '2027-02-01', status: 'employer_sponsored' }))),
    })
    expect(hired.statusCode, hired.body).toBe(201)
    const birth = await event(family.subscriberId, {
      event: 'birth',
      date: '2026-11-24',
      eligibility_start_date: '2027-01-01',
      plan_elections: medical([{ member_id: child.json().dependent.id, start_date: '2027-01-01', status: 'employer_sponsored' }]),
    })
    expect(birth.statusCode, birth.body).toBe(201)
    const divorced = install.families[1]!
    const divorce = await event(divorced.subscriberId, {
      event: 'divorce',
      date: '2027-03-15',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical([{ member_id: divorced.dependentIds[0]!, start_date: '2027-01-01', end_date: '2027-03-31', status: 'employer_sponsored' }]),
    })
    expect(divorce.statusCode, divorce.body).toBe(201)

    const pending = (await transactionsOf(install.coveragePeriodId)).filter((row) => row.kind !== 'installation')
    expect(pending.map((row) => [row.kind, row.status])).toEqual([
      ['subscriber_created', 'pending'],
      ['dependent_created', 'pending'],
      ['dependent_created', 'pending'],
      ['qualifying_life_event', 'pending'],
      ['qualifying_life_event', 'pending'],
      ['qualifying_life_event', 'pending'],
    ])

    await settle(workers)
    const deliveries = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(deliveries.map((d: { kind: string; status: string; transaction_count: number; last_error: string | null }) => [d.kind, d.status, d.transaction_count, d.last_error])).toEqual([
      ['change', 'sent', 6, null],
      ['full', 'sent', 2, null],
    ])
    const file = (await call(t.app, operator, 'GET', `/file_deliveries/${deliveries[0].id}/content`)).body
    expectValid834(file)
    expect(file).toContain('BGN*00*')
    const loops = file.split('~').map((segment) => segment.trim()).filter((segment) => segment.startsWith('INS*'))
    expect(loops).toEqual([
      // The new hire and its spouse: new enrollments.
      'INS*Y*18*021*28*A***FT',
      'INS*N*01*021*28*A',
      // The newborn joins a family already covered as a family: the subscriber's level stays FAM, so it is not sent.
      'INS*N*19*021*02*A',
      // The divorce: the ex-spouse's coverage ends; the subscriber's level goes from FAM to ECH.
      'INS*Y*18*001*01*A***FT',
      'INS*N*01*024*01*A',
    ].sort((a, b) => file.indexOf(a) - file.indexOf(b)))
    expect(file).toContain('REF*38*AET-77')

    const after = (await transactionsOf(install.coveragePeriodId)).filter((row) => row.kind !== 'installation')
    expect(after.every((row) => row.status === 'submitted' && row.file_delivery_id === deliveries[0].id)).toBe(true)
    expect((await call(t.app, partner, 'GET', `/subscribers/${created.json().subscriber.id}`)).json().subscriber.status).toBe('submitted')
  })
})
