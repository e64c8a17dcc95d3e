import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { completedPcpSetup, registerUser } from './helpers/error-fixtures.js'
import { exitOf, startProcess, type Started } from './helpers/processes.js'
import { startTestApp, TEST_SSN_ENCRYPTION_KEYS, TEST_SSN_HASH_KEY, TEST_TOKEN_SECRET, type TestApp } from './helpers/test-app.js'

/**
 * `kill -9` of the API while keyed comments are being written (issue 15 point 2, as the
 * adversarial run did it): after a restart, retrying every key must leave exactly one comment per
 * key, and a retry of a comment whose 201 got through is its replay. PostgreSQL only: the API runs
 * as a child process (`dist/main/serve.js`, worker off) on the test's database.
 */
const SERVE = 'dist/main/serve.js'
const WRITERS = 8
const LOAD_BEFORE_KILL_MS = 1500

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

function serve(): Promise<Started> {
  return startProcess(SERVE, {
    DATABASE_URL: process.env.DATABASE_URL!,
    TOKEN_SIGNING_SECRET: TEST_TOKEN_SECRET,
    SSN_ENCRYPTION_KEYS: TEST_SSN_ENCRYPTION_KEYS,
    SSN_HASH_KEY: TEST_SSN_HASH_KEY,
    WORKER: 'off',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
  })
}

type Outcome = { status: number; id?: string; replayed: boolean } | { lost: true }

describe.runIf(process.env.DATABASE_URL)('Idempotency-Key across a kill -9 of the API', () => {
  it('when the API is killed under keyed comments and restarted, then every key ends with exactly one comment', { timeout: 120_000 }, async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${randomUUID()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.parent.id)!
    const run = randomUUID()
    const messageOf = (i: number) => `Comment ${i} of run ${run}`
    const keyOf = (i: number) => `kill-${run}-${i}`

    const post = async (url: string, i: number): Promise<Outcome> => {
      try {
        const res = await fetch(`${url}/errors/${errorId}/comments`, {
          method: 'POST',
          headers: { 'service-api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': keyOf(i) },
          body: JSON.stringify({ message: messageOf(i), created_by: jane.email }),
        })
        const body = (await res.json()) as { comment?: { id: string } }
        return { status: res.status, ...(body.comment ? { id: body.comment.id } : {}), replayed: res.headers.get('idempotent-replayed') === 'true' }
      } catch {
        return { lost: true }
      }
    }

    // Writers post new comments until the API dies under them.
    let server = await serve()
    const first: Outcome[] = []
    let next = 0
    let killed = false
    const writer = async (url: string) => {
      while (!killed) {
        const i = next++
        first[i] = await post(url, i)
      }
    }
    const writers = Array.from({ length: WRITERS }, () => writer(server.url))
    await new Promise((resolve) => setTimeout(resolve, LOAD_BEFORE_KILL_MS))
    server.child.kill('SIGKILL')
    killed = true
    await exitOf(server.child)
    await Promise.all(writers)
    const attempted = first.length

    // The client retries every key with the same body against the restarted API.
    server = await serve()
    try {
      const retried: Outcome[] = []
      for (let i = 0; i < attempted; i++) retried[i] = await post(server.url, i)
      for (let i = 0; i < attempted; i++) {
        const before = first[i]!
        const after = retried[i]!
        expect(after, `key ${i}`).toMatchObject({ status: 201 })
        if (!('lost' in before) && before.status === 201) expect(after, `key ${i}`).toMatchObject({ replayed: true, id: before.id })
      }
      const lost = first.filter((outcome) => 'lost' in outcome).length
      const madeBeforeKill = retried.filter((outcome, i) => 'lost' in first[i]! && !('lost' in outcome) && outcome.replayed).length
      console.info(`kill -9 under ${WRITERS} writers: ${attempted} keyed comments, ${lost} answers lost, ${madeBeforeKill} of them committed before the kill (replayed on retry)`)
    } finally {
      server.child.kill('SIGKILL')
      await exitOf(server.child)
    }

    const rows = await t.db.selectFrom('error_comments').select('message').where('error_id', '=', errorId).execute()
    const perMessage = new Map<string, number>()
    for (const row of rows) perMessage.set(row.message, (perMessage.get(row.message) ?? 0) + 1)
    for (let i = 0; i < attempted; i++) expect(perMessage.get(messageOf(i)), `comment ${i}`).toBe(1)
    expect(rows.length).toBe(attempted)
  })
})
