import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../src/db/database.js'
import { installThroughApi, type ApiInstallation } from './helpers/carrier-side.js'
import { carrierCensus, type CarrierSubscriber } from './helpers/census-fixtures.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { registerUser } from './helpers/error-fixtures.js'
import { exitOf, startProcess, startProcessUntil } from './helpers/processes.js'
import { remoteApp, type RemoteApp, type RemoteResponse } from './helpers/remote-app.js'
import { call, startTestApp, TEST_SSN_ENCRYPTION_KEYS, TEST_SSN_HASH_KEY, TEST_TOKEN_SECRET, type Credential, type TestApp } from './helpers/test-app.js'
import { startReceiver, waitFor, type Receiver } from './helpers/webhooks.js'

/**
 * Issue 16 point 6: the service scaled out. Two API processes (`dist/main/serve.js`, WORKER=off)
 * and two worker processes (`dist/main/worker.js`) share one fresh PostgreSQL database (and Redis
 * when REDIS_URL is set), as docs/running-on-postgresql.md "Production topology" describes. The
 * whole life cycle is driven over HTTP, each request going to the other API process than the one
 * before: an installation of several families on the EDI sandbox carrier, the operator's moves
 * that send it in full, the sandbox's census, an operator's census with planted discrepancies
 * (posted to both API processes at once, as a client retrying elsewhere would), comments (one
 * Idempotency-Key sent to both processes at once), a hand-off and resolutions, and member changes
 * that travel as a change file. Two watchers (the partner's and the operator's) post to a loopback
 * receiver that fails some first attempts on purpose.
 *
 * Then every effect is counted: one full file and one change file, each written once to the
 * outbound directory and acknowledged once, each transaction in one delivery and each member's
 * coverage in each delivery once; one error per discrepancy; one comment per key; every webhook
 * delivered with a valid signature, the receiver's copies per webhook-id equal to the attempts
 * the service recorded (the at-least-once duplicates, counted and printed), and the events equal
 * to the changes that raised them.
 *
 * PostgreSQL only: the embedded database belongs to one process.
 */
const IS_POSTGRES = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')
const SERVE = 'dist/main/serve.js'
const WORKER = 'dist/main/worker.js'
const FAMILIES = 6
/** Families 0 to 2 carry the sandbox's deliberate differences (sandbox-census.ts): plant and change elsewhere. */
const PLANTED = { gender: 3, maritalStatus: 4, extraChild: 5 } as const
const CHANGED_FAMILIES = [3, 4, 5]
/** Member changes made within this window travel in one change file. */
const BATCH_DELAY_MS = 2000

interface Running {
  child: Parameters<typeof exitOf>[0]
  output: () => string
  label: string
}

