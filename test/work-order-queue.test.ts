import { uuidv7 } from '../src/lib/ids.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleUser, signedIn, withSession, type ConsoleUser, type SignedIn } from './helpers/console-session.js'
import { insertReadySetup } from './helpers/setup-factories.js'
import { call, expectProblem, systemActor, type Credential, type TestApp, startTestApp } from './helpers/test-app.js'

/**
 * The operators' queue (GET /work_orders, /work_orders/counts) and assignment
 * (PUT /work_orders/{id}/assignment). The queue lists every account's orders, and every test here
 * shares one database: each test makes its own partner and filters by its account_id.
 */

let t: TestApp
let operator: Credential
let operatorUser: ConsoleUser
let operatorSession: SignedIn
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
  operatorUser = await consoleUser(t, operator)
  operatorSession = await signedIn(t.app, operatorUser)
})
afterAll(async () => t?.close())

interface Opened {
  workOrderId: string
  coveragePeriodId: string
  groupId: string
  groupExternalIdentifier: string
}

/** A work order of the partner, its group renamed to `employer` (every factory group is "Acme Widgets Inc."). */
async function openWorkOrder(partner: Credential, employer = 'Acme Widgets Inc.'): Promise<Opened> {
  const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_manual' })
  await t.db.updateTable('groups').set({ organization_name: employer }).where('id', '=', setup.group.id).execute()
  const res = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
  expect(res.statusCode, res.body).toBe(201)
  return { workOrderId: res.json().work_order.id, coveragePeriodId: setup.coveragePeriod.id, groupId: setup.group.id, groupExternalIdentifier: setup.group.external_identifier }
}

/** Moves the order's last status change `seconds` into the past: what the queue measures age from. */
const backdateStatus = (workOrderId: string, seconds: number) =>
  t.db
    .updateTable('work_orders')
    .set({ status_changed_at: new Date(Date.now() - seconds * 1000) })
    .where('id', '=', workOrderId)
    .execute()

const move = (workOrderId: string, status: string) => call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status, message: `now ${status}` })

