import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertWatcher } from './helpers/error-fixtures.js'
import { insertReadySetup } from './helpers/setup-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

async function openWorkOrder(partner: Credential, carrierName = 'sandbox_manual') {
  const setup = await insertReadySetup(t.db, partner.accountId, { carrierName })
  const res = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
  expect(res.statusCode, res.body).toBe(201)
  return { setup, workOrderId: res.json().work_order.id as string }
}

const move = (workOrderId: string, body: Record<string, unknown>, who: Credential = operator) =>
  call(t.app, who, 'POST', `/work_orders/${workOrderId}/transitions`, body)

const coveragePeriodOf = (id: string) => t.db.selectFrom('coverage_periods').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

const eventsOf = async (accountId: string, type: string) =>
  (
    await t.db
      .selectFrom('watcher_deliveries')
      .select('payload')
      .where('account_id', '=', accountId)
      .where('event_type', '=', type)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => (row.payload as { data: Record<string, unknown> }).data)

describe('work order transitions (operators)', () => {
  it('when the operator walks an order from open to completed, then every move is in history and the coverage period goes test → production', async () => {
    const partner = await t.newPartner()
    await insertWatcher(t.db, partner.accountId, ['work_order.status_changed', 'coverage_period.state_changed'])
    const { setup, workOrderId } = await openWorkOrder(partner, 'sandbox_edi')

    for (const status of ['in_progress', 'submitted']) {
      const res = await move(workOrderId, { status, message: `now ${status}` })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().work_order.status).toBe(status)
    }
    expect((await coveragePeriodOf(setup.coveragePeriod.id)).state).toBe('test')

    const completed = await move(workOrderId, { status: 'completed', message: 'Installed by the carrier.', carrier_group_number: 'G-4242' })
    expect(completed.statusCode, completed.body).toBe(200)
    const workOrder = completed.json().work_order
    expect(workOrder.allowed_transitions).toEqual([])
    expect(workOrder.history.map((entry: { status: string }) => entry.status)).toEqual(['open', 'in_progress', 'submitted', 'completed'])
    expect(workOrder.history[3]).toMatchObject({ message: 'Installed by the carrier.', by: expect.any(String) })
    expect(Date.parse(workOrder.history[3].at)).not.toBeNaN()

    const cp = await coveragePeriodOf(setup.coveragePeriod.id)
    expect(cp.state).toBe('production')
    expect(cp.carrier_group_number).toBe('G-4242')
    expect(cp.installed_at).toBeInstanceOf(Date)
    const installment = await t.db.selectFrom('group_installments').select('status').where('id', '=', setup.installment!.id).executeTakeFirstOrThrow()
    expect(installment.status).toBe('installed')
    const group = await call(t.app, partner, 'GET', `/groups/${setup.group.id}`)
    expect(group.json().group.phase).toBe('member_management')

    // The partner follows along through its own read and its watcher.
    const partnerView = await call(t.app, partner, 'GET', `/coverage_periods/${setup.coveragePeriod.id}/work_order`)
    expect(partnerView.json().work_order.status).toBe('completed')
    expect((await eventsOf(partner.accountId, 'work_order.status_changed')).map((data) => [data.previous_status, data.status])).toEqual([
      [null, 'open'],
      ['open', 'in_progress'],
      ['in_progress', 'submitted'],
      ['submitted', 'completed'],
    ])
    expect((await eventsOf(partner.accountId, 'coverage_period.state_changed')).map((data) => data.state)).toEqual(['configuration', 'test', 'production'])
  })

  it('when the carrier connection has no member management, then completion installs the group but keeps it in the installation phase', async () => {
    const partner = await t.newPartner()
    const { setup, workOrderId } = await openWorkOrder(partner, 'sandbox_manual')
    for (const status of ['in_progress', 'submitted']) expect((await move(workOrderId, { status, message: status })).statusCode).toBe(200)
    expect((await move(workOrderId, { status: 'completed', message: 'done', carrier_group_number: 'M-1' })).statusCode).toBe(200)
    expect((await coveragePeriodOf(setup.coveragePeriod.id)).state).toBe('production')
    const group = await t.db.selectFrom('groups').select('phase').where('id', '=', setup.group.id).executeTakeFirstOrThrow()
    expect(group.phase).toBe('installation')
  })

  it('when the carrier asks for more information, then the order goes back and forth and the coverage period stays in test', async () => {
    const partner = await t.newPartner()
    const { setup, workOrderId } = await openWorkOrder(partner)
    await move(workOrderId, { status: 'in_progress', message: 'a' })
    await move(workOrderId, { status: 'submitted', message: 'b' })
    expect((await move(workOrderId, { status: 'needs_information', message: 'Carrier wants the signed application.' })).json().work_order.allowed_transitions).toEqual([
      'submitted',
      'cancelled',
    ])
    expect((await move(workOrderId, { status: 'submitted', message: 'Sent again.' })).statusCode).toBe(200)
    expect((await coveragePeriodOf(setup.coveragePeriod.id)).state).toBe('test')
  })

  it('when a move is illegal, then 422 names the statuses allowed from the current one and nothing changes', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    const res = await move(workOrderId, { status: 'completed', message: 'skip ahead', carrier_group_number: 'X' })
    expect(res.statusCode).toBe(422)
    expect(res.headers['content-type']).toContain('application/problem+json')
    expect(res.json()).toMatchObject({ code: 'work_order_transition_not_allowed', errors: [{ pointer: '/status', detail: 'must be one of in_progress, cancelled' }] })
    expect(res.json().detail).toContain('in_progress, cancelled')
    const read = await call(t.app, operator, 'GET', `/work_orders/${workOrderId}`)
    expect(read.json().work_order.status).toBe('open')
    expect(read.json().work_order.history).toHaveLength(1)
  })

  it('when completing without a carrier group number, then 422 points at it; a cancelled order is final', async () => {
    const partner = await t.newPartner()
    const { setup, workOrderId } = await openWorkOrder(partner)
    await move(workOrderId, { status: 'in_progress', message: 'a' })
    await move(workOrderId, { status: 'submitted', message: 'b' })
    const res = await move(workOrderId, { status: 'completed', message: 'installed' })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({ code: 'carrier_group_number_required', errors: [{ pointer: '/carrier_group_number' }] })

    expect((await move(workOrderId, { status: 'cancelled', message: 'Client withdrew.' })).statusCode).toBe(200)
    const installment = await t.db.selectFrom('group_installments').select('status').where('id', '=', setup.installment!.id).executeTakeFirstOrThrow()
    expect(installment.status).toBe('cancelled')
    const again = await move(workOrderId, { status: 'in_progress', message: 'reopen' })
    expect(again.statusCode).toBe(422)
    expect(again.json().detail).toContain('final')
  })

  it('when a partner calls the operator endpoints, then 403; an unknown id is 404; a bad status is 422', async () => {
    const partner = await t.newPartner()
    const { workOrderId } = await openWorkOrder(partner)
    expect((await move(workOrderId, { status: 'in_progress', message: 'x' }, partner)).statusCode).toBe(403)
    expect((await call(t.app, partner, 'GET', '/work_orders')).statusCode).toBe(403)
    expect((await call(t.app, partner, 'GET', `/work_orders/${workOrderId}`)).statusCode).toBe(403)
    expect((await call(t.app, operator, 'GET', '/work_orders/0193a4b2-0000-7000-8000-00000000dead')).json().code).toBe('work_order_not_found')
    const bad = await move(workOrderId, { status: 'installed', message: 'x' })
    expect(bad.statusCode).toBe(422)
    expect(bad.json().errors[0].pointer).toBe('/status')
  })

  it('when the operator lists the queue, then it filters by status, carrier and account, oldest first', async () => {
    const partner = await t.newPartner()
    const first = await openWorkOrder(partner, 'sandbox_manual')
    const second = await openWorkOrder(partner, 'sandbox_edi')
    await move(second.workOrderId, { status: 'in_progress', message: 'go' })

    const open = await call(t.app, operator, 'GET', `/work_orders?status=open&account_id=${partner.accountId}`)
    expect(open.statusCode, open.body).toBe(200)
    expect(open.json().work_orders.map((w: { id: string }) => w.id)).toEqual([first.workOrderId])
    expect(open.headers.total).toBe('1')

    const all = await call(t.app, operator, 'GET', `/work_orders?account_id=${partner.accountId}`)
    expect(all.json().work_orders.map((w: { id: string }) => w.id)).toEqual([first.workOrderId, second.workOrderId])
    const edi = await call(t.app, operator, 'GET', `/work_orders?account_id=${partner.accountId}&carrier_name=sandbox_edi`)
    expect(edi.json().work_orders).toMatchObject([{ id: second.workOrderId, carrier_name: 'sandbox_edi', status: 'in_progress' }])
    expect((await call(t.app, operator, 'GET', '/work_orders?status=done')).statusCode).toBe(422)
  })
})