describe.runIf(IS_POSTGRES)('two API processes and two workers on one database', () => {
  // Four processes starting at once on two cores, migrating together. Outside its one test (start,
  // setup and stop) the file took about 9 s in CI and 16 s on a loaded machine, against the
  // helpers' 30 s and the hook's 60 s for the start alone.
  const START_MS = 60_000
  const databaseName = `enrollsync_multi_${randomBytes(5).toString('hex')}`
  let outbound: string
  const processes: Running[] = []
  let adminUrl: URL
  let databaseUrl: string
  let handle: DatabaseHandle | undefined
  /** The in-process app that makes accounts; `t` is it with `app` sending over HTTP instead. */
  let inProcess: TestApp | undefined
  let t: TestApp
  let remote: RemoteApp
  let receiver: Receiver | undefined
  let apiOrigins: string[] = []

  async function admin(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: adminUrl.toString() })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }

  function serviceEnv(extra: Record<string, string>): Record<string, string> {
    return {
      DATABASE_URL: databaseUrl,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      DATABASE_POOL_SIZE: '5',
      TOKEN_SIGNING_SECRET: TEST_TOKEN_SECRET,
      SSN_ENCRYPTION_KEYS: TEST_SSN_ENCRYPTION_KEYS,
      SSN_HASH_KEY: TEST_SSN_HASH_KEY,
      OUTBOUND_DIR: outbound,
      SANDBOX_CARRIER_DELAY_MS: '0',
      TRANSACTION_BATCH_DELAY_MS: String(BATCH_DELAY_MS),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '0,1,1,1',
      WEBHOOK_HOST_FAILURE_THRESHOLD: '1000',
      WORKER_POLL_MS: '50',
      ...extra,
    }
  }

  beforeAll(async () => {
    outbound = mkdtempSync(join(tmpdir(), 'enrollsync-multi-outbound-'))
    const base = new URL(process.env.DATABASE_URL!)
    adminUrl = new URL(base.toString())
    adminUrl.searchParams.delete('options')
    await admin(`CREATE DATABASE ${databaseName}`)
    const own = new URL(adminUrl.toString())
    own.pathname = `/${databaseName}`
    databaseUrl = own.toString()

    // All four start at once: they apply the migrations together, under the advisory lock.
    const apis = [1, 2].map((n) =>
      startProcess(SERVE, serviceEnv({ WORKER: 'off', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' }), START_MS).then((started) => {
        processes.push({ child: started.child, output: started.output, label: `api ${n}` })
        return started.url
      }),
    )
    // A worker says 'worker started' at info.
    const workers = [1, 2].map((n) =>
      startProcessUntil(WORKER, serviceEnv({ LOG_LEVEL: 'info' }), /worker started/, START_MS).then((started) => {
        processes.push({ child: started.child, output: started.output, label: `worker ${n}` })
      }),
    )
    // Every start is awaited before one failure is thrown, so afterAll stops whatever did start.
    const starts = await Promise.allSettled([...apis, ...workers])
    const failure = starts.find((start) => start.status === 'rejected')
    if (failure) throw failure.reason
    apiOrigins = await Promise.all(apis)

    // Accounts and keys as the other tests make them (on PostgreSQL the CLI does it in production).
    handle = await openDatabase({ kind: 'postgres', url: databaseUrl, poolSize: 3 })
    remote = remoteApp(apiOrigins)
    inProcess = await startTestApp({ database: handle })
    t = { ...inProcess, app: remote.app }
  }, START_MS + 60_000)

  afterAll(async () => {
    // SIGTERM first: each process drains and exits 0; anything still up after 15 s is killed.
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM')
    const exits = await Promise.all(
      processes.map(async (p) => {
        const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000)
        const code = await exitOf(p.child)
        clearTimeout(timer)
        return { label: p.label, code, output: p.output() }
      }),
    )
    await receiver?.close()
    await inProcess?.close()
    await handle?.close()
    if (adminUrl) await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
    if (outbound) rmSync(outbound, { recursive: true, force: true })
    for (const exit of exits) expect(exit.code, `${exit.label} did not stop cleanly:\n${exit.output.slice(-3000)}`).toBe(0)
  })

  /** Until no job is pending or running: what the last request set going has all happened. */
  async function settled(what: string, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        const busy = await t.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).where('status', 'in', ['pending', 'running']).executeTakeFirstOrThrow()
        return Number(busy.n) === 0 ? true : undefined
      },
      timeoutMs,
      what,
    )
  }

  /** The same request sent to both API processes at once, as a client retrying elsewhere would. */
  async function toBoth(credential: Credential, method: 'POST' | 'PUT', url: string, body: unknown, headers: Record<string, string> = {}): Promise<RemoteResponse[]> {
    return Promise.all(
      apiOrigins.map(async (origin) => {
        for (;;) {
          const res = await fetch(`${origin}${url}`, { method, headers: { 'service-api-key': credential.apiKey, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
          const text = await res.text()
          // The other process holds the key: retry, as the problem says.
          if (res.status === 409 && text.includes('idempotency_request_in_progress')) {
            await new Promise((resolve) => setTimeout(resolve, 50))
            continue
          }
          return { statusCode: res.status, body: text, headers: Object.fromEntries(res.headers), json: () => JSON.parse(text) }
        }
      }),
    )
  }

  const ok = (res: Pick<RemoteResponse, 'statusCode' | 'body' | 'json'>, status = 200) => {
    expect(res.statusCode, res.body).toBe(status)
    return res.json()
  }

  /** The platform's data spelt the carrier's way (`carrierCensus`, without what only its first family was given there). */
  function censusOfPlatform(): CarrierSubscriber[] {
    const plainCoverage = { plan_external_identifier: 'GOLD-PPO', start_date: '01/01/2027' }
    return carrierCensus(FAMILIES).map((subscriber, i) => {
      if (i !== 0) return subscriber
      const { emails: _e, phone_numbers: _p, tobacco_use: _t, region: _r, ...rest } = subscriber as CarrierSubscriber & { region?: unknown }
      return {
        ...rest,
        employment_details: { start_date: '03/01/2019', status: 'FULL TIME' },
        coverages: [plainCoverage],
        dependents: rest.dependents.map((d) => ({ ...d, coverages: [plainCoverage] })),
      }
    })
  }

  it('when the life cycle is driven across them, then every effect happens exactly once', { timeout: 90_000 }, async () => {
    const started = Date.now()
    const partner = await t.newPartner('Multi-process partner')
    const operator = await t.newOperator()
    const partnerUser = await registerUser(t, partner, `benefits-${randomUUID()}@example.com`)
    const operatorUser = await registerUser(t, operator, `ops-${randomUUID()}@example.com`, ['admin'])

    // The receiver: every copy by webhook-id, every signature checked with its watcher's secret;
    // the first copy of every fifth webhook-id is answered 503, so at-least-once retries happen.
    const secrets = new Map<string, Webhook>()
    const copies = new Map<string, number>()
    const badSignatures: string[] = []
    let distinct = 0
    receiver = await startReceiver((_n, request) => {
      const id = String(request.headers['webhook-id'])
      const watcher = secrets.get(request.path)
      try {
        if (!watcher) throw new Error(`no watcher at ${request.path}`)
        watcher.verify(request.body, request.headers as Record<string, string>)
      } catch (error) {
        badSignatures.push(`${id}: ${(error as Error).message}`)
      }
      const seen = copies.get(id) ?? 0
      copies.set(id, seen + 1)
      if (seen === 0 && ++distinct % 5 === 0) return 503
      return 200
    })
    const watcherIds: Record<'partner' | 'operator', string> = { partner: '', operator: '' }
    for (const [who, credential] of [['partner', partner], ['operator', operator]] as const) {
      const created = ok(await call(remote.app, credential, 'POST', '/watchers', { watcher: { url: `${receiver.origin}/${who}`, event_types: ['error.created', 'error.resolved', 'error.returned', 'error.commented', 'coverage_period.state_changed', 'work_order.status_changed', 'census_request.completed', 'subscriber.status_changed'], description: `${who} receiver` } }), 201).watcher
      secrets.set(`/${who}`, new Webhook(created.secret))
      watcherIds[who] = created.id
    }

    // Installation: the group, its plan year, plan, families and their elections, complete setup.
    const install: ApiInstallation = await installThroughApi(t, partner, 'sandbox_edi', FAMILIES)
    const cp = install.coveragePeriodId

    // The operator starts the work order, then submits it on both API processes at once: one
    // move succeeds, the other is refused, and the group goes out in full once.
    ok(await call(remote.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status: 'in_progress', message: 'starting' }))
    const submits = await toBoth(operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status: 'submitted', message: 'sending the group' })
    expect(submits.map((r) => r.statusCode).sort(), submits.map((r) => r.body).join('\n')).toEqual([200, 422])
    await settled('the full file, the installation and the sandbox census')

    const workOrder = ok(await call(remote.app, partner, 'GET', `/coverage_periods/${cp}/work_order`)).work_order
    expect(workOrder.history.map((entry: { status: string }) => entry.status)).toEqual(['open', 'in_progress', 'submitted', 'completed'])
    expect(ok(await call(remote.app, partner, 'GET', `/coverage_periods/${cp}`)).coverage_period.state).toBe('production')
    const afterFull = ok(await call(remote.app, partner, 'GET', `/coverage_periods/${cp}/file_deliveries`)).file_deliveries
    expect(afterFull.map((d: { kind: string; status: string }) => [d.kind, d.status])).toEqual([['full', 'sent']])
    expect(afterFull[0]).toMatchObject({ transaction_count: FAMILIES, member_count: FAMILIES * 3, acknowledgement_status: 'accepted' })
    const sandboxCensus = ok(await call(remote.app, operator, 'GET', `/coverage_periods/${cp}/census_requests`)).census_requests
    expect(sandboxCensus).toHaveLength(1)
    expect(sandboxCensus[0]).toMatchObject({ format: 'x12_834', errors_created: 3 })

    // The operator's census: the platform's data with three planted discrepancies, posted to both
    // processes at once. The sandbox's three differences are not in it, so they are resolved.
    const census = censusOfPlatform()
    census[PLANTED.gender]!.gender = 'M'
    census[PLANTED.maritalStatus]!.marital_status = 'D'
    census[PLANTED.extraChild]!.dependents.push({ first_name: 'NEWBORN', last_name: `DOE${PLANTED.extraChild + 1}`, birth_date: '20270105', gender: 'F', subscriber_relationship: '19' })
    const posted = await toBoth(operator, 'POST', `/coverage_periods/${cp}/census_requests`, { census_request: { subscribers: census } })
    // The same census again is not a new one (census.routes.ts): one is reconciled (201), the
    // other answers it (200), whichever process took which.
    expect(posted.map((res) => res.statusCode).sort(), posted.map((res) => res.body.slice(0, 300)).join('\n')).toEqual([200, 201])
    const censusIds = new Set(posted.map((res) => res.json().census_request.id as string))
    expect(censusIds.size, 'one census request for one census posted twice').toBe(1)
    const reconciled = await t.db.selectFrom('errors').select(['id', 'member_id', 'discrepancy_parameter', 'discrepancy_kind', 'status', 'assignee', 'census_request_id']).where('coverage_period_id', '=', cp).where('source', '=', 'reconciliation').execute()
    const open = reconciled.filter((e) => e.status !== 'resolved')
    const subscriberOf = (family: number) => install.families[family]!.subscriberId
    expect(open.map((e) => [e.discrepancy_parameter, e.discrepancy_kind, e.member_id]).sort()).toEqual(
      [
        // A member the platform lacks is raised on the subscriber of its family.
        ['dependent', 'platform_missing', subscriberOf(PLANTED.extraChild)],
        ['gender', 'carrier_value_differs', subscriberOf(PLANTED.gender)],
        ['marital_status', 'carrier_value_differs', subscriberOf(PLANTED.maritalStatus)],
      ].sort(),
    )
    for (const error of open) expect(censusIds).toContain(error.census_request_id)
    expect(reconciled).toHaveLength(6)

    // The errors worked: a comment on each under one Idempotency-Key sent to both processes, the
    // gender handed to the operations team who resolve it, the marital status resolved by the partner.
    const errorOf = (parameter: string) => open.find((e) => e.discrepancy_parameter === parameter)!
    const commentIds: string[] = []
    for (const error of open) {
      const key = `comment-${error.id}`
      const answers = await toBoth(partner, 'POST', `/errors/${error.id}/comments`, { message: `Checking with the employee (${error.discrepancy_parameter}).`, created_by: partnerUser.email }, { 'idempotency-key': key })
      for (const res of answers) expect(res.statusCode, res.body).toBe(201)
      const ids = new Set(answers.map((res) => res.json().comment.id as string))
      expect(ids.size, 'both answers name the same comment').toBe(1)
      expect(answers.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(1)
      commentIds.push(...ids)
    }
    const handedOff = ok(await call(remote.app, partner, 'POST', `/errors/${errorOf('gender').id}/return`, { message: 'The employee says F: please ask the carrier.', created_by: partnerUser.email }))
    expect(handedOff.error).toMatchObject({ status: 'returned', assignee: 'service' })
    const resolvedByService = ok(await call(remote.app, operator, 'POST', `/errors/${errorOf('gender').id}/resolution`, { message: 'Carrier corrected its record.', resolved_by: operatorUser.email }))
    expect(resolvedByService.error.status).toBe('resolved')
    const resolvedByPartner = ok(await call(remote.app, partner, 'POST', `/errors/${errorOf('marital_status').id}/resolution`, { message: 'Divorced since March; record updated.', resolved_by: partnerUser.email }))
    expect(resolvedByPartner.error.status).toBe('resolved')

    // Member changes: three families move house, on both processes at once; the batching window
    // gathers them into one change file, which the sandbox takes and answers with a census.
    // Read first, then write all at once, so the writes fall well inside one window.
    const currents: ReturnType<typeof ok>[] = []
    for (const family of CHANGED_FAMILIES) currents.push(ok(await call(remote.app, partner, 'GET', `/subscribers/${subscriberOf(family)}`)).subscriber)
    const changes = CHANGED_FAMILIES.map(async (family, i) => {
      const id = subscriberOf(family)
      const { id: _id, group_id: _g, status: _s, current_qualifying_life_events: _e, dependents: _d, created_at: _c, updated_at: _u, social_security_number: _ssn, ...fields } = currents[i]
      const res = await fetch(`${apiOrigins[i % 2]}/subscribers/${id}`, {
        method: 'PUT',
        headers: { 'service-api-key': partner.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ subscriber: { ...fields, residential_address: { ...fields.residential_address, address_line_1: `${90 + family} Oak Ave` } } }),
      })
      expect(res.status, await res.clone().text()).toBe(200)
      expect(((await res.json()) as { subscriber: { status: string } }).subscriber.status).toBe('pending')
    })
    await Promise.all(changes)
    await settled('the change file and the sandbox census answering it')

    // ---- Files: one full, one change, each once on disk, acknowledged once. ----
    const deliveries = await t.db
      .selectFrom('file_deliveries')
      .select(['id', 'kind', 'status', 'file_name', 'transaction_count', 'interchange_control_number', 'sha256', 'acknowledgement_status'])
      .where('coverage_period_id', '=', cp)
      .orderBy('created_at')
      .execute()
    expect(deliveries.map((d) => [d.kind, d.status, d.transaction_count, d.acknowledgement_status])).toEqual([
      ['full', 'sent', FAMILIES, 'accepted'],
      ['change', 'sent', CHANGED_FAMILIES.length, 'accepted'],
    ])
    expect(new Set(deliveries.map((d) => d.interchange_control_number)).size).toBe(deliveries.length)
    const written = readdirSync(join(outbound, 'sandbox_edi')).sort()
    expect(written, 'one file per delivery, none half-written').toEqual(deliveries.map((d) => d.file_name).sort())
    for (const delivery of deliveries) {
      const content = await call(remote.app, operator, 'GET', `/file_deliveries/${delivery.id}/content`)
      expect(content.statusCode).toBe(200)
      expectValid834(content.body)
      expect(readFileSync(join(outbound, 'sandbox_edi', delivery.file_name), 'utf8')).toBe(content.body)
    }
    const change = deliveries[1]!
    const changeFile = readFileSync(join(outbound, 'sandbox_edi', change.file_name), 'utf8')
    const subscriberLoops = changeFile.split('~').filter((segment) => segment.trim().startsWith('INS*Y*'))
    expect(subscriberLoops, 'one subscriber loop per changed family').toHaveLength(CHANGED_FAMILIES.length)
    const acknowledgements = await t.db.selectFrom('acknowledgements').select(['file_delivery_id', 'kind']).where('file_delivery_id', 'in', deliveries.map((d) => d.id)).execute()
    expect(acknowledgements.map((a) => `${a.file_delivery_id} ${a.kind}`).sort()).toEqual(deliveries.flatMap((d) => [`${d.id} 999`, `${d.id} ta1`]).sort())

    // ---- Transactions: each in one delivery, each settled; each coverage sent once per delivery. ----
    const transactions = await t.db.selectFrom('member_transactions').select(['id', 'kind', 'status', 'subscriber_id', 'file_delivery_id']).where('coverage_period_id', '=', cp).execute()
    expect(transactions.filter((x) => x.kind === 'installation').map((x) => x.file_delivery_id)).toEqual(Array(FAMILIES).fill(deliveries[0]!.id))
    const changed = transactions.filter((x) => x.kind !== 'installation')
    expect(changed.map((x) => [x.kind, x.file_delivery_id, x.status]).sort()).toEqual(CHANGED_FAMILIES.map(() => ['subscriber_updated', change.id, 'synced']))
    expect(new Set(changed.map((x) => x.subscriber_id))).toEqual(new Set(CHANGED_FAMILIES.map(subscriberOf)))
    for (const x of transactions) expect(['synced', 'errors'], `transaction ${x.id}`).toContain(x.status)
    const transmissions = await t.db
      .selectFrom('coverage_transmissions')
      .select(['file_delivery_id', 'member_id', 'plan_id', sql<string>`count(*)`.as('n')])
      .where('coverage_period_id', '=', cp)
      .groupBy(['file_delivery_id', 'member_id', 'plan_id'])
      .execute()
    expect(transmissions.filter((row) => Number(row.n) !== 1), 'a coverage recorded twice in one delivery').toEqual([])
    expect(transmissions.filter((row) => row.file_delivery_id === deliveries[0]!.id)).toHaveLength(FAMILIES * 3)

    // ---- Errors: one per discrepancy, whatever number of censuses found it. ----
    const errors = await t.db.selectFrom('errors').select(['id', 'source', 'member_id', 'discrepancy_parameter', 'discrepancy_kind', 'status']).where('coverage_period_id', '=', cp).execute()
    expect(errors.filter((e) => e.source !== 'reconciliation')).toEqual([])
    const perDiscrepancy = new Map<string, number>()
    for (const e of errors) perDiscrepancy.set(`${e.member_id} ${e.discrepancy_parameter} ${e.discrepancy_kind}`, (perDiscrepancy.get(`${e.member_id} ${e.discrepancy_parameter} ${e.discrepancy_kind}`) ?? 0) + 1)
    expect([...perDiscrepancy.values()].filter((n) => n > 1), 'one error per discrepancy').toEqual([])
    expect(errors).toHaveLength(6)
    const censuses = await t.db.selectFrom('census_requests').select(['id', 'submitted_by', 'errors_created', 'errors_reopened']).where('coverage_period_id', '=', cp).orderBy('created_at').execute()
    // The sandbox's answer to each file, and the operator's one census between them.
    expect(censuses.map((c) => c.submitted_by)).toEqual(['Sandbox carrier (EDI)', 'Test operator key', 'Sandbox carrier (EDI)'])
    expect(censuses.reduce((sum, c) => sum + c.errors_created, 0), 'each error created by exactly one census').toBe(errors.length)
    const comments = await t.db.selectFrom('error_comments').select(['id', 'error_id', 'message']).where('error_id', 'in', errors.map((e) => e.id)).execute()
    for (const id of commentIds) expect(comments.filter((c) => c.id === id)).toHaveLength(1)
    expect(comments.filter((c) => c.message.startsWith('Checking with the employee'))).toHaveLength(open.length)

    // ---- Jobs: none failed. ----
    const failed = await t.db.selectFrom('jobs').select(['name', 'last_error']).where('status', '=', 'failed').execute()
    expect(failed).toEqual([])

    // ---- Webhooks: each delivered, signatures valid, copies equal to the recorded attempts. ----
    const webhooks = await t.db.selectFrom('watcher_deliveries').select(['id', 'watcher_id', 'event_id', 'event_type', 'status', 'attempts']).execute()
    expect(webhooks.filter((w) => w.status !== 'succeeded'), 'a webhook not delivered').toEqual([])
    expect(badSignatures).toEqual([])
    for (const w of webhooks) expect(copies.get(w.id) ?? 0, `copies of webhook ${w.id} (${w.event_type})`).toBe(w.attempts)
    expect([...copies.keys()].filter((id) => !webhooks.some((w) => w.id === id)), 'a copy of no delivery').toEqual([])
    // Each event once per watcher, and both watchers told of the same events.
    const eventsOf = (watcherId: string) => webhooks.filter((w) => w.watcher_id === watcherId).map((w) => w.event_id)
    for (const watcherId of Object.values(watcherIds)) expect(new Set(eventsOf(watcherId)).size).toBe(eventsOf(watcherId).length)
    expect(new Set(eventsOf(watcherIds.partner))).toEqual(new Set(eventsOf(watcherIds.operator)))
    // Events equal the changes that raised them.
    const ofType = (type: string) => webhooks.filter((w) => w.watcher_id === watcherIds.partner && w.event_type === type).length
    expect(ofType('census_request.completed')).toBe(censuses.length)
    expect(ofType('error.created')).toBe(censuses.reduce((sum, c) => sum + c.errors_created + c.errors_reopened, 0))
    // The hand-off's message is a comment too (and says so in error.commented).
    expect(comments).toHaveLength(open.length + 1)
    expect(ofType('error.commented')).toBe(comments.length)
    expect(ofType('error.returned')).toBe(1)
    expect(ofType('work_order.status_changed')).toBe(workOrder.history.length)

    const duplicates = [...copies.values()].reduce((sum, n) => sum + n - 1, 0)
    const retried = webhooks.filter((w) => w.attempts > 1).length
    expect(retried, 'the receiver failed some first attempts').toBeGreaterThan(0)
    const logged = processes.flatMap((p) => p.output().split('\n').filter((line) => /"level":(50|60)/.test(line)).map((line) => `${p.label}: ${line.slice(0, 400)}`))
    expect(logged, 'no process logged an error').toEqual([])
    const jobAttempts = await t.db.selectFrom('jobs').select(['name', 'attempts']).where('attempts', '>', 1).execute()
    console.info(
      `multi-process life cycle: ${((Date.now() - started) / 1000).toFixed(1)} s; round-robin requests per API process ${remote.served.join('/')}; ` +
        `${deliveries.length} file deliveries, ${censuses.length} censuses (${censuses.map((c) => c.submitted_by).join(', ')}), ${errors.length} errors, ` +
        `${webhooks.length} webhooks, ${duplicates} duplicate copies (${retried} deliveries retried after a 503), ${jobAttempts.length} jobs run more than once`,
    )
  })
})
