import pino from 'pino'
import { afterAll, beforeAll, expect } from 'vitest'
import { createWorkers, type Workers } from '../../src/main/workers.js'
import type { CarrierSettings } from '../../src/modules/carrier-delivery/carrier-settings.js'
import { CarrierCatalog } from '../../src/modules/carriers/carriers.catalog.js'
import { call, startTestApp, testSsnProtection, type Credential, type TestApp } from './test-app.js'
import { openIsolatedDatabase, testCarrierSettings, testWebhookSettings } from './webhooks.js'

/** A group installed through the API up to complete setup, with the ids a carrier-side test needs. */
export interface ApiInstallation {
  installmentId: string
  groupId: string
  coveragePeriodId: string
  planId: string
  workOrderId: string
  /** Subscribers in creation order, each with its dependents' ids. */
  families: { subscriberId: string; dependentIds: string[] }[]
}

const ok = (res: { statusCode: number; body: string }, status = 201) => {
  expect(res.statusCode, res.body).toBe(status)
  return JSON.parse(res.body)
}

/** Valid SSNs (area 1xx, group and serial non-zero), distinct per family and member. */
const ssnOf = (family: number, member: number) => `1${String(family).padStart(2, '0')}${String(member + 1).padStart(2, '0')}${String(1000 + family).slice(-4)}`

/** Step 1 through the API: a group installment with the carrier, its group and primary location. */
export async function createInstallment(t: TestApp, partner: Credential, carrierName: string, externalIdentifier: string) {
  const installment = ok(
    await call(t.app, partner, 'POST', '/group_installments', {
      group: {
        external_identifier: externalIdentifier,
        insurance_market: 'small_group',
        employer: { organization_name: 'Acme Widgets Inc.', fein: '123456789', employer_type: 'corporation', census: { employees: 10, full_time_equivalent_employees: 10, eligible_employees: 10 } },
        group_setup: { carrier_name: carrierName },
        primary_location: {
          external_identifier: 'hq',
          type: 'physical',
          employer_address: { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
        },
        producers_of_record: [
          { first_name: 'Pat', last_name: 'Broker', national_producer_number: '1234567', email: 'pat@example.com', signature_date: '2026-10-15', commission_split: 100, writing_producer: true, agency: null },
        ],
      },
    }),
  ).group_installment
  return { installmentId: installment.id as string, groupId: installment.group.id as string, locationId: installment.group.locations[0].id as string }
}

/**
 * Steps 1 to 7 through the API for `families` families (each a subscriber with a spouse and a
 * child on one PPO plan), so SSNs are sealed and everything is as a client would leave it.
 */
export async function installThroughApi(t: TestApp, partner: Credential, carrierName: string, families = 3): Promise<ApiInstallation> {
  const tag = Math.random().toString(36).slice(2, 8)
  const { installmentId, groupId, locationId } = await createInstallment(t, partner, carrierName, `acme-${tag}`)
  const cp = ok(
    await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
      coverage_period: { external_identifier: 'plan-year-2027', coverage_start_date: '2027-01-01', coverage_end_date: '2027-12-31', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
    }),
  ).coverage_period
  const plan = ok(
    await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/plans`, {
      plan: { external_identifier: 'gold-ppo', description: 'Gold PPO 500', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
    }),
  ).plan
  const subscribers = ok(
    await call(t.app, partner, 'POST', `/groups/${groupId}/subscribers`, {
      subscribers: Array.from({ length: families }, (_, i) => ({
        external_identifier: `emp-${String(i + 1).padStart(4, '0')}`,
        location_id: locationId,
        first_name: `Jane${'abcdefghijklmnopqrstuvwxyz'[i % 26]}`,
        last_name: `Doe${i + 1}`,
        birth_date: '1985-06-15',
        gender: 'female',
        social_security_number: ssnOf(i, 0),
        marital_status: 'married',
        residential_address: { address_line_1: `${12 + i} Elm St`, city: 'Springfield', state: 'IL', zip: '62704' },
        employment_details: { start_date: '2019-03-01', status: 'full_time' },
        dependents: [
          { external_identifier: `emp-${i + 1}-spouse`, first_name: 'John', last_name: `Doe${i + 1}`, birth_date: '1984-02-02', gender: 'male', subscriber_relationship: 'spouse', social_security_number: ssnOf(i, 1) },
          { external_identifier: `emp-${i + 1}-child`, first_name: 'Sam', last_name: `Doe${i + 1}`, birth_date: '2015-09-09', gender: 'male', subscriber_relationship: 'child' },
        ],
      })),
    }),
  ).subscribers as { id: string; dependents: { id: string }[] }[]
  for (const subscriber of subscribers) {
    ok(
      await call(t.app, partner, 'POST', `/subscribers/${subscriber.id}/qualifying_life_events`, {
        qualifying_life_event: {
          coverage_period_id: cp.id,
          event: 'initial_enrollment',
          date: '2027-01-01',
          eligibility_start_date: '2027-01-01',
          plan_elections: {
            medical: {
              type: 'election',
              plan_id: plan.id,
              coverages: [subscriber.id, ...subscriber.dependents.map((d) => d.id)].map((member_id) => ({ member_id, start_date: '2027-01-01', status: 'employer_sponsored' })),
            },
          },
        },
      }),
    )
  }
  const workOrder = ok(await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/complete_setup`)).work_order
  return {
    installmentId,
    groupId,
    coveragePeriodId: cp.id,
    planId: plan.id,
    workOrderId: workOrder.id,
    families: subscribers.map((s) => ({ subscriberId: s.id, dependentIds: s.dependents.map((d) => d.id) })),
  }
}

