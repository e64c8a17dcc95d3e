import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { AcknowledgementSchema } from '../src/modules/acknowledgements/acknowledgements.schema.js'
import { FileDeliverySchema } from '../src/modules/carrier-delivery/file-deliveries.schema.js'
import { installThroughApi, settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { call, expectProblem, type Credential } from './helpers/test-app.js'

// The validator's samples, copied from the project's shared fixtures (test/fixtures/x12/README.md).
const FIXTURES = fileURLToPath(new URL('./fixtures/x12/', import.meta.url))
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8')

let bed: CarrierTestBed
let operator: Credential
let partner: Credential
/** A full 834 file really built and sent to sandbox_edi, and the control numbers read from it. */
let sent: { id: string; isa13: string; gs06: string; st02: string; coveragePeriodId: string }

function expectShape(schema: TSchema, value: unknown) {
  expect([...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`)).toEqual([])
}

/** A fixture 999 made to answer the group `gs06` and set `st02` (the fixtures answer group 1 or 2). */
const answering = (text: string, gs06: string, st02: string) => text.replace(/AK1\*BE\*\d+\*/, `AK1*BE*${gs06}*`).replace(/AK2\*834\*\d+\*/, `AK2*834*${st02}*`)

/** A TA1 interchange acknowledging ISA13 `isa13` with status A, E or R. */
const ta1 = (isa13: string, status: 'A' | 'E' | 'R', note = status === 'R' ? '022' : '000') =>
  'ISA*00*          *00*          *ZZ*SANDBOX_EDI    *ZZ*ENROLLSYNC     *261125*1739*^*00501*611251740*0*T*:~' +
  `TA1*${isa13}*261125*1738*${status}*${note}~` +
  'IEA*0*611251740~'

const post = (credential: Credential, deliveryId: string, body: string, contentType = 'application/edi-x12') =>
  call(bed.t.app, credential, 'POST', `/file_deliveries/${deliveryId}/acknowledgements`, body, { 'content-type': contentType })

const deliveryOf = async (credential: Credential, id: string) => (await call(bed.t.app, credential, 'GET', `/file_deliveries/${id}`)).json().file_delivery
const storedCount = async (id: string) => (await bed.t.db.selectFrom('acknowledgements').select('id').where('file_delivery_id', '=', id).execute()).length

beforeAll(async () => {
  bed = await startCarrierTestBed()
  operator = await bed.t.newOperator()
  partner = await bed.t.newPartner()
  const install = await installThroughApi(bed.t, partner, 'sandbox_edi', 1)
  const move = (status: string) => call(bed.t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status, message: status })
  expect((await move('in_progress')).statusCode).toBe(200)
  expect((await move('submitted')).statusCode).toBe(200)
  await settle(bed.workers)
  const [full] = (await call(bed.t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
  expect(full).toMatchObject({ channel: 'edi', status: 'sent' })
  const content = (await call(bed.t.app, operator, 'GET', `/file_deliveries/${full.id}/content`)).body
  const element = (segment: string, n: number) => content.split('~').map((s) => s.trim()).find((s) => s.startsWith(`${segment}*`))!.split('*')[n]!
  sent = { id: full.id, isa13: element('ISA', 13), gs06: element('GS', 6), st02: element('ST', 2), coveragePeriodId: install.coveragePeriodId }
  // sandbox_edi answers every 834 with its own TA1 and 999 (sandbox-carriers); these tests post
  // theirs to a delivery still awaiting, as a real carrier's file would be.
  await bed.t.db.deleteFrom('acknowledgements').where('file_delivery_id', '=', full.id).execute()
  await bed.t.db.updateTable('file_deliveries').set({ acknowledgement_status: 'awaited' }).where('id', '=', full.id).execute()
}, 120_000)
afterAll(async () => bed?.close())

/** Another sent 834 delivery of the same coverage period, inserted as the sender leaves it. */
async function insertSentDelivery(values: Record<string, unknown> = {}) {
  const full = await bed.t.db.selectFrom('file_deliveries').selectAll().where('id', '=', sent.id).executeTakeFirstOrThrow()
  const id = uuidv7()
  await bed.t.db
    .insertInto('file_deliveries')
    .values({
      id,
      account_id: full.account_id,
      coverage_period_id: full.coverage_period_id,
      group_id: full.group_id,
      carrier_name: 'sandbox_edi',
      kind: 'change',
      channel: 'edi',
      file_name: `change-${id}.x12`,
      status: 'sent',
      sent_at: new Date(),
      interchange_control_number: 900_001,
      acknowledgement_status: 'awaited',
      created_at: new Date(),
      updated_at: new Date(),
      ...values,
    })
    .execute()
  return id
}

describe('acknowledgements of an 834 delivery', () => {
  it('when an 834 file is sent, then its delivery awaits acknowledgement and carries one number as ISA13, GS06 and ST02', async () => {
    const delivery = await deliveryOf(partner, sent.id)
    expectShape(FileDeliverySchema, delivery)
    expect(delivery.acknowledgement_status).toBe('awaited')
    expect(Number(sent.isa13)).toBe(delivery.interchange_control_number)
    expect(Number(sent.gs06)).toBe(delivery.interchange_control_number)
    expect(sent.st02).toBe(String(delivery.interchange_control_number).padStart(4, '0'))
  })

  it('when a 999 answers another group, then 422 names the number that differs and nothing is stored', async () => {
    const other = String(Number(sent.gs06) + 1)
    const res = await post(operator, sent.id, answering(fixture('full-accepted.999.x12'), other, sent.st02))
    expectProblem(res, 422, 'acknowledgement_not_for_this_delivery')
    expect(res.json().detail).toContain(`AK1-02 acknowledges group ${other}`)
    const wrongSet = await post(operator, sent.id, answering(fixture('full-accepted.999.x12'), sent.gs06, '9999'))
    expectProblem(wrongSet, 422, 'acknowledgement_not_for_this_delivery')
    expect(wrongSet.json().detail).toContain('AK2-02')
    const wrongTa1 = await post(operator, sent.id, ta1('000000777', 'A'))
    expectProblem(wrongTa1, 422, 'acknowledgement_not_for_this_delivery')
    expect(wrongTa1.json().detail).toContain('TA1-01')
    expect(await storedCount(sent.id)).toBe(0)
    expect((await deliveryOf(operator, sent.id)).acknowledgement_status).toBe('awaited')
  })

  it('when the text is not a readable acknowledgement, then 422 acknowledgement_malformed says why and nothing is stored', async () => {
    const truncated = answering(fixture('full-accepted.999.x12'), sent.gs06, sent.st02).replace(/GE\*.*$/s, '')
    const res = await post(operator, sent.id, truncated, 'text/plain')
    expectProblem(res, 422, 'acknowledgement_malformed')
    expect(res.json().detail).toMatch(/truncated|missing_segment/)
    expectProblem(await post(operator, sent.id, 'hello'), 422, 'acknowledgement_malformed')
    expect(await storedCount(sent.id)).toBe(0)
  })

  it('when a partner key posts an acknowledgement, then 403 and nothing is stored', async () => {
    expectProblem(await post(partner, sent.id, ta1(sent.isa13, 'A')), 403, 'forbidden')
    expect(await storedCount(sent.id)).toBe(0)
  })

  it('when a JSON body is posted, then 415: the route takes X12 text only', async () => {
    const res = await call(bed.t.app, operator, 'POST', `/file_deliveries/${sent.id}/acknowledgements`, { x12: 'ISA' })
    expectProblem(res, 415, 'unsupported_media_type')
    expect(res.json().detail).toContain('application/edi-x12')
  })

  it('when a TA1 accepts the interchange, then it is stored and the delivery still awaits its 999', async () => {
    const res = await post(operator, sent.id, ta1(sent.isa13, 'A'))
    expect(res.statusCode, res.body).toBe(201)
    const ack = res.json().acknowledgement
    expectShape(AcknowledgementSchema, ack)
    expect(ack).toMatchObject({ file_delivery_id: sent.id, kind: 'ta1', status: 'accepted', source: 'operator', functional_groups: [] })
    expect(ack.ta1s).toEqual([{ acknowledged_control_number: sent.isa13, status: 'accepted', note: { code: '000', reason: 'no_error' } }])
    expect(ack.raw).toBe(ta1(sent.isa13, 'A'))
    expect(res.headers['cache-control']).toBe('no-store')
    expect((await deliveryOf(operator, sent.id)).acknowledgement_status).toBe('awaited')
  })

  it('when an accepting 999 is posted, then the delivery is accepted; a later rejecting 999 makes it rejected', async () => {
    const accepted = await post(operator, sent.id, answering(fixture('full-accepted.999.x12'), sent.gs06, sent.st02))
    expect(accepted.statusCode, accepted.body).toBe(201)
    expect(accepted.json().acknowledgement).toMatchObject({ kind: '999', status: 'accepted' })
    expect((await deliveryOf(partner, sent.id)).acknowledgement_status).toBe('accepted')

    const rejecting = answering(fixture('full-member-element-errors.999.x12'), sent.gs06, sent.st02)
    const rejected = await post(operator, sent.id, rejecting, 'text/plain; charset=utf-8')
    expect(rejected.statusCode, rejected.body).toBe(201)
    const ack = rejected.json().acknowledgement
    expect(ack.status).toBe('rejected')
    const [set] = ack.functional_groups[0].transaction_sets
    expect(set).toMatchObject({ control_number: sent.st02, status: 'rejected' })
    expect(set.segments[0]).toMatchObject({ segment_id: 'DMG', position: 19 })
    expect(set.segments[0].elements.map((e: { position: number; error: { reason: string } }) => [e.position, e.error.reason])).toEqual([
      [2, 'invalid_date'],
      [3, 'invalid_code_value'],
    ])
    // The bad value the carrier copied back (IK4-04: a birth date) is in raw only.
    expect(JSON.stringify({ ...ack, raw: undefined })).not.toContain('1985061')
    expect((await deliveryOf(partner, sent.id)).acknowledgement_status).toBe('rejected')

    // Posted through the route, its two IK4 findings became file_validation errors for the operators.
    const errors = (await call(bed.t.app, partner, 'GET', `/coverage_periods/${sent.coveragePeriodId}/errors?source=file_validation`)).json().errors
    const fromThis = errors.filter((e: { message: string }) => e.message.startsWith("The carrier's 999 rejected DMG"))
    // (The sample's position 19 is another segment in this file, so no loop is claimed.)
    expect(fromThis.map((e: { message: string }) => e.message).sort()).toEqual([
      "The carrier's 999 rejected DMG02: a data element has an invalid date (IK4 code 8).",
      "The carrier's 999 rejected DMG03: a data element has an invalid code value (IK4 code 7).",
    ])
    expect(fromThis.every((e: { assignee: string; status: string }) => e.assignee === 'service' && e.status === 'unresolved')).toBe(true)
    expect(JSON.stringify(fromThis)).not.toContain('1985061')
  })

  it('when the acknowledgements are listed, then they come newest first, with raw for operators and without for the partner', async () => {
    const asOperator = await call(bed.t.app, operator, 'GET', `/file_deliveries/${sent.id}/acknowledgements`)
    expect(asOperator.statusCode, asOperator.body).toBe(200)
    const list = asOperator.json().acknowledgements
    for (const ack of list) expectShape(AcknowledgementSchema, ack)
    expect(list.map((a: { kind: string; status: string }) => [a.kind, a.status])).toEqual([
      ['999', 'rejected'],
      ['999', 'accepted'],
      ['ta1', 'accepted'],
    ])
    expect(list.every((a: { raw?: string }) => typeof a.raw === 'string')).toBe(true)

    const asPartner = (await call(bed.t.app, partner, 'GET', `/file_deliveries/${sent.id}/acknowledgements`)).json().acknowledgements
    expect(asPartner.map((a: { id: string }) => a.id)).toEqual(list.map((a: { id: string }) => a.id))
    expect(asPartner.some((a: object) => 'raw' in a)).toBe(false)

    const stranger = await bed.t.newPartner('Another partner')
    expectProblem(await call(bed.t.app, stranger, 'GET', `/file_deliveries/${sent.id}/acknowledgements`), 404, 'file_delivery_not_found')
  })

  it('when a TA1 rejects the interchange, then the delivery is rejected, and a 999 after it does not undo that', async () => {
    const id = await insertSentDelivery({ interchange_control_number: 900_001 })
    const res = await post(operator, id, ta1('000900001', 'R'))
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().acknowledgement).toMatchObject({ kind: 'ta1', status: 'rejected' })
    expect((await deliveryOf(operator, id)).acknowledgement_status).toBe('rejected')
    expect((await post(operator, id, answering(fixture('change-accepted.999.x12'), '900001', '900001'))).statusCode).toBe(201)
    expect((await deliveryOf(operator, id)).acknowledgement_status).toBe('rejected')
  })

  it('when a 999 partially accepts the group, then the delivery is partially_accepted', async () => {
    const id = await insertSentDelivery({ interchange_control_number: 900_002 })
    const partial = answering(fixture('change-accepted.999.x12'), '900002', '900002').replace('AK9*A*1*1*1', 'AK9*P*1*1*1')
    const res = await post(operator, id, partial)
    expect(res.statusCode, res.body).toBe(201)
    expect((await deliveryOf(operator, id)).acknowledgement_status).toBe('partially_accepted')
  })

  it('when the delivery is an API submission or not sent yet, then 409 and nothing is stored; an unknown one is 404', async () => {
    const api = await insertSentDelivery({ channel: 'api', interchange_control_number: null, acknowledgement_status: null })
    expectProblem(await post(operator, api, ta1('000000001', 'A')), 409, 'acknowledgement_not_expected')
    expect((await deliveryOf(operator, api)).acknowledgement_status).toBeNull()
    const pending = await insertSentDelivery({ status: 'pending', sent_at: null, interchange_control_number: 900_003, acknowledgement_status: null })
    expectProblem(await post(operator, pending, ta1('000900003', 'A')), 409, 'acknowledgement_not_expected')
    expect(await storedCount(api)).toBe(0)
    expect(await storedCount(pending)).toBe(0)
    expectProblem(await post(operator, uuidv7(), ta1('000000001', 'A')), 404, 'file_delivery_not_found')
  })
})
