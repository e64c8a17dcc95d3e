import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { raiseErrors, type FoundDiscrepancy, type RaisedError } from '../src/modules/errors/raise-errors.js'
import { completedPcpSetup, deliveriesOf, insertWatcher, registerUser } from './helpers/error-fixtures.js'
import { insertMember } from './helpers/setup-factories.js'
import { call, startTestApp, systemActor, type TestApp } from './helpers/test-app.js'

// PGlite has one connection: nothing runs concurrently there, so these races need PostgreSQL.
describe.runIf(!!process.env.DATABASE_URL)('error workflow under concurrency (PostgreSQL)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(async () => t?.close())

  /** Resolves once `count` sessions of this database wait on a lock in a statement matching `pattern`. */
  async function waitersOn(pattern: string, count: number): Promise<void> {
    // In-process requests reach their lock within milliseconds, or seconds on a loaded machine.
    const deadline = Date.now() + 15_000
    for (;;) {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query like ${pattern}`.execute(t.db)
      if (rows[0]!.n >= count) return
      if (Date.now() > deadline) throw new Error(`fewer than ${count} sessions waited on ${pattern}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** Locks the error row in a transaction of its own until `release` is called, so requests queue behind it. */
  async function holdErrorLock(errorId: string) {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let locked!: () => void
    const isLocked = new Promise<void>((resolve) => (locked = resolve))
    const done = t.db.transaction().execute(async (tx) => {
      await tx.selectFrom('errors').select('id').where('id', '=', errorId).forUpdate().execute()
      locked()
      await released
    })
    await isLocked
    return async () => {
      release()
      await done
    }
  }

  /** Runs the requests while the row is locked, waits until they all queue on it, then lets them race. */
  async function race<T>(errorId: string, requests: () => Promise<T>[]): Promise<T[]> {
    const release = await holdErrorLock(errorId)
    const running = requests()
    try {
      await waitersOn('%from "errors"%for update%', running.length)
    } finally {
      await release()
    }
    return Promise.all(running)
  }

  it('when two resolutions race, then both answer 200 and the error ends with one whole resolution: the one committed last', async () => {
    const partner = await t.newPartner()
    const watcherId = await insertWatcher(t.db, partner.accountId, ['error.resolved'])
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${uuidv7()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.parent.id)!

    const answers = await race(errorId, () => [
      call(t.app, partner, 'POST', `/errors/${errorId}/resolution`, { message: 'Jane sent the selection.', resolved_by: jane.email }),
      call(t.app, partner, 'POST', `/errors/${errorId}/resolution`, { message: 'Integration confirmed it.' }),
    ])
    for (const res of answers) expect(res.statusCode, res.body).toBe(200)
    const resolutions = answers.map((res) => res.json().error.resolution)
    const last = [...resolutions].sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1)
    const final = (await call(t.app, partner, 'GET', `/errors/${errorId}`)).json().error
    expect(final.resolution).toEqual(last)
    expect(final.resolution_message).toBe(last.message)
    const pairs = new Map([
      ['Jane sent the selection.', jane.email],
      ['Integration confirmed it.', 'Test partner key'],
    ])
    expect(final.resolution.resolved_by).toBe(pairs.get(final.resolution.message))
    const stored = await t.db.selectFrom('errors').select('resolved_by_user_id').where('id', '=', errorId).executeTakeFirstOrThrow()
    expect(stored.resolved_by_user_id).toBe(final.resolution.resolved_by === jane.email ? jane.id : null)
    // Each saw the state the other left: the second resolution found the error already resolved.
    expect((await deliveriesOf(t.db, watcherId)).map((d) => d.data.previous_status)).toEqual(['unresolved', 'resolved'])
  })

  it('when a comment and a resolution race, then neither is lost', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${uuidv7()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.child.id)!

    const [commented, resolved] = await race(errorId, () => [
      call(t.app, partner, 'POST', `/errors/${errorId}/comments`, { message: 'Waiting on the member.', created_by: jane.email }),
      call(t.app, partner, 'POST', `/errors/${errorId}/resolution`, { message: 'Selection received.' }),
    ])
    expect(commented!.statusCode, commented!.body).toBe(201)
    expect(resolved!.statusCode, resolved!.body).toBe(200)
    const final = (await call(t.app, partner, 'GET', `/errors/${errorId}`)).json().error
    expect(final.status).toBe('resolved')
    expect(final.resolution_message).toBe('Selection received.')
    expect(final.comments).toEqual([commented!.json().comment])
  })

  it('when the partner returns the same error twice at once, then one return wins and the other answers 422 with the new status', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.parent.id)!

    const answers = await race(errorId, () => [
      call(t.app, partner, 'POST', `/errors/${errorId}/return`, { message: 'First.' }),
      call(t.app, partner, 'POST', `/errors/${errorId}/return`, { message: 'Second.' }),
    ])
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 422])
    expect(answers.find((res) => res.statusCode === 422)!.json()).toMatchObject({ code: 'error_not_unresolved' })
    const final = (await call(t.app, partner, 'GET', `/errors/${errorId}`)).json().error
    expect(final).toMatchObject({ status: 'returned', assignee: 'service' })
    expect(final.comments).toHaveLength(1)
  })

  it('when two checks raise the same discrepancies at once, then each key has one error and the later check updates it', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const other = await insertMember(t.db, setup.group)
    const actor = systemActor(partner.accountId)
    const context = { accountId: partner.accountId, coveragePeriodId: setup.coveragePeriod.id, groupId: setup.group.id, source: 'reconciliation' as const }
    const found: FoundDiscrepancy[] = [setup.parent.id, other.id].map((memberId) => ({
      memberId,
      planId: null,
      parameter: 'marital_status',
      kind: 'carrier_value_differs',
      carrier: 'single',
      platform: 'married',
    }))

    // The first check inserts and holds its transaction open; the second runs into its
    // uncommitted rows, waits on the unique index, then must update them instead of failing.
    let commitFirst!: () => void
    const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve))
    let firstRaised!: (raised: RaisedError[]) => void
    const firstDone = new Promise<RaisedError[]>((resolve) => (firstRaised = resolve))
    const first = t.db.transaction().execute(async (tx) => {
      firstRaised(await raiseErrors(tx, actor, context, found))
      await firstMayCommit
    })
    const firstResult = await firstDone
    const second = t.db.transaction().execute((tx) => raiseErrors(tx, actor, context, found.map((f) => ({ ...f, carrier: 'divorced' }))))
    try {
      await waitersOn('%insert into "errors"%', 1)
    } finally {
      commitFirst()
      await first
    }
    const secondResult = await second

    expect(firstResult.map((r) => r.outcome)).toEqual(['created', 'created'])
    expect(secondResult.map((r) => [r.id, r.outcome]).sort()).toEqual(firstResult.map((r) => [r.id, 'updated']).sort())
    const rows = await t.db.selectFrom('errors').select(['discrepancy_carrier']).where('coverage_period_id', '=', setup.coveragePeriod.id).where('source', '=', 'reconciliation').execute()
    expect(rows).toEqual([{ discrepancy_carrier: 'divorced' }, { discrepancy_carrier: 'divorced' }])
  })
})