async function queue(query: string, who: Credential = operator) {
  const res = await call(t.app, who, 'GET', `/work_orders?per_page=100&${query}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().work_orders as Record<string, unknown>[]
}
const idsOf = (rows: Record<string, unknown>[]) => rows.map((row) => row.id)

async function counts(query: string) {
  const res = await call(t.app, operator, 'GET', `/work_orders/counts?${query}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().counts as { total: number; by_status: Record<string, number> }
}

const assign = (workOrderId: string, userId: string | null, who: Credential = operator) =>
  call(t.app, who, 'PUT', `/work_orders/${workOrderId}/assignment`, { assignment: { user_id: userId } })

const auditActions = async (workOrderId: string) =>
  (await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', workOrderId).orderBy('created_at').orderBy('id').execute()).map((row) => row.action)

async function operatorUserOf(account: Credential = operator) {
  return t.services.users.createUser(systemActor(account.accountId), { email: `ops.${Math.random().toString(36).slice(2)}@example.com`, role_names: [] }, account.accountId)
}

describe('the fields of a work order', () => {
  it('when a work order is read through any answer, then it names the account, employer and group, its age and its assignee', async () => {
    const partner = await t.newPartner('Benefits Platform Inc.')
    const opened = await openWorkOrder(partner, 'Globex Corporation')

    const expected = {
      id: opened.workOrderId,
      account_id: partner.accountId,
      account_name: 'Benefits Platform Inc.',
      group_id: opened.groupId,
      group_name: 'Globex Corporation',
      employer_name: 'Globex Corporation',
      group_external_identifier: opened.groupExternalIdentifier,
      assigned_user: null,
      age_seconds: expect.any(Number),
    }
    const [listed] = await queue(`account_id=${partner.accountId}`)
    const single = (await call(t.app, operator, 'GET', `/work_orders/${opened.workOrderId}`)).json().work_order
    const partnerView = (await call(t.app, partner, 'GET', `/coverage_periods/${opened.coveragePeriodId}/work_order`)).json().work_order
    const setupAgain = (await call(t.app, partner, 'POST', `/coverage_periods/${opened.coveragePeriodId}/complete_setup`)).json().work_order
    for (const answer of [listed, single, partnerView, setupAgain]) {
      expect(answer).toMatchObject(expected)
      // Just opened: it entered its status when it was created.
      expect(answer.status_changed_at).toBe(answer.created_at)
      expect(answer.age_seconds).toBeGreaterThanOrEqual(0)
      expect(answer.age_seconds).toBeLessThan(30)
    }
  })

  it('when time passes, then age_seconds grows; a transition starts it again from 0, an assignment does not', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    await backdateStatus(workOrderId, 7200)

    const before = (await call(t.app, operator, 'GET', `/work_orders/${workOrderId}`)).json().work_order
    expect(before.age_seconds).toBeGreaterThanOrEqual(7200)
    expect(before.age_seconds).toBeLessThan(7230)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const later = (await queue(`account_id=${partner.accountId}`))[0]!
    expect(later.age_seconds).toBeGreaterThan(before.age_seconds)

    const assigned = (await assign(workOrderId, operatorUser.id)).json().work_order
    expect(assigned.age_seconds).toBeGreaterThanOrEqual(7200)
    expect(assigned.status_changed_at).toBe(before.status_changed_at)
    expect(Date.parse(assigned.updated_at)).toBeGreaterThan(Date.parse(before.updated_at))

    const moved = (await move(workOrderId, 'in_progress')).json().work_order
    expect(moved.age_seconds).toBeLessThan(5)
    expect(Date.parse(moved.status_changed_at)).toBeGreaterThan(Date.parse(before.status_changed_at))
    expect(moved.status_changed_at).toBe(moved.history.at(-1).at)
  })
})

describe('filtering the queue', () => {
  it('when the queue is filtered by account, group, status or assignee, then only matching orders are listed', async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const a = await openWorkOrder(partner)
    const b = await openWorkOrder(partner)
    const foreign = await openWorkOrder(other)
    await move(b.workOrderId, 'in_progress')
    await assign(a.workOrderId, operatorUser.id)
    await assign(foreign.workOrderId, operatorUser.id)

    expect(idsOf(await queue(`account_id=${partner.accountId}`))).toEqual([a.workOrderId, b.workOrderId])
    expect(idsOf(await queue(`group_id=${b.groupId}`))).toEqual([b.workOrderId])
    expect(idsOf(await queue(`account_id=${partner.accountId}&status=in_progress`))).toEqual([b.workOrderId])
    expect(idsOf(await queue(`account_id=${partner.accountId}&assigned_user_id=${operatorUser.id}`))).toEqual([a.workOrderId])
    expect(idsOf(await queue(`account_id=${partner.accountId}&assigned_user_id=none`))).toEqual([b.workOrderId])
    // The assignee filter alone spans accounts: the user's whole queue.
    expect(idsOf(await queue(`assigned_user_id=${operatorUser.id}`))).toEqual(expect.arrayContaining([a.workOrderId, foreign.workOrderId]))
    expect(idsOf(await queue(`assigned_user_id=${operatorUser.id}`))).not.toContain(b.workOrderId)
  })

  it('when q is given, then it matches the employer name, the group external identifier or the account name, in any case, as plain text', async () => {
    // Names of this test's own: a PostgreSQL test database keeps earlier runs' orders.
    const tag = uuidv7().slice(-8)
    const partner = await t.newPartner(`Zebra Benefits 100% ${tag}`)
    const other = await t.newPartner(`Quokka Platform ${tag}`)
    const initech = await openWorkOrder(partner, 'Initech LLC')
    const hooli = await openWorkOrder(partner, 'Hooli Inc.')
    const vandelay = await openWorkOrder(other, `Vandelay Industries ${tag}`)
    const scope = (query: string) => queue(`q=${encodeURIComponent(query)}&account_id=${partner.accountId}`)

    expect(idsOf(await scope('iNiTeCh'))).toEqual([initech.workOrderId])
    expect(idsOf(await scope(hooli.groupExternalIdentifier.toUpperCase()))).toEqual([hooli.workOrderId])
    expect(idsOf(await scope('zebra benefits'))).toEqual([initech.workOrderId, hooli.workOrderId])
    expect(idsOf(await queue(`q=${encodeURIComponent(`delay industries ${tag}`)}`))).toEqual([vandelay.workOrderId])
    expect(idsOf(await queue(`q=${encodeURIComponent(`quokka platform ${tag}`)}`))).toEqual([vandelay.workOrderId])
    // % and _ are text, not patterns: only the account whose name holds "100%" matches.
    expect(idsOf(await queue(`q=${encodeURIComponent(`100% ${tag}`)}`))).toEqual([initech.workOrderId, hooli.workOrderId])
    expect(await queue(`q=${encodeURIComponent('_')}&account_id=${partner.accountId}`)).toEqual([])
    expect(await scope('no such employer')).toEqual([])
  })

  it('when assigned_user_id is me, then a console user gets their own queue, and an API key, which has no user, gets 422', async () => {
    const partner = await t.newPartner()
    const mine = await openWorkOrder(partner)
    const theirs = await openWorkOrder(partner)
    const colleague = await operatorUserOf()
    await assign(mine.workOrderId, operatorUser.id)
    await assign(theirs.workOrderId, colleague.id)

    const res = await withSession(t.app, operatorSession, 'GET', `/work_orders?assigned_user_id=me&account_id=${partner.accountId}`)
    expect(res.statusCode, res.body).toBe(200)
    expect(idsOf(res.json().work_orders)).toEqual([mine.workOrderId])
    const mineCounted = await withSession(t.app, operatorSession, 'GET', `/work_orders/counts?assigned_user_id=me&account_id=${partner.accountId}`)
    expect(mineCounted.json().counts).toMatchObject({ total: 1, by_status: { open: 1 } })

    for (const path of ['/work_orders', '/work_orders/counts']) {
      const refused = await call(t.app, operator, 'GET', `${path}?assigned_user_id=me`)
      expectProblem(refused, 422, 'validation_failed')
      expect(refused.json().errors).toEqual([{ parameter: 'assigned_user_id', code: 'no_signed_in_user', detail: expect.any(String) }])
      expect(refused.json().detail).toMatch(/signed-in console user/)
    }
  })

  it('when a filter or sort value is unknown, then 422 names the query parameter', async () => {
    const cases: [string, string][] = [
      ['sort=oldest', 'sort'],
      ['sort=-', 'sort'],
      ['assigned_user_id=someone', 'assigned_user_id'],
      ['assigned_user_id=ME', 'assigned_user_id'],
      ['group_id=not-a-uuid', 'group_id'],
      ['account_id=42', 'account_id'],
      ['status=waiting', 'status'],
      [`q=${'x'.repeat(201)}`, 'q'],
      ['q=', 'q'],
      ['assignee=me', 'assignee'],
    ]
    for (const [query, parameter] of cases) {
      const res = await call(t.app, operator, 'GET', `/work_orders?${query}`)
      expectProblem(res, 422, 'validation_failed')
      expect(res.json().errors.map((e: { parameter: string }) => e.parameter), query).toEqual([parameter])
    }
    expectProblem(await call(t.app, operator, 'GET', '/work_orders/counts?sort=age'), 422, 'validation_failed')
    expectProblem(await call(t.app, operator, 'GET', '/work_orders/counts?page=2'), 422, 'validation_failed')
  })
})

