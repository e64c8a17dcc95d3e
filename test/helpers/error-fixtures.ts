import { expect } from 'vitest'
import type { Db } from '../../src/db/schema.js'
import { uuidv7 } from '../../src/lib/ids.js'
import { EVENT_TYPES } from '../../src/modules/events/events.js'
import { insertLifeEvent, insertMember, insertPlan, insertReadySetup, type MemberRow, type PlanRow, type ReadySetup } from './setup-factories.js'
import { call, type Credential, type TestApp } from './test-app.js'

/** A registered user of the credential's account, through the API. */
export async function registerUser(t: TestApp, who: Credential, email: string, roleNames: string[] = ['benefits_admin']) {
  const res = await call(t.app, who, 'POST', '/users', { user: { email, role_names: roleNames } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().user as { id: string; email: string; created_at: string; role_names: string[] }
}

export interface PcpSetup extends ReadySetup {
  hmo: PlanRow
  /** A subscriber and its child, both elected into the HMO without a provider selection. */
  parent: MemberRow
  child: MemberRow
  /** The PCP errors complete setup raised, by member id. */
  errorIdOf: Map<string, string>
}

/**
 * A coverage period of a carrier that requires a PCP for HMOs, completed through the API, so it
 * has two PCP errors (a parent and a child elected into the HMO without a selection).
 */
export async function completedPcpSetup(t: TestApp, partner: Credential): Promise<PcpSetup> {
  const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_edi' })
  const hmo = await insertPlan(t.db, setup.coveragePeriod, { productType: 'health_maintenance_organization' })
  const parent = await insertMember(t.db, setup.group, { firstName: 'Parentname' })
  const child = await insertMember(t.db, setup.group, { subscriberId: parent.id, firstName: 'Childname' })
  await insertLifeEvent(t.db, parent, setup.coveragePeriod, [{ key: 'medical', plan: hmo, members: [parent, child] }])
  const res = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
  expect(res.statusCode, res.body).toBe(201)
  const rows = await t.db.selectFrom('errors').select(['id', 'member_id']).where('coverage_period_id', '=', setup.coveragePeriod.id).execute()
  expect(rows).toHaveLength(2)
  return { ...setup, hmo, parent, child, errorIdOf: new Map(rows.map((row) => [row.member_id!, row.id])) }
}

/** A watcher row written straight into the table (the watchers API is another module's). */
export async function insertWatcher(db: Db, accountId: string, eventTypes: readonly string[] = EVENT_TYPES): Promise<string> {
  const id = uuidv7()
  await db
    .insertInto('watchers')
    .values({
      id,
      account_id: accountId,
      url: 'https://hooks.example.com/enrollsync',
      event_types: [...eventTypes],
      coverage_period_id: null,
      group_id: null,
      description: null,
      secret: 'whsec_test',
      previous_secret: null,
      previous_secret_expires_at: null,
      disabled_reason: null,
      created_at: new Date(),
      updated_at: new Date(),
      deleted_at: null,
    })
    .execute()
  return id
}

export interface Delivered {
  type: string
  text: string
  data: Record<string, unknown>
}

/** What a watcher was sent, oldest first, with the payload's text for leak checks. */
export async function deliveriesOf(db: Db, watcherId: string): Promise<Delivered[]> {
  const rows = await db.selectFrom('watcher_deliveries').select(['event_type', 'payload']).where('watcher_id', '=', watcherId).orderBy('created_at').orderBy('id').execute()
  return rows.map((row) => {
    const payload = row.payload as { data: Record<string, unknown> }
    return { type: row.event_type, text: JSON.stringify(payload), data: payload.data }
  })
}

/** POST /coverage_periods/{id}/errors as an operator. */
export function raiseByHand(t: TestApp, operator: Credential, coveragePeriodId: string, error: Record<string, unknown>) {
  return call(t.app, operator, 'POST', `/coverage_periods/${coveragePeriodId}/errors`, { error })
}