/** Runs the workers until nothing is due, a few rounds (a job may queue another). */
export async function settle(workers: Workers, rounds = 6): Promise<void> {
  for (let i = 0; i < rounds; i++) await workers.drain()
}

/** An app and carrier workers over a database of their own, for tests that run carrier jobs. */
export interface CarrierTestBed {
  t: TestApp
  workers: Workers
  settings: CarrierSettings
  close(): Promise<void>
}

/** What a test file works with on its carrier test bed: the app, its workers and an operator. */
export interface CarrierTestFile {
  t: TestApp
  workers: Workers
  operator: Credential
}

/**
 * One carrier test bed for the tests of a file: started (with an operator) before them, closed
 * after. `use` receives it once started, for the file's own variables:
 * `carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))`.
 */
export function carrierTestBedForFile(use: (bed: CarrierTestFile) => void): void {
  let bed: CarrierTestBed | undefined
  beforeAll(async () => {
    bed = await startCarrierTestBed()
    use({ t: bed.t, workers: bed.workers, operator: await bed.t.newOperator() })
  })
  afterAll(async () => bed?.close())
}

/**
 * Its own database because the workers claim every due job: on a shared database they would act
 * on other test files' work orders. Workers are not started: tests drain them step by step.
 */
export async function startCarrierTestBed(options: { carriers?: CarrierCatalog; settings?: Partial<CarrierSettings> } = {}): Promise<CarrierTestBed> {
  const isolated = await openIsolatedDatabase()
  const settings = testCarrierSettings(options.settings)
  const carriers = options.carriers ?? new CarrierCatalog()
  const t = await startTestApp({ database: isolated.handle, carriers, carrierSide: settings })
  const workers = createWorkers({
    db: isolated.handle.db,
    log: pino({ level: 'silent' }),
    worker: { concurrency: 2, pollMs: 20 },
    staleAfterMs: 300_000,
    webhooks: testWebhookSettings(),
    housekeeping: false,
    carrierSide: { ssn: testSsnProtection(), carriers, settings },
  })
  return {
    t,
    workers,
    settings,
    async close() {
      await t.close()
      await isolated.close()
    },
  }
}