describe('sorting the queue', () => {
  it('when sort is given, then each key orders the queue both ways; without it, oldest opened first', async () => {
    const partner = await t.newPartner()
    // Opened in this order; statuses and ages chosen so that no two keys give the same order.
    const first = await openWorkOrder(partner)
    const second = await openWorkOrder(partner)
    const third = await openWorkOrder(partner)
    for (const status of ['in_progress', 'submitted']) await move(first.workOrderId, status)
    await move(third.workOrderId, 'in_progress')
    await backdateStatus(first.workOrderId, 60)
    await backdateStatus(second.workOrderId, 600)
    await backdateStatus(third.workOrderId, 6000)
    const [a, b, c] = [first.workOrderId, second.workOrderId, third.workOrderId]
    const sorted = async (sort?: string) => idsOf(await queue(`account_id=${partner.accountId}${sort ? `&sort=${sort}` : ''}`))

    expect(await sorted()).toEqual([a, b, c])
    expect(await sorted('created_at')).toEqual([a, b, c])
    expect(await sorted('-created_at')).toEqual([c, b, a])
    // age ascending: the youngest (least time in its status) first.
    expect(await sorted('age')).toEqual([a, b, c])
    expect(await sorted('-age')).toEqual([c, b, a])
    // status in workflow order: open (second), in_progress (third), submitted (first).
    expect(await sorted('status')).toEqual([b, c, a])
    expect(await sorted('-status')).toEqual([a, c, b])

    const ages = (await queue(`account_id=${partner.accountId}&sort=-age`)).map((row) => row.age_seconds as number)
    expect(ages[0]).toBeGreaterThanOrEqual(6000)
    expect(ages).toEqual([...ages].sort((x, y) => y - x))
  })

  it('when work orders share a status, then sort=status keeps them oldest opened first, and pages do not overlap', async () => {
    const partner = await t.newPartner()
    const opened = [await openWorkOrder(partner), await openWorkOrder(partner), await openWorkOrder(partner)]
    const ids = opened.map((o) => o.workOrderId)
    const page = async (n: number) => idsOf((await call(t.app, operator, 'GET', `/work_orders?account_id=${partner.accountId}&sort=-status&per_page=2&page=${n}`)).json().work_orders)
    expect([...(await page(1)), ...(await page(2))]).toEqual(ids)
  })
})

