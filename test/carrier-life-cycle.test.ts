import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import type { CarrierSettings } from '../src/modules/carrier-delivery/carrier-settings.js'
import { installThroughApi, settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { insertWatcher } from './helpers/error-fixtures.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * The whole carrier side end to end, on both sandbox carriers: the operations team submits the
 * work order, the group goes out in full, the sandbox carrier installs it and answers with a
 * census holding its deliberate differences, a member change travels as a change delivery, and
 * the next census settles it. Workers are drained by hand so every step is observable.
 */
let bed: CarrierTestBed
let t: TestApp
let workers: Workers
let settings: CarrierSettings
let operator: Credential

beforeAll(async () => {
  bed = await startCarrierTestBed()
  ;({ t, workers, settings } = bed)
  operator = await t.newOperator()
})
afterAll(async () => bed?.close())

const move = (workOrderId: string, status: string) => call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status, message: `moved to ${status}` })

const reconciliationErrors = async (coveragePeriodId: string) =>
  t.db
    .selectFrom('errors')
    .select(['id', 'member_id', 'discrepancy_parameter as parameter', 'discrepancy_kind as kind', 'status', 'census_request_id', 'transaction_ids'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .where('source', '=', 'reconciliation')
    .orderBy('discrepancy_parameter')
    .execute()

describe.each(['sandbox_edi', 'sandbox_api'])('the carrier life cycle with %s', (carrierName) => {
  it('when the order is submitted, then the sandbox installs the group, reconciles its census and takes a member change', async () => {
    const partner = await t.newPartner()
    await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed', 'census_request.completed', 'coverage_period.state_changed'])
    const install = await installThroughApi(t, partner, carrierName, 3)

    // Operations: start, then submit; the coverage period goes to test and the full delivery opens.
    expect((await move(install.workOrderId, 'in_progress')).statusCode).toBe(200)
    expect((await move(install.workOrderId, 'submitted')).statusCode).toBe(200)
    const cpInTest = await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}`)
    expect(cpInTest.json().coverage_period.state).toBe('test')

    await settle(workers)

    // The full delivery was built and sent, and the sandbox installed the group.
    const deliveries = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(deliveries).toHaveLength(1)
    const [full] = deliveries
    expect(full).toMatchObject({ kind: 'full', status: 'sent', channel: carrierName === 'sandbox_edi' ? 'edi' : 'api', member_count: 9 })
    const content = await call(t.app, operator, 'GET', `/file_deliveries/${full.id}/content`)
    expect(content.statusCode).toBe(200)
    if (carrierName === 'sandbox_edi') {
      expectValid834(content.body)
      expect(content.body).toContain('BGN*00*')
      const written = readFileSync(join(settings.outboundDirectory, carrierName, full.file_name), 'utf8')
      expect(written).toBe(content.body)
      expect(readdirSync(join(settings.outboundDirectory, carrierName)).filter((name) => name.endsWith('.part'))).toEqual([])
    } else {
      expect(JSON.parse(content.body).members).toHaveLength(9)
    }
    // The file carries the SSNs the carrier needs; the stored copy keeps them sealed.
    if (carrierName === 'sandbox_edi') expect(content.body).toContain('*34*100011000')
    const stored = await t.db.selectFrom('file_delivery_chunks').select('data').where('file_delivery_id', '=', full.id).execute()
    expect(Buffer.concat(stored.map((row) => row.data)).toString('latin1')).not.toContain('100011000')
    const transmissions = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/coverage_transmissions?per_page=100`)).json().coverage_transmissions
    expect(transmissions).toHaveLength(9)

    const workOrder = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/work_order`)).json().work_order
    expect(workOrder.status).toBe('completed')
    const cp = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}`)).json().coverage_period
    expect(cp).toMatchObject({ state: 'production', carrier_group_number: expect.stringMatching(/^SBX-/) })
    expect((await call(t.app, partner, 'GET', `/groups/${install.groupId}`)).json().group.phase).toBe('member_management')

    // The census: the deliberate differences, and nothing for mere spelling.
    const census = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/census_requests`)).json().census_requests
    expect(census).toHaveLength(1)
    expect(census[0]).toMatchObject({ format: carrierName === 'sandbox_edi' ? 'x12_834' : 'json', subscriber_count: 3, errors_created: 3 })
    // The carrier's census named the SSNs to match on; what is kept of it holds them masked.
    const storedCensus = await t.db.selectFrom('census_subscribers').select('data').where('census_request_id', '=', census[0].id).execute()
    expect(JSON.stringify(storedCensus)).toContain('***-**-1000')
    expect(JSON.stringify(storedCensus)).not.toContain('100011000')
    const raised = await reconciliationErrors(install.coveragePeriodId)
    expect(raised.map((e) => [e.parameter, e.kind, e.status])).toEqual([
      ['birth_date', 'carrier_value_differs', 'unresolved'],
      ['dependent', 'carrier_missing', 'unresolved'],
      ['residential_address', 'carrier_value_differs', 'unresolved'],
    ])
    const address = raised.find((e) => e.parameter === 'residential_address')!
    expect(address.member_id).toBe(install.families[0]!.subscriberId)
    expect(address.census_request_id).toBe(census[0].id)
    // The family's installation transaction is the one the carrier's census contradicts.
    const installation = await t.db.selectFrom('member_transactions').select(['id', 'status']).where('subscriber_id', '=', install.families[0]!.subscriberId).execute()
    expect(installation).toEqual([{ id: expect.any(String), status: 'errors' }])
    expect(address.transaction_ids).toEqual([installation[0]!.id])
    const shown = (await call(t.app, partner, 'GET', `/errors/${address.id}`)).json().error
    expect(shown.census_requests).toMatchObject({ id: census[0].id, status: 'completed' })
    expect(shown.discrepancy.carrier).toMatchObject({ address_line_1: '1 Carrier Records Way' })

    // A member change: the partner corrects the first subscriber's address. It becomes a pending
    // transaction, then a change delivery, then the sandbox's next census settles it.
    const subscriberId = install.families[0]!.subscriberId
    const current = (await call(t.app, partner, 'GET', `/subscribers/${subscriberId}`)).json().subscriber
    const { id: _id, group_id: _g, status: _s, current_qualifying_life_events: _e, dependents: _d, created_at: _c, updated_at: _u, social_security_number: _ssn, ...fields } = current
    const update = await call(t.app, partner, 'PUT', `/subscribers/${subscriberId}`, {
      subscriber: { ...fields, residential_address: { ...fields.residential_address, address_line_1: '99 Oak Ave' } },
    })
    expect(update.statusCode, update.body).toBe(200)
    expect(update.json().subscriber.status).toBe('pending')

    await settle(workers)

    const after = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(after.map((d: { kind: string; status: string }) => [d.kind, d.status])).toEqual([
      ['change', 'sent'],
      ['full', 'sent'],
    ])
    expect(after[0].transaction_count).toBe(1)
    expect(after[1].transaction_count).toBe(3)
    if (carrierName === 'sandbox_edi') {
      const change = await call(t.app, operator, 'GET', `/file_deliveries/${after[0].id}/content`)
      expectValid834(change.body)
      expect(change.body).toContain('INS*Y*18*001*25')
    }
    const memberTransmissions = (await call(t.app, partner, 'GET', `/members/${subscriberId}/coverage_transmissions`)).json().coverage_transmissions
    expect(memberTransmissions.length).toBeGreaterThanOrEqual(1)

    const settled = (await call(t.app, partner, 'GET', `/subscribers/${subscriberId}`)).json().subscriber
    expect(settled.status).toBe('synced')
    const afterChange = await reconciliationErrors(install.coveragePeriodId)
    expect(afterChange.find((e) => e.parameter === 'residential_address')!.status).toBe('resolved')
    expect(afterChange.find((e) => e.parameter === 'birth_date')!.status).toBe('unresolved')

    // Webhooks: the subscriber's status went pending → submitted → synced; each census completed.
    const events = await t.db.selectFrom('watcher_deliveries').select(['event_type', 'payload']).where('account_id', '=', partner.accountId).orderBy('created_at').orderBy('id').execute()
    const statuses = events
      .filter((e) => e.event_type === 'subscriber.status_changed')
      .map((e) => (e.payload as { data: { subscriber_id: string; status: string } }).data)
      .filter((data) => data.subscriber_id === subscriberId)
      .map((data) => data.status)
    // Installation: submitted with the full file, errors once the census showed the address; then
    // the change: pending, submitted, synced.
    expect(statuses).toEqual(['submitted', 'errors', 'pending', 'submitted', 'synced'])
    expect(events.filter((e) => e.event_type === 'census_request.completed')).toHaveLength(2)
    for (const event of events) expect(JSON.stringify(event.payload)).not.toMatch(/1985-06-15|Elm St|Jane/)
    // An installation, a census and a change through the sandbox: 5.7 s in CI and 11.5 s on a loaded machine, of the 30 s default.
  }, 60_000)
})
