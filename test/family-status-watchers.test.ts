import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Executor } from '../src/db/schema.js'
import { uuidv7 } from '../src/lib/ids.js'
import { refreshFamilyStatuses } from '../src/modules/member-management/family-status.js'
import { insertWatcher } from './helpers/error-fixtures.js'
import { insertMember, insertReadySetup, type ReadySetup } from './helpers/setup-factories.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * A family's status follows its latest transaction, and subscriber.status_changed is emitted only
 * when someone watches it: a watcher of the subscriber's account, or any operator's. Who watches
 * is decided in the statement that writes the statuses (one round trip per batch of a census).
 *
 * On PostgreSQL every test file shares one database, and another file's operator watcher would
 * count as watching every account: each case runs in a transaction that first disables every
 * watcher but its own accounts', and is rolled back at the end (nothing it did is seen outside).
 */
let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

class RolledBack extends Error {}

/** Runs `work` with only the watchers of `accounts` active, then rolls everything back. */
async function withOnlyWatchersOf(accounts: readonly string[], work: (tx: Executor) => Promise<void>): Promise<void> {
  await t.db
    .transaction()
    .execute(async (tx) => {
      await tx.updateTable('watchers').set({ status: 'disabled' }).where('status', '=', 'active').where('account_id', 'not in', accounts).execute()
      await work(tx)
      throw new RolledBack()
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error
    })
}

