import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimDueJobs } from '../src/jobs/jobs.repo.js'
import { recordDestinationFailure } from '../src/modules/watchers/destination-health.repo.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'
import { emitTestEvent, openIsolatedDatabase, testWebhookSettings, type IsolatedDatabase } from './helpers/webhooks.js'

// Issue 15, point 3: a disabled watcher's queued deliveries are freed from their receiver's
// back-off (they fail unsent when claimed). Re-enabled before they are claimed (a retry waits
// minutes to hours), they are sent again, so they must be held to the receiver's back-off again.
let isolated: IsolatedDatabase
let t: TestApp
beforeAll(async () => {
  // An isolated database: the claims below would otherwise take other files' due deliveries.
  isolated = await openIsolatedDatabase()
  t = await startTestApp({ database: isolated.handle, webhooks: testWebhookSettings() })
})
afterAll(async () => {
  await t?.close()
  await isolated?.close()
})

describe('a watcher disabled and enabled again', () => {
  it('when its receiver is backed off, then its queued deliveries wait for the receiver again instead of going at once', async () => {
    const partner = await t.newPartner()
    const created = await call(t.app, partner, 'POST', '/watchers', { watcher: { url: 'http://127.0.0.1:16/hook', event_types: ['error.created'] } })
    expect(created.statusCode, created.body).toBe(201)
    const id = created.json().watcher.id as string
    await emitTestEvent(t.db, partner.accountId)
    await recordDestinationFailure(t.db, 'http://127.0.0.1:16', 'connection failed (ECONNREFUSED)', { threshold: 1, firstBlockSeconds: 600 })
    // Its delivery waits for the receiver, which is blocked; a later retry waits for its time too.
    await t.db.updateTable('jobs').set({ run_at: new Date(Date.now() + 3_600_000) }).where('name', '=', 'webhook.deliver').where('status', '=', 'pending').execute()

    expect((await call(t.app, partner, 'PATCH', `/watchers/${id}`, { watcher: { status: 'disabled' } })).statusCode).toBe(200)
    const enabled = await call(t.app, partner, 'PATCH', `/watchers/${id}`, { watcher: { status: 'active' } })
    expect(enabled.statusCode, enabled.body).toBe(200)

    // When the retry comes due, the receiver is still blocked: nothing goes.
    await t.db.updateTable('jobs').set({ run_at: new Date() }).where('name', '=', 'webhook.deliver').where('status', '=', 'pending').execute()
    expect(await claimDueJobs(t.db, 'reenabled-watcher-worker', 16, ['webhook.deliver'])).toEqual([])
  })
})
