import { randomUUID } from 'node:crypto'
import { InsertQueryNode, type KyselyPlugin } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { RequestTransaction } from '../src/db/request-transaction.js'
import { tryLockIdempotencyKey } from '../src/http/idempotency.repo.js'
import { completedPcpSetup, registerUser } from './helpers/error-fixtures.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * The change a request makes and its Idempotency-Key's answer commit together (issue 15 point 2):
 * whatever fails, and wherever, a retry with the key either replays the answer or makes the
 * change once.
 */
let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())
afterEach(() => {
  vi.restoreAllMocks()
})

const newKey = () => `key-${randomUUID()}`

function createUser(app: TestApp['app'], who: Credential, email: string, key: string) {
  return call(app, who, 'POST', '/users', { user: { email } }, { 'idempotency-key': key })
}

async function userEmails(who: Credential): Promise<string[]> {
  const rows = await t.db.selectFrom('users').select('email').where('account_id', '=', who.accountId).orderBy('email').execute()
  return rows.map((row) => row.email)
}

async function storedKeys(who: Credential): Promise<string[]> {
  const rows = await t.db.selectFrom('idempotency_keys').select('key').where('account_id', '=', who.accountId).execute()
  return rows.map((row) => row.key)
}

/** Fails inserts into `table` while `failing.on`; everything else passes through. */
function failingInserts(table: string, failing: { on: boolean }): KyselyPlugin {
  return {
    transformQuery(args) {
      if (failing.on && InsertQueryNode.is(args.node) && args.node.into?.table.identifier.name === table) {
        throw new Error(`simulated failure inserting into ${table}`)
      }
      return args.node
    },
    async transformResult(args) {
      return args.result
    },
  }
}

/** Holds every insert into users for `ms` after it ran, inside the request's transaction. */
function slowUserInserts(ms: number): KyselyPlugin {
  return {
    transformQuery: (args) => args.node,
    async transformResult(args) {
      if (args.result.numAffectedRows !== undefined && args.result.rows.some((row) => 'email' in row)) {
        await new Promise((resolve) => setTimeout(resolve, ms))
      }
      return args.result
    },
  }
}

/** The process dies right after COMMIT: the change and its answer are stored, the answer never sent. */
function crashRightAfterCommit() {
  const commit = RequestTransaction.prototype.commit
  return vi.spyOn(RequestTransaction.prototype, 'commit').mockImplementationOnce(async function (this: RequestTransaction) {
    await commit.call(this)
    throw new Error('simulated crash after commit')
  })
}