describe('counting the queue', () => {
  it('when counts are asked for, then every status is present with zeros, and the filters apply', async () => {
    const partner = await t.newPartner('Counted Partner')
    const opened = [await openWorkOrder(partner, 'Alpha Co'), await openWorkOrder(partner, 'Beta Co'), await openWorkOrder(partner, 'Gamma Co')]
    await move(opened[0]!.workOrderId, 'in_progress')
    await move(opened[1]!.workOrderId, 'cancelled')
    await assign(opened[2]!.workOrderId, operatorUser.id)

    expect(await counts(`account_id=${partner.accountId}`)).toEqual({
      total: 3,
      by_status: { open: 1, in_progress: 1, submitted: 0, needs_information: 0, completed: 0, cancelled: 1 },
    })
    expect(await counts(`account_id=${partner.accountId}&status=open`)).toEqual({
      total: 1,
      by_status: { open: 1, in_progress: 0, submitted: 0, needs_information: 0, completed: 0, cancelled: 0 },
    })
    expect((await counts(`account_id=${partner.accountId}&q=beta`)).by_status).toMatchObject({ cancelled: 1, open: 0 })
    expect((await counts(`account_id=${partner.accountId}&assigned_user_id=none`)).total).toBe(2)
    expect((await counts(`group_id=${opened[0]!.groupId}`)).by_status.in_progress).toBe(1)
    // An account with no work orders: all zeros, not an empty object.
    const empty = await t.newPartner()
    expect(await counts(`account_id=${empty.accountId}`)).toEqual({
      total: 0,
      by_status: { open: 0, in_progress: 0, submitted: 0, needs_information: 0, completed: 0, cancelled: 0 },
    })
    // The total agrees with the list's Total header.
    const listed = await call(t.app, operator, 'GET', `/work_orders?account_id=${partner.accountId}&per_page=1`)
    expect(listed.headers.total).toBe('3')
  })
})

