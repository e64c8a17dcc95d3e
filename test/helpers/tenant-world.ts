import { expect } from 'vitest'
import { uuidv7 } from '../../src/lib/ids.js'
import { installThroughApi, settle, type CarrierTestBed } from './carrier-side.js'
import { insertWatcher, registerUser } from './error-fixtures.js'
import { call, systemActor, type Credential } from './test-app.js'

/**
 * One partner account with a resource of every kind the API names by id, keyed by the collection
 * segment its routes use (`/errors/{id}` → `errors`). Generated suites (tenancy, fuzz) look ids up
 * by that segment, so a route under a new collection needs one new entry here.
 */
export interface TenantWorld {
  partner: Credential
  /** A registered, active user of the account: a valid `created_by`. */
  userEmail: string
  ids: Record<string, string>
}

const ok = (res: { statusCode: number; body: string }, status = 201) => {
  expect(res.statusCode, res.body).toBe(status)
  return JSON.parse(res.body)
}

/** The operator's user: errors raised by hand name one as created_by. */
export const OPERATOR_USER_EMAIL = 'ops@example.com'

export async function registerOperatorUser(bed: CarrierTestBed, operator: Credential): Promise<void> {
  await registerUser(bed.t, operator, OPERATOR_USER_EMAIL, [])
}

/**
 * Installs a group through the API up to a sent 834 (with the sandbox carrier's acknowledgements),
 * then adds what installing leaves out: a classification, a user, a census request, an error with a
 * comment, a watcher with a delivery, and a spare API key (so revoking it spares the key in use).
 */
export async function buildTenantWorld(bed: CarrierTestBed, operator: Credential, name: string): Promise<TenantWorld> {
  const { t } = bed
  const partner = await t.newPartner(name)
  const install = await installThroughApi(t, partner, 'sandbox_edi', 1)
  const family = install.families[0]!
  const group = ok(await call(t.app, partner, 'GET', `/groups/${install.groupId}`), 200).group
  const classification = ok(
    await call(t.app, partner, 'POST', `/groups/${install.groupId}/employment_classifications`, {
      employment_classification: { external_identifier: 'north', description: 'North rating region', type: 'region', start_date: '2027-01-01', carrier_identifier: 'R-NORTH' },
    }),
  ).employment_classification
  const lifeEvent = ok(await call(t.app, partner, 'GET', `/subscribers/${family.subscriberId}/qualifying_life_events`), 200).qualifying_life_events[0]
  // The examples of openapi.json name jane.doe@example.com as created_by: registered in every world.
  const userEmail = 'jane.doe@example.com'
  const user = await registerUser(t, partner, userEmail)

  for (const status of ['in_progress', 'submitted']) {
    ok(await call(t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status, message: status }), 200)
  }
  await settle(bed.workers)
  const [delivery] = ok(await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`), 200).file_deliveries

  const censusRequestId = uuidv7()
  await t.db
    .insertInto('census_requests')
    .values({
      id: censusRequestId,
      account_id: partner.accountId,
      coverage_period_id: install.coveragePeriodId,
      group_id: install.groupId,
      format: 'json',
      submitted_by: 'operations key',
      as_of: '2027-01-15',
      status: 'completed',
      content_sha256: 'ab'.repeat(32),
      errors: '[]',
    })
    .execute()

  const error = ok(
    await call(t.app, operator, 'POST', `/coverage_periods/${install.coveragePeriodId}/errors`, {
      error: { source: 'error_report', discrepancy: { parameter: 'birth_date', carrier: '1985-03-15', platform: '1985-06-15' }, member_id: family.subscriberId, created_by: OPERATOR_USER_EMAIL },
    }),
  ).error
  ok(await call(t.app, partner, 'POST', `/errors/${error.id}/comments`, { message: 'Looking into it.', created_by: userEmail }))

  const watcherId = await insertWatcher(t.db, partner.accountId)
  const watcherDeliveryId = uuidv7()
  await t.db
    .insertInto('watcher_deliveries')
    .values({ id: watcherDeliveryId, account_id: partner.accountId, watcher_id: watcherId, event_id: uuidv7(), event_type: 'error.created', payload: JSON.stringify({ type: 'error.created', data: {} }), created_at: new Date(), updated_at: new Date() })
    .execute()

  const spareKey = await t.services.accounts.createApiKey(systemActor(partner.accountId), partner.accountId, 'spare key')
  // Jobs are the service's, not an account's; any job id serves the operator-only /jobs/{id}.
  const job = await t.db.selectFrom('jobs').select('id').limit(1).executeTakeFirstOrThrow()

  return {
    partner,
    userEmail,
    ids: {
      accounts: partner.accountId,
      api_keys: spareKey.id,
      users: user.id,
      groups: install.groupId,
      group_installments: install.installmentId,
      locations: group.locations[0].id,
      coverage_periods: install.coveragePeriodId,
      plans: install.planId,
      employment_classifications: classification.id,
      work_orders: install.workOrderId,
      file_deliveries: delivery.id,
      census_requests: censusRequestId,
      members: family.subscriberId,
      subscribers: family.subscriberId,
      dependents: family.dependentIds[0]!,
      qualifying_life_events: lifeEvent.id,
      errors: error.id,
      watchers: watcherId,
      watcher_deliveries: watcherDeliveryId,
      jobs: job.id,
    },
  }
}