/** A subscriber and a dependent, both pending, whose family's latest transaction has `status`. */
async function familyWithTransaction(accountId: string, status: 'synced' | 'errors') {
  const setup = await insertReadySetup(t.db, accountId)
  const dependent = await insertMember(t.db, setup.group, { subscriberId: setup.subscriber.id, firstName: 'Kid' })
  const now = new Date()
  await t.db
    .insertInto('member_transactions')
    .values({
      id: uuidv7(),
      account_id: accountId,
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      subscriber_id: setup.subscriber.id,
      member_id: setup.subscriber.id,
      kind: 'subscriber_created',
      qualifying_life_event_id: null,
      status,
      file_delivery_id: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
  return { setup, dependentId: dependent.id }
}

const familyOf = (setup: ReadySetup) => ({ subscriberId: setup.subscriber.id, coveragePeriodId: setup.coveragePeriod.id })

const refresh = (tx: Executor, setup: ReadySetup, learnt: { memberId: string; carrierMemberId: string }[] = []) => refreshFamilyStatuses(tx, [familyOf(setup)], new Date(), { carrierMemberIds: learnt })

async function member(tx: Executor, id: string) {
  return tx.selectFrom('members').select(['status', 'carrier_member_id']).where('id', '=', id).executeTakeFirstOrThrow()
}

/** The watchers told of this subscriber's status change. */
async function toldOf(tx: Executor, subscriberId: string): Promise<string[]> {
  const rows = await tx.selectFrom('watcher_deliveries').select(['watcher_id', 'payload']).where('event_type', '=', 'subscriber.status_changed').execute()
  return rows.filter((row) => (row.payload as { data: { subscriber_id: string } }).data.subscriber_id === subscriberId).map((row) => row.watcher_id)
}

describe('refreshFamilyStatuses', () => {
  it('when nobody watches status changes, then the family takes its latest transaction status and no event is emitted', async () => {
    const partner = await t.newPartner()
    const { setup, dependentId } = await familyWithTransaction(partner.accountId, 'synced')
    await insertWatcher(t.db, partner.accountId, ['error.created'])

    await withOnlyWatchersOf([partner.accountId], async (tx) => {
      expect(await refresh(tx, setup)).toBe(0)
      expect((await member(tx, setup.subscriber.id)).status).toBe('synced')
      expect((await member(tx, dependentId)).status).toBe('synced')
      expect(await toldOf(tx, setup.subscriber.id)).toEqual([])
    })
  })

  it("when only another partner's watcher takes status changes, then no event is emitted for this family", async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const { setup } = await familyWithTransaction(partner.accountId, 'errors')
    await insertWatcher(t.db, other.accountId, ['subscriber.status_changed'])

    await withOnlyWatchersOf([partner.accountId, other.accountId], async (tx) => {
      expect(await refresh(tx, setup)).toBe(0)
      expect((await member(tx, setup.subscriber.id)).status).toBe('errors')
      expect(await toldOf(tx, setup.subscriber.id)).toEqual([])
    })
  })

  it("when the family's own account watches, then one event for the subscriber (not the dependent) reaches that watcher", async () => {
    const partner = await t.newPartner()
    const { setup } = await familyWithTransaction(partner.accountId, 'synced')
    const watcher = await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed'])

    await withOnlyWatchersOf([partner.accountId], async (tx) => {
      expect(await refresh(tx, setup)).toBe(1)
      expect(await toldOf(tx, setup.subscriber.id)).toEqual([watcher])
      const payload = await tx.selectFrom('watcher_deliveries').select('payload').where('watcher_id', '=', watcher).executeTakeFirstOrThrow()
      expect((payload.payload as { data: Record<string, unknown> }).data).toMatchObject({ previous_status: 'pending', status: 'synced' })
      // Nothing moved the second time: nothing to tell.
      expect(await refresh(tx, setup)).toBe(0)
    })
  })

  it("when an operator's watcher takes status changes, then every account's family changes are told to it", async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const { setup } = await familyWithTransaction(partner.accountId, 'synced')
    const watcher = await insertWatcher(t.db, operator.accountId, ['subscriber.status_changed'])

    await withOnlyWatchersOf([partner.accountId, operator.accountId], async (tx) => {
      expect(await refresh(tx, setup)).toBe(1)
      expect(await toldOf(tx, setup.subscriber.id)).toEqual([watcher])
    })
  })

  it("when one call refreshes families of two accounts and only one account watches, then only that account's subscriber is told", async () => {
    const watched = await t.newPartner()
    const unwatched = await t.newPartner()
    const quiet = await familyWithTransaction(unwatched.accountId, 'synced')
    const told = await familyWithTransaction(watched.accountId, 'synced')
    const watcher = await insertWatcher(t.db, watched.accountId, ['subscriber.status_changed'])

    await withOnlyWatchersOf([watched.accountId, unwatched.accountId], async (tx) => {
      // The unwatched family first: who watches is each subscriber's account's, not the first one's.
      expect(await refreshFamilyStatuses(tx, [familyOf(quiet.setup), familyOf(told.setup)], new Date())).toBe(1)
      expect(await toldOf(tx, told.setup.subscriber.id)).toEqual([watcher])
      expect(await toldOf(tx, quiet.setup.subscriber.id)).toEqual([])
      expect((await member(tx, quiet.setup.subscriber.id)).status).toBe('synced')
    })
  })

  it('when a disabled watcher of the account takes status changes, then no event is emitted', async () => {
    const partner = await t.newPartner()
    const { setup } = await familyWithTransaction(partner.accountId, 'synced')
    const watcher = await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed'])
    await t.db.updateTable('watchers').set({ status: 'disabled' }).where('id', '=', watcher).execute()

    await withOnlyWatchersOf([partner.accountId], async (tx) => {
      expect(await refresh(tx, setup)).toBe(0)
      expect((await member(tx, setup.subscriber.id)).status).toBe('synced')
    })
  })

  it('when a carrier member id is learnt for a member whose status does not move, then it is stored and nothing is told', async () => {
    const partner = await t.newPartner()
    const { setup, dependentId } = await familyWithTransaction(partner.accountId, 'synced')
    await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed'])

    await withOnlyWatchersOf([partner.accountId], async (tx) => {
      expect(await refresh(tx, setup)).toBe(1)
      expect(await refresh(tx, setup, [{ memberId: dependentId, carrierMemberId: 'CARRIER-7' }])).toBe(0)
      expect(await member(tx, dependentId)).toEqual({ status: 'synced', carrier_member_id: 'CARRIER-7' })
    })
  })
})
