import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'
import { testWebhookSettings } from './helpers/webhooks.js'

// The watcher limit is counted under a lock on the account's row (issue 15, point 3). Nearly every
// table references accounts, and each insert of such a row holds the account's row FOR KEY SHARE
// until its transaction ends: the lock must not conflict with that, or creating a watcher waits
// for every write of the account in progress (a census import, say) and holds all of them up.
// PostgreSQL only: the embedded database has one connection, so two transactions cannot overlap.
describe.runIf(!!process.env.DATABASE_URL)('the lock the watcher limit is counted under', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ webhooks: testWebhookSettings() })
  })
  afterAll(async () => {
    await t?.close()
  })

  it('when another write of the account is in progress, then a watcher is still created without waiting for it', async () => {
    const partner = await t.newPartner()
    const write = await t.db.startTransaction().execute()
    try {
      // A row referencing the account, not yet committed: its foreign key holds the account's row.
      await write.insertInto('users').values({ id: uuidv7(), account_id: partner.accountId, email: `busy-${uuidv7()}@example.com`, role_names: [] }).execute()

      const created = call(t.app, partner, 'POST', '/watchers', { watcher: { url: 'http://127.0.0.1:9/hook', event_types: ['error.created'] } })
      let timer: NodeJS.Timeout | undefined
      const waited = new Promise<'still waiting'>((resolve) => {
        timer = setTimeout(() => resolve('still waiting'), 5000)
      })
      const outcome = await Promise.race([created.then((res) => res.statusCode), waited])
      clearTimeout(timer)
      expect(outcome).toBe(201)
    } finally {
      await write.rollback().execute()
    }
  })
})