describe('assigning a work order', () => {
  it('when an operator assigns an active service user, then the order names them, the audit trail records it and history does not change', async () => {
    const partner = await t.newPartner()
    const { workOrderId, coveragePeriodId } = await openWorkOrder(partner)

    const res = await assign(workOrderId, operatorUser.id)
    expect(res.statusCode, res.body).toBe(200)
    const workOrder = res.json().work_order
    expect(workOrder.assigned_user).toEqual({ id: operatorUser.id, email: operatorUser.email })
    expect(workOrder.history).toHaveLength(1)
    expect(await auditActions(workOrderId)).toEqual(['work_order.created', 'work_order.assigned'])
    // The partner sees who works its order.
    const partnerView = await call(t.app, partner, 'GET', `/coverage_periods/${coveragePeriodId}/work_order`)
    expect(partnerView.json().work_order.assigned_user).toEqual({ id: operatorUser.id, email: operatorUser.email })

    // Once more with the same user: nothing changes, nothing is recorded.
    const again = await assign(workOrderId, operatorUser.id)
    expect(again.statusCode).toBe(200)
    expect(again.json().work_order.updated_at).toBe(workOrder.updated_at)
    expect(await auditActions(workOrderId)).toEqual(['work_order.created', 'work_order.assigned'])

    // Another user of another service account, then nobody.
    const colleague = await operatorUserOf(await t.newOperator())
    expect((await assign(workOrderId, colleague.id)).json().work_order.assigned_user).toEqual({ id: colleague.id, email: colleague.email })
    const unassigned = await assign(workOrderId, null)
    expect(unassigned.statusCode).toBe(200)
    expect(unassigned.json().work_order.assigned_user).toBeNull()
    expect((await assign(workOrderId, null)).statusCode).toBe(200)
    expect(await auditActions(workOrderId)).toEqual(['work_order.created', 'work_order.assigned', 'work_order.assigned', 'work_order.unassigned'])
    const stored = await t.db.selectFrom('work_orders').select('assigned_user_id').where('id', '=', workOrderId).executeTakeFirstOrThrow()
    expect(stored.assigned_user_id).toBeNull()
  })

  it('when the user is unknown, deactivated or of a partner account, then 422 at /assignment/user_id and the order keeps its assignee', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    await assign(workOrderId, operatorUser.id)
    const partnerUser = await operatorUserOf(partner)
    const leaver = await operatorUserOf()
    await t.services.users.deactivateUser(systemActor(operator.accountId), leaver.id)

    const cases: [string, string][] = [
      ['0193a4b2-0000-7000-8000-00000000dead', 'unknown_user'],
      [leaver.id, 'user_deactivated'],
      [partnerUser.id, 'not_an_operator_user'],
    ]
    for (const [userId, code] of cases) {
      const res = await assign(workOrderId, userId)
      expectProblem(res, 422, 'validation_failed')
      expect(res.json().errors).toEqual([{ pointer: '/assignment/user_id', code, detail: expect.any(String) }])
    }
    const read = await call(t.app, operator, 'GET', `/work_orders/${workOrderId}`)
    expect(read.json().work_order.assigned_user.id).toBe(operatorUser.id)
    expect(await auditActions(workOrderId)).toEqual(['work_order.created', 'work_order.assigned'])
  })

  it('when the work order is cancelled, then nobody can be assigned to it, and its assignee can still be removed', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    await assign(workOrderId, operatorUser.id)
    expect((await move(workOrderId, 'cancelled')).statusCode).toBe(200)
    const res = await assign(workOrderId, (await operatorUserOf()).id)
    expectProblem(res, 422, 'validation_failed')
    expect(res.json().errors).toEqual([{ pointer: '/assignment/user_id', code: 'work_order_closed', detail: 'must be null: the work order is cancelled' }])
    const cleared = await assign(workOrderId, null)
    expect(cleared.statusCode, cleared.body).toBe(200)
    expect(cleared.json().work_order.assigned_user).toBeNull()
  })

  it('when the body or the work order is wrong, then 422 or 404, never a 500', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    for (const body of [{}, { assignment: {} }, { assignment: { user_id: 'me' } }, { assignment: { user_id: operatorUser.id, extra: 1 } }, { user_id: operatorUser.id }]) {
      expectProblem(await call(t.app, operator, 'PUT', `/work_orders/${workOrderId}/assignment`, body), 422, 'validation_failed')
    }
    expectProblem(await assign('0193a4b2-0000-7000-8000-00000000beef', operatorUser.id), 404, 'work_order_not_found')
  })

  it('when a console operator assigns, then the audit event names them; the CSRF token is required as for any change', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    const body = { assignment: { user_id: operatorUser.id } }
    expect((await withSession(t.app, { token: operatorSession.token }, 'PUT', `/work_orders/${workOrderId}/assignment`, body)).statusCode).toBe(403)
    const res = await withSession(t.app, operatorSession, 'PUT', `/work_orders/${workOrderId}/assignment`, body)
    expect(res.statusCode, res.body).toBe(200)
    const event = await t.db.selectFrom('audit_events').selectAll().where('resource_id', '=', workOrderId).where('action', '=', 'work_order.assigned').executeTakeFirstOrThrow()
    expect(event).toMatchObject({ actor_user_id: operatorUser.id, channel: 'console', account_id: partner.accountId })
  })
})

describe('who may use the queue', () => {
  it('when a partner key or a partner console user calls the operator endpoints, then 403 and nothing changes', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    for (const [method, url, body] of [
      ['GET', `/work_orders?account_id=${partner.accountId}`, undefined],
      ['GET', '/work_orders/counts', undefined],
      ['GET', `/work_orders/${workOrderId}`, undefined],
      ['PUT', `/work_orders/${workOrderId}/assignment`, { assignment: { user_id: null } }],
    ] as const) {
      expectProblem(await call(t.app, partner, method, url, body), 403, 'forbidden')
    }
    const partnerUser = await consoleUser(t, partner)
    const session = await signedIn(t.app, partnerUser)
    expectProblem(await withSession(t.app, session, 'GET', '/work_orders?assigned_user_id=me'), 403, 'forbidden')
    expectProblem(await withSession(t.app, session, 'PUT', `/work_orders/${workOrderId}/assignment`, { assignment: { user_id: partnerUser.id } }), 403, 'forbidden')
    expect(await auditActions(workOrderId)).toEqual(['work_order.created'])
  })
})