describe('Idempotency-Key when a request fails part way', () => {
  it('when the answer is lost after the comment committed, then the retry replays it and the error has exactly one comment', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${randomUUID()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.parent.id)!
    const key = newKey()
    const send = () =>
      call(t.app, partner, 'POST', `/errors/${errorId}/comments`, { message: 'Calling the member.', created_by: jane.email }, { 'idempotency-key': key })

    crashRightAfterCommit()
    const lost = await send()
    // The client learns nothing of the comment: no 201, no Location; it is told to retry.
    expectProblem(lost, 503, 'service_unavailable')
    expect(lost.headers.location).toBeUndefined()

    const retry = await send()
    expect(retry.statusCode, retry.body).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    const comments = await t.db.selectFrom('error_comments').select(['id', 'message']).where('error_id', '=', errorId).execute()
    expect(comments).toEqual([{ id: retry.json().comment.id, message: 'Calling the member.' }])
  })

  it('when storing the answer fails before the commit, then nothing is kept and the retry creates the user once', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const failing = { on: true }
    const broken = await startTestApp({ database: t.database, db: t.db.withPlugin(failingInserts('idempotency_keys', failing)) })
    try {
      const failed = await createUser(broken.app, partner, 'before-commit@example.com', key)
      expectProblem(failed, 503, 'service_unavailable')
      expect(failed.headers.location).toBeUndefined()
      expect(failed.body).not.toContain('simulated')
      expect(await userEmails(partner)).toEqual([])
      expect(await storedKeys(partner)).toEqual([])

      failing.on = false
      const retry = await createUser(broken.app, partner, 'before-commit@example.com', key)
      expect(retry.statusCode, retry.body).toBe(201)
      expect(retry.headers['idempotent-replayed']).toBeUndefined()
      const again = await createUser(broken.app, partner, 'before-commit@example.com', key)
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(again.json()).toEqual(retry.json())
    } finally {
      await broken.close()
    }
    expect(await userEmails(partner)).toEqual(['before-commit@example.com'])
  })

  it('when the connection is lost during COMMIT, then the client gets no 2xx and the retry creates the user once', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    vi.spyOn(RequestTransaction.prototype, 'commit').mockImplementationOnce(async function (this: RequestTransaction) {
      await this.rollback()
      // What node-postgres says when the connection dies under a query.
      throw new Error('Connection terminated unexpectedly')
    })
    const failed = await createUser(t.app, partner, 'commit-lost@example.com', key)
    expectProblem(failed, 503, 'database_unavailable')
    expect(failed.headers['retry-after']).toBeDefined()
    expect(await userEmails(partner)).toEqual([])

    const retry = await createUser(t.app, partner, 'commit-lost@example.com', key)
    expect(retry.statusCode, retry.body).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBeUndefined()
    expect(await userEmails(partner)).toEqual(['commit-lost@example.com'])
  })

  it('when the handler fails with a 5xx after writing, then its writes are rolled back with it and no key is kept', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    // The user row is written, then its audit event fails: a 5xx from the middle of the change.
    const broken = await startTestApp({ database: t.database, db: t.db.withPlugin(failingInserts('audit_events', { on: true })) })
    try {
      const failed = await createUser(broken.app, partner, 'half@example.com', key)
      expectProblem(failed, 500, 'internal_error')
    } finally {
      await broken.close()
    }
    expect(await userEmails(partner)).toEqual([])
    expect(await storedKeys(partner)).toEqual([])
    const retry = await createUser(t.app, partner, 'half@example.com', key)
    expect(retry.statusCode, retry.body).toBe(201)
    expect(await userEmails(partner)).toEqual(['half@example.com'])
  })

  it('when the request cannot be committed (a statement failed outside its transactions), then a 2xx becomes 500 and nothing is kept', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    vi.spyOn(RequestTransaction.prototype, 'fault', 'get').mockReturnValue(new Error('a statement failed outside a transaction of the request'))
    const failed = await createUser(t.app, partner, 'poisoned@example.com', key)
    expectProblem(failed, 500, 'internal_error')
    expect(failed.headers.location).toBeUndefined()
    expect(await userEmails(partner)).toEqual([])
    expect(await storedKeys(partner)).toEqual([])
  })

  it('when a business rule refuses the request (4xx), then the refusal is replayed and nothing was written', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.parent.id)!
    const key = newKey()
    const send = () =>
      call(t.app, partner, 'POST', `/errors/${errorId}/comments`, { message: 'Hello', created_by: 'nobody@example.com' }, { 'idempotency-key': key })
    const refused = await send()
    expect(refused.statusCode).toBe(422)
    const replay = await send()
    expect(replay.statusCode).toBe(422)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.json()).toEqual(refused.json())
    expect(await t.db.selectFrom('error_comments').select('id').where('error_id', '=', errorId).execute()).toEqual([])
  })

  it('when two requests with one key run at once, then one creates the user and the other is told it is in progress or gets the replay', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const slow = await startTestApp({ database: t.database, db: t.db.withPlugin(slowUserInserts(300)) })
    try {
      const answers = await Promise.all([
        createUser(slow.app, partner, 'racing@example.com', key),
        createUser(slow.app, partner, 'racing@example.com', key),
      ])
      const statuses = answers.map((res) => res.statusCode).sort()
      // PostgreSQL: the second finds the key locked (409). The embedded database has one
      // connection, so the second waits for the first to commit and replays it.
      expect([[201, 409], [201, 201]]).toContainEqual(statuses)
      const created = answers.filter((res) => res.statusCode === 201)
      if (created.length === 2) expect(created.map((res) => res.headers['idempotent-replayed'] ?? 'first').sort()).toEqual(['first', 'true'])
      for (const res of answers.filter((res) => res.statusCode === 409)) expectProblem(res, 409, 'idempotency_request_in_progress')
    } finally {
      await slow.close()
    }
    expect(await userEmails(partner)).toEqual(['racing@example.com'])
  })

  it.runIf(process.env.DATABASE_URL)('when another transaction holds the key, then 409 in progress and nothing is created; once it ends, the request runs', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const holder = await t.db.startTransaction().execute()
    try {
      expect(await tryLockIdempotencyKey(holder, partner.accountId, key)).toBe(true)
      const busy = await createUser(t.app, partner, 'busy@example.com', key)
      expectProblem(busy, 409, 'idempotency_request_in_progress')
    } finally {
      await holder.rollback().execute()
    }
    expect(await userEmails(partner)).toEqual([])
    const res = await createUser(t.app, partner, 'busy@example.com', key)
    expect(res.statusCode, res.body).toBe(201)
  })
})
