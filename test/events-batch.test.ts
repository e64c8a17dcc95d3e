import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emitEvent, emitEvents, type DomainEvent } from '../src/modules/events/events.js'
import { insertWatcher } from './helpers/error-fixtures.js'
import { insertReadySetup } from './helpers/setup-factories.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * emitEvents (one watcher query for thousands of events, used by installations and censuses)
 * must pick exactly the watchers emitEvent picks for each event.
 */
let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

/** Who received what: watcher id and the event's subscriber, sorted. */
async function recipients(accountIds: readonly string[], since: Date) {
  const rows = await t.db
    .selectFrom('watcher_deliveries')
    .select(['watcher_id', 'payload'])
    .where('account_id', 'in', accountIds)
    .where('created_at', '>=', since)
    .execute()
  return rows.map((row) => `${row.watcher_id}:${(row.payload as { data: { subscriber_id: string } }).data.subscriber_id}`).sort()
}

describe('emitEvents', () => {
  it('when many events are emitted at once, then each reaches exactly the watchers its account, coverage period and group select, as one by one', async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const operator = await t.newOperator()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const narrowedToCp = await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed'])
    await t.db.updateTable('watchers').set({ coverage_period_id: setup.coveragePeriod.id }).where('id', '=', narrowedToCp).execute()
    const narrowedToOtherGroup = await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed'])
    const otherGroup = await insertReadySetup(t.db, partner.accountId)
    await t.db.updateTable('watchers').set({ group_id: otherGroup.group.id }).where('id', '=', narrowedToOtherGroup).execute()
    await insertWatcher(t.db, partner.accountId, ['error.created'])
    const disabled = await insertWatcher(t.db, partner.accountId, ['subscriber.status_changed'])
    await t.db.updateTable('watchers').set({ status: 'disabled' }).where('id', '=', disabled).execute()
    await insertWatcher(t.db, other.accountId, ['subscriber.status_changed'])
    await insertWatcher(t.db, operator.accountId, ['subscriber.status_changed'])

    const events = (subscriber: string, coveragePeriodId: string | null): DomainEvent => ({
      type: 'subscriber.status_changed',
      accountId: partner.accountId,
      coveragePeriodId,
      groupId: setup.group.id,
      data: { subscriber_id: subscriber, status: 'submitted' },
    })
    const batch = [events('s1', setup.coveragePeriod.id), events('s2', null), events('s3', otherGroup.coveragePeriod.id)]
    const accounts = [partner.accountId, other.accountId, operator.accountId]

    const before = new Date()
    const batched = await t.db.transaction().execute((tx) => emitEvents(tx, batch))
    const viaBatch = await recipients(accounts, before)
    await t.db.deleteFrom('jobs').where('created_at', '>=', before).execute()
    await t.db.deleteFrom('watcher_deliveries').where('created_at', '>=', before).execute()

    const single = new Date()
    let oneByOne = 0
    for (const event of batch) oneByOne += await t.db.transaction().execute((tx) => emitEvent(tx, event))
    const viaSingle = await recipients(accounts, single)

    expect(viaBatch).toEqual(viaSingle)
    expect(batched).toBe(oneByOne)
    // s1 reaches the coverage period's watcher and the operator's; s2 and s3 only the operator's.
    expect(viaBatch.filter((r) => r.endsWith(':s1'))).toHaveLength(2)
    expect(viaBatch.filter((r) => r.endsWith(':s2'))).toHaveLength(1)
    expect(viaBatch.every((r) => !r.startsWith(disabled) && !r.startsWith(narrowedToOtherGroup))).toBe(true)
  })

  it('when nothing is emitted, then nothing is written', async () => {
    expect(await t.db.transaction().execute((tx) => emitEvents(tx, []))).toBe(0)
  })
})
