import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { ReceivedAcknowledgementSchema } from '../src/modules/acknowledgements/acknowledgements.schema.js'
import {
  createAcknowledgementInboxes,
  createAcknowledgementOverdueCheck,
  createAcknowledgementPickupCheck,
  createAcknowledgementReceiver,
  DirectoryInbox,
  overdueSubject,
  pickUpAcknowledgements,
  type AcknowledgementReceiver,
  type AcknowledgementReceiverImpl,
} from '../src/modules/acknowledgements/index.js'
import { markSent } from '../src/modules/carrier-delivery/carrier-delivery.repo.js'
import { ConfigError } from '../src/config.js'
import { createWorkers, type Workers } from '../src/main/workers.js'
import { CarrierCatalog } from '../src/modules/carriers/carriers.catalog.js'
import type { CarrierConfig } from '../src/modules/carriers/carriers.schema.js'
import { dedupeKeyOf } from '../src/modules/errors/raise-errors.js'
import { installThroughApi, settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { startSftpServer, type TestSftpServer } from './helpers/sftp-server.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { call, expectProblem, startTestApp, testSsnProtection, type Credential } from './helpers/test-app.js'
import { openIsolatedDatabase, testCarrierSettings, testWebhookSettings, waitFor } from './helpers/webhooks.js'

// The validator's samples (test/fixtures/x12/README.md): each 999 answers group 1 (full files) or 2 (the change file).
const FIXTURES = fileURLToPath(new URL('./fixtures/x12/', import.meta.url))
const fixture = (name: string) => readFile(join(FIXTURES, name), 'utf8')

let bed: CarrierTestBed
let operator: Credential
let partner: Credential
/** The sandbox_edi full file really built and sent: the other deliveries copy its account, group and transactions. */
let sentId: string
const logLines: string[] = []
const log = pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) })
let receiver: AcknowledgementReceiverImpl

function expectShape(schema: TSchema, value: unknown) {
  expect([...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`)).toEqual([])
}

/** A carrier name of the test's own: control numbers are unique per carrier, so tests never meet. */
const carrierOf = (tag: string) => `${tag}_${Math.random().toString(36).slice(2, 8)}`

/** A sent 834 delivery of `carrierName` with interchange control number `icn`, as the sender leaves it. */
async function insertSentDelivery(carrierName: string, icn: number, values: Record<string, unknown> = {}) {
  const full = await bed.t.db.selectFrom('file_deliveries').selectAll().where('id', '=', sentId).executeTakeFirstOrThrow()
  const id = uuidv7()
  await bed.t.db
    .insertInto('file_deliveries')
    .values({
      id,
      account_id: full.account_id,
      coverage_period_id: full.coverage_period_id,
      group_id: full.group_id,
      carrier_name: carrierName,
      kind: 'full',
      channel: 'edi',
      file_name: `${carrierName}-${icn}.x12`,
      status: 'sent',
      sent_at: new Date(),
      interchange_control_number: icn,
      acknowledgement_status: 'awaited',
      created_at: new Date(),
      updated_at: new Date(),
      ...values,
    })
    .execute()
  return id
}

const statusOf = async (id: string) => (await bed.t.db.selectFrom('file_deliveries').select('acknowledgement_status').where('id', '=', id).executeTakeFirstOrThrow()).acknowledgement_status
const stored = (carrierName: string) => bed.t.db.selectFrom('acknowledgements').selectAll().where('carrier_name', '=', carrierName).orderBy('received_at').orderBy('id').execute()
const listed = async (query: string) => {
  const res = await call(bed.t.app, operator, 'GET', `/acknowledgements?${query}`)
  expect(res.statusCode, res.body).toBe(200)
  return res
}

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
  sentId = full.id
  receiver = createAcknowledgementReceiver({ db: bed.t.db, ssn: testSsnProtection(), log })
}, 120_000)
afterAll(async () => bed?.close())

describe('the receiver matches acknowledgements by carrier and control numbers', () => {
  const samples = [
    { file: 'full-accepted.999.x12', number: 1, status: 'accepted' },
    { file: 'change-accepted.999.x12', number: 2, status: 'accepted' },
    { file: 'full-member-element-errors.999.x12', number: 1, status: 'rejected' },
    { file: 'full-required-segment-missing.999.x12', number: 1, status: 'rejected' },
  ] as const

  for (const sample of samples) {
    it(`when ${sample.file} arrives, then it links to the carrier's 834 with ISA13 = GS06 = ${sample.number} and ST02 ${String(sample.number).padStart(4, '0')}, and the delivery is ${sample.status}`, async () => {
      const carrier = carrierOf('sample')
      const ours = await insertSentDelivery(carrier, sample.number)
      // The same numbers at another carrier and another number at this one: neither is the answer.
      const otherCarrier = await insertSentDelivery(carrierOf('other'), sample.number)
      const otherNumber = await insertSentDelivery(carrier, sample.number + 10)

      const receipt = await receiver.receive({ carrierName: carrier, text: await fixture(sample.file), source: 'inbound', fileName: sample.file })
      expect(receipt).toMatchObject({ outcome: 'matched', fileDeliveryId: ours })
      expect(await statusOf(ours)).toBe(sample.status)
      expect(await statusOf(otherCarrier)).toBe('awaited')
      expect(await statusOf(otherNumber)).toBe('awaited')

      const [row] = await stored(carrier)
      expect(row).toMatchObject({ id: receipt.id, outcome: 'matched', kind: '999', status: sample.status, source: 'inbound', file_name: sample.file, account_id: expect.any(String), problem: null })
      const set = (row!.model as { groups: { transactionSets: { controlNumber: string }[] }[] }).groups[0]!.transactionSets[0]!
      expect(set.controlNumber).toBe(String(sample.number).padStart(4, '0'))
      const asDelivery = (await call(bed.t.app, operator, 'GET', `/file_deliveries/${ours}/acknowledgements`)).json().acknowledgements
      expect(asDelivery.map((a: { id: string; source: string }) => [a.id, a.source])).toEqual([[receipt.id, 'inbound']])
    })
  }

  it('when a delivery is not sent or an API submission, then an acknowledgement of its number stays unmatched', async () => {
    const carrier = carrierOf('unsent')
    const pending = await insertSentDelivery(carrier, 2, { status: 'pending', sent_at: null, acknowledgement_status: null })
    const receipt = await receiver.receive({ carrierName: carrier, text: await fixture('change-accepted.999.x12'), source: 'sandbox' })
    expect(receipt).toMatchObject({ outcome: 'unmatched', fileDeliveryId: null })
    expect(await statusOf(pending)).toBeNull()
  })

  it('when a 999 names our group but another transaction set, then it is kept unmatched with the number that differs', async () => {
    const carrier = carrierOf('mixed')
    await insertSentDelivery(carrier, 1)
    const text = (await fixture('full-accepted.999.x12')).replace('AK2*834*0001*', 'AK2*834*0007*')
    const receipt = await receiver.receive({ carrierName: carrier, text, source: 'inbound' })
    expect(receipt.outcome).toBe('unmatched')
    expect((await stored(carrier))[0]!.problem).toContain('AK2-02 acknowledges transaction set 0007')
  })
})

describe('acknowledgements that cannot be matched or read are kept and reported', () => {
  it('when an acknowledgement answers an interchange nobody sent, then it is kept unmatched, listed for operators and logged without its text', async () => {
    const carrier = carrierOf('unknown')
    const text = await fixture('full-member-element-errors.999.x12')
    logLines.length = 0
    const receipt = await receiver.receive({ carrierName: carrier, text, source: 'inbound', fileName: '999_unknown.x12' })
    expect(receipt).toMatchObject({ outcome: 'unmatched', fileDeliveryId: null })

    const res = await listed(`outcome=unmatched&carrier_name=${carrier}`)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.headers.total).toBe('1')
    const [ack] = res.json().acknowledgements
    expectShape(ReceivedAcknowledgementSchema, ack)
    expect(ack).toMatchObject({ id: receipt.id, outcome: 'unmatched', carrier_name: carrier, file_name: '999_unknown.x12', file_delivery_id: null, kind: '999', status: 'rejected', source: 'inbound', raw: text })
    expect(ack.problem).toBe(`No sent 834 file of carrier ${carrier} has interchange control number 1 (AK1-02)`)

    const warning = logLines.map((line) => JSON.parse(line)).find((entry) => entry.acknowledgement_id === receipt.id)
    expect(warning).toMatchObject({ level: 40, carrier_name: carrier, outcome: 'unmatched', file_name: '999_unknown.x12' })
    // The 999 copies a birth date back (IK4-04): the log line never carries it.
    expect(logLines.join('\n')).not.toContain('1985061')
  })

  it('when a file is not a readable TA1 or 999, then it is kept malformed with the reason and listed', async () => {
    const carrier = carrierOf('malformed')
    const truncated = (await fixture('full-accepted.999.x12')).replace(/GE\*.*$/s, '')
    const first = await receiver.receive({ carrierName: carrier, text: truncated, source: 'inbound', fileName: 'broken.x12' })
    const second = await receiver.receive({ carrierName: carrier, text: 'hello, this is not X12', source: 'inbound', fileName: 'note.txt' })
    expect([first.outcome, second.outcome]).toEqual(['malformed', 'malformed'])

    const list = (await listed(`outcome=malformed&carrier_name=${carrier}`)).json().acknowledgements
    for (const ack of list) expectShape(ReceivedAcknowledgementSchema, ack)
    expect(list.map((a: { file_name: string }) => a.file_name)).toEqual(['note.txt', 'broken.x12'])
    expect(list[0]).toMatchObject({ kind: null, status: null, file_delivery_id: null, carrier_control_number: null, ta1s: [], functional_groups: [] })
    expect(list[0].problem).toMatch(/^Not a readable TA1 or 999 \(not_x12\)/)
    expect(list[1].problem).toMatch(/truncated|missing_segment/)
    expect((await listed(`outcome=matched&carrier_name=${carrier}`)).json().acknowledgements).toEqual([])
  })

  it('when a partner asks for the report, then 403; a bad filter is 400', async () => {
    expectProblem(await call(bed.t.app, partner, 'GET', '/acknowledgements'), 403, 'forbidden')
    const bad = await call(bed.t.app, operator, 'GET', '/acknowledgements?outcome=lost')
    expect(bad.statusCode).toBeGreaterThanOrEqual(400)
    expect(bad.statusCode).toBeLessThan(500)
  })

  it('when the report has more than a page, then it is paginated with Link headers', async () => {
    const carrier = carrierOf('paged')
    for (let i = 0; i < 3; i++) await receiver.receive({ carrierName: carrier, text: `not x12 ${i}`, source: 'inbound' })
    const res = await listed(`carrier_name=${carrier}&per_page=2&page=2`)
    expect(res.headers.total).toBe('3')
    expect(res.headers.link).toContain('rel="first"')
    expect(res.json().acknowledgements).toHaveLength(1)
  })
})

describe('the same acknowledgement received twice', () => {
  it('when the same text comes again from the same carrier, then it is stored once and the stored one answers', async () => {
    const carrier = carrierOf('twice')
    const delivery = await insertSentDelivery(carrier, 2)
    const text = await fixture('change-accepted.999.x12')
    const first = await receiver.receive({ carrierName: carrier, text, source: 'inbound', fileName: 'a.x12' })
    const again = await receiver.receive({ carrierName: carrier, text, source: 'sandbox', fileName: 'b.x12' })
    expect(again).toMatchObject({ id: first.id, outcome: 'matched', fileDeliveryId: delivery })
    expect(await stored(carrier)).toHaveLength(1)
    // Another carrier's identical text is its own acknowledgement.
    const elsewhere = await receiver.receive({ carrierName: carrierOf('elsewhere'), text, source: 'inbound' })
    expect(elsewhere.id).not.toBe(first.id)

    const junk = await receiver.receive({ carrierName: carrier, text: 'junk', source: 'inbound' })
    expect((await receiver.receive({ carrierName: carrier, text: 'junk', source: 'inbound' })).id).toBe(junk.id)
    expect(await stored(carrier)).toHaveLength(2)
  })

  it('when an operator posts the same text twice, then 201 stores it and 200 answers the stored one', async () => {
    const carrier = 'sandbox_edi'
    const delivery = await insertSentDelivery(carrier, 777_001)
    const text = (await fixture('change-accepted.999.x12')).replace('AK1*BE*2*', 'AK1*BE*777001*').replace('AK2*834*0002*', 'AK2*834*777001*')
    const post = () => call(bed.t.app, operator, 'POST', `/file_deliveries/${delivery}/acknowledgements`, text, { 'content-type': 'application/edi-x12' })
    const first = await post()
    expect(first.statusCode, first.body).toBe(201)
    const second = await post()
    expect(second.statusCode, second.body).toBe(200)
    expect(second.json().acknowledgement.id).toBe(first.json().acknowledgement.id)
    expect((await bed.t.db.selectFrom('acknowledgements').select('id').where('file_delivery_id', '=', delivery).execute()).length).toBe(1)
  })

  it('when an acknowledgement kept unmatched is posted for its delivery, then the stored one is linked to it', async () => {
    const carrier = 'sandbox_edi'
    const text = (await fixture('full-accepted.999.x12')).replace('AK1*BE*1*', 'AK1*BE*777002*').replace('AK2*834*0001*', 'AK2*834*777002*')
    const early = await receiver.receive({ carrierName: carrier, text, source: 'inbound' })
    expect(early.outcome).toBe('unmatched')
    const delivery = await insertSentDelivery(carrier, 777_002)
    const res = await call(bed.t.app, operator, 'POST', `/file_deliveries/${delivery}/acknowledgements`, text, { 'content-type': 'text/plain' })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().acknowledgement).toMatchObject({ id: early.id, file_delivery_id: delivery, source: 'inbound' })
    expect(await statusOf(delivery)).toBe('accepted')
    const [row] = await bed.t.db.selectFrom('acknowledgements').selectAll().where('id', '=', early.id).execute()
    expect(row).toMatchObject({ outcome: 'matched', problem: null, file_delivery_id: delivery })
  })
})

describe('inbound pickup from a directory', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ack-inbound-'))
  })
  afterAll(async () => rm(dir, { recursive: true, force: true }))

  it('when files wait in the inbound directory, then each is stored and moved into processed/, uploads in progress stay', async () => {
    const carrier = carrierOf('inbox')
    const delivery = await insertSentDelivery(carrier, 1)
    const inbox = join(dir, carrier)
    await mkdir(inbox)
    await writeFile(join(inbox, '999-0001.x12'), await fixture('full-member-element-errors.999.x12'))
    await writeFile(join(inbox, 'garbage.x12'), 'not an acknowledgement')
    await writeFile(join(inbox, 'next.x12.part'), 'ISA*00*')
    await writeFile(join(inbox, '.hidden'), 'x')

    let now = new Date('2026-11-25T10:00:00.000Z')
    const check = createAcknowledgementPickupCheck(receiver, [{ carrierName: carrier, inbox: new DirectoryInbox(inbox) }], { clock: () => now, everyMs: 60_000 })
    await check()
    expect(await statusOf(delivery)).toBe('rejected')
    const rows = await stored(carrier)
    expect(rows.map((r) => [r.file_name, r.outcome, r.source])).toEqual(
      expect.arrayContaining([
        ['999-0001.x12', 'matched', 'inbound'],
        ['garbage.x12', 'malformed', 'inbound'],
      ]),
    )
    expect(rows.every((r) => r.received_at.getTime() === now.getTime())).toBe(true)
    expect((await readdir(inbox)).sort()).toEqual(['.hidden', 'next.x12.part', 'processed'])
    expect((await readdir(join(inbox, 'processed'))).sort()).toEqual(['999-0001.x12', 'garbage.x12'])

    // The carrier reuses a file name with the same text: stored once, the second copy kept beside the first.
    await writeFile(join(inbox, '999-0001.x12'), await fixture('full-member-element-errors.999.x12'))
    now = new Date('2026-11-25T10:00:30.000Z')
    await check() // not due yet
    expect(await readdir(inbox)).toContain('999-0001.x12')
    now = new Date('2026-11-25T10:01:00.000Z')
    await check()
    expect(await readdir(inbox)).not.toContain('999-0001.x12')
    expect((await readdir(join(inbox, 'processed'))).filter((name) => name.startsWith('999-0001.x12'))).toHaveLength(2)
    expect(await stored(carrier)).toHaveLength(2)
  })

  it('when a file cannot be stored, then it stays in the inbound directory for the next poll', async () => {
    const carrier = carrierOf('failing')
    const inbox = join(dir, carrier)
    await mkdir(inbox)
    await writeFile(join(inbox, 'ack.x12'), await fixture('full-accepted.999.x12'))
    let failing = true
    const flaky: AcknowledgementReceiver & Pick<AcknowledgementReceiverImpl, 'rematchUnmatched'> = {
      receive: async (arrival) => {
        if (failing) throw new Error('the database is down')
        return receiver.receive(arrival)
      },
      rematchUnmatched: (carrierName, since) => receiver.rematchUnmatched(carrierName, since),
    }
    let now = new Date('2026-11-25T10:00:00.000Z')
    const check = createAcknowledgementPickupCheck(flaky, [{ carrierName: carrier, inbox: new DirectoryInbox(inbox) }], { clock: () => now, everyMs: 1000 })
    await check()
    expect(await readdir(inbox)).toEqual(['ack.x12'])
    expect(await stored(carrier)).toHaveLength(0)
    failing = false
    now = new Date('2026-11-25T10:00:05.000Z')
    await check()
    expect(await readdir(inbox)).toEqual(['processed'])
    expect((await stored(carrier)).map((r) => r.outcome)).toEqual(['unmatched'])
  })

  it('when a fast carrier answers before its 834 is marked sent, then the answer is kept unmatched and the next pickup run matches it', async () => {
    const carrier = carrierOf('fast')
    const inbox = join(dir, carrier)
    await mkdir(inbox)
    // The transport has delivered the file; marking it sent comes in a later transaction.
    const deliveryId = await insertSentDelivery(carrier, 777_003, { status: 'pending', sent_at: null, acknowledgement_status: null })
    const text = (await fixture('full-accepted.999.x12')).replace('AK1*BE*1*', 'AK1*BE*777003*').replace('AK2*834*0001*', 'AK2*834*777003*')
    await writeFile(join(inbox, '999-fast.x12'), text)
    // Its answer, and one for an interchange no delivery will ever have.
    await writeFile(join(inbox, '999-stranger.x12'), text.replaceAll('777003', '777999'))
    let now = new Date()
    const check = createAcknowledgementPickupCheck(receiver, [{ carrierName: carrier, inbox: new DirectoryInbox(inbox) }], { clock: () => now, everyMs: 60_000 })
    await check()
    expect((await stored(carrier)).map((r) => r.outcome)).toEqual(['unmatched', 'unmatched'])
    expect((await readdir(join(inbox, 'processed'))).sort()).toEqual(['999-fast.x12', '999-stranger.x12'])

    await bed.t.db.transaction().execute((tx) => markSent(tx, { id: deliveryId, channel: 'edi' }, 'test', new Date()))
    expect(await statusOf(deliveryId)).toBe('awaited')
    now = new Date(now.getTime() + 60_000)
    await check()
    expect(await statusOf(deliveryId)).toBe('accepted')
    const rows = await stored(carrier)
    expect(rows.map((r) => [r.file_name, r.outcome, r.file_delivery_id])).toEqual(
      expect.arrayContaining([
        ['999-fast.x12', 'matched', deliveryId],
        ['999-stranger.x12', 'unmatched', null],
      ]),
    )
    expect(rows).toHaveLength(2)
  })

  it('when an answer was matched before the delivery is marked sent, then marking it sent keeps its acknowledgement status', async () => {
    const carrier = carrierOf('early')
    const deliveryId = await insertSentDelivery(carrier, 777_004, { status: 'pending', sent_at: null, acknowledgement_status: 'accepted' })
    await bed.t.db.transaction().execute((tx) => markSent(tx, { id: deliveryId, channel: 'edi' }, 'test', new Date()))
    expect(await statusOf(deliveryId)).toBe('accepted')
    const other = await insertSentDelivery(carrier, 777_005, { status: 'pending', sent_at: null, acknowledgement_status: null })
    await bed.t.db.transaction().execute((tx) => markSent(tx, { id: other, channel: 'edi' }, 'test', new Date()))
    expect(await statusOf(other)).toBe('awaited')
  })

  it('when the inbound directory does not exist yet, then the pickup finds nothing and fails nothing', async () => {
    const check = createAcknowledgementPickupCheck(receiver, [{ carrierName: carrierOf('none'), inbox: new DirectoryInbox(join(dir, 'missing')) }])
    await expect(check()).resolves.toBeUndefined()
  })
})

describe('overdue acknowledgements', () => {
  const errorsOf = (deliveryId: string, coveragePeriodId: string) =>
    bed.t.db
      .selectFrom('errors')
      .selectAll()
      .where('coverage_period_id', '=', coveragePeriodId)
      .where('dedupe_key', '=', dedupeKeyOf('file_validation', { parameter: 'coverage', memberId: null, planId: null, subject: overdueSubject(deliveryId) }))
      .execute()

  it('when no 999 arrives within the due hours, then the delivery is overdue with one error; the 999 arriving later moves it on and resolves the error', async () => {
    const carrier = carrierOf('late')
    const deliveryId = await insertSentDelivery(carrier, 42, { sent_at: new Date('2026-11-20T08:00:00.000Z') })
    // The sent full file's member transactions, copied onto this one: the error links them.
    const sentTransactions = await bed.t.db.selectFrom('member_transactions').selectAll().where('file_delivery_id', '=', sentId).execute()
    expect(sentTransactions.length).toBeGreaterThan(0)
    const transactionIds = sentTransactions.map(() => uuidv7())
    await bed.t.db
      .insertInto('member_transactions')
      .values(sentTransactions.map((row, i) => ({ ...row, id: transactionIds[i]!, file_delivery_id: deliveryId })))
      .execute()
    const delivery = await bed.t.db.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow()
    const sentAt = delivery.sent_at!
    const hours = (n: number) => new Date(sentAt.getTime() + n * 3_600_000)
    let now = hours(23.9)
    const check = createAcknowledgementOverdueCheck(bed.t.db, { carriers: () => [{ carrierName: carrier, dueHours: 24 }], clock: () => now, everyMs: 60_000 })

    await check()
    expect(await statusOf(deliveryId)).toBe('awaited')
    // A TA1 accepting the interchange is no 999: the file still awaits it.
    const ta1 =
      'ISA*00*          *00*          *ZZ*SANDBOX_EDI    *ZZ*ENROLLSYNC     *261125*1739*^*00501*611251741*0*T*:~' +
      'TA1*000000042*261125*1738*A*000~IEA*0*611251741~'
    expect((await receiver.receive({ carrierName: carrier, text: ta1, source: 'inbound' })).outcome).toBe('matched')

    now = hours(24.1)
    await check()
    expect(await statusOf(deliveryId)).toBe('overdue')
    const [error, ...more] = await errorsOf(deliveryId, delivery.coverage_period_id)
    expect(more).toEqual([])
    expect(error).toMatchObject({ source: 'file_validation', assignee: 'service', discrepancy_parameter: 'coverage', discrepancy_kind: 'carrier_missing', member_id: null, plan_id: null, status: 'unresolved' })
    expect(error!.message).toContain(delivery.file_name)
    expect(error!.message).toContain('24 hours')
    expect([...(error!.transaction_ids as string[])].sort()).toEqual([...transactionIds].sort())
    const viaApi = await call(bed.t.app, partner, 'GET', `/errors/${error!.id}`)
    expect(viaApi.statusCode, viaApi.body).toBe(200)
    expect(viaApi.json().error).toMatchObject({ source: 'file_validation', assignee: 'service' })

    // Later runs raise nothing more.
    now = hours(30)
    await check()
    expect(await errorsOf(deliveryId, delivery.coverage_period_id)).toHaveLength(1)
    expect((await errorsOf(deliveryId, delivery.coverage_period_id))[0]!.updated_at.getTime()).toBe(error!.updated_at.getTime())

    // The 999 arrives: the status moves on and the overdue error is resolved by the service.
    const text = (await fixture('full-accepted.999.x12')).replace('AK1*BE*1*', 'AK1*BE*42*').replace('AK2*834*0001*', 'AK2*834*0042*')
    expect((await receiver.receive({ carrierName: carrier, text, source: 'inbound' })).fileDeliveryId).toBe(deliveryId)
    expect(await statusOf(deliveryId)).toBe('accepted')
    const [resolved] = await errorsOf(deliveryId, delivery.coverage_period_id)
    expect(resolved).toMatchObject({ status: 'resolved', resolved_by: 'carrier_acknowledgement' })
    expect(resolved!.resolution_message).toContain(delivery.file_name)

    now = hours(48)
    await check()
    expect(await statusOf(deliveryId)).toBe('accepted')
    expect((await errorsOf(deliveryId, delivery.coverage_period_id))[0]!.status).toBe('resolved')
  })

  it("when carriers have their own due hours, then each carrier's files are judged by its own", async () => {
    const quick = carrierOf('quick')
    const slow = carrierOf('slow')
    const sentAt = new Date('2026-11-20T08:00:00.000Z')
    const quickId = await insertSentDelivery(quick, 5, { sent_at: sentAt })
    const slowId = await insertSentDelivery(slow, 5, { sent_at: sentAt })
    const check = createAcknowledgementOverdueCheck(bed.t.db, {
      carriers: () => [
        { carrierName: quick, dueHours: 2 },
        { carrierName: slow, dueHours: 72 },
      ],
      clock: () => new Date('2026-11-20T11:00:00.000Z'),
    })
    await check()
    expect(await statusOf(quickId)).toBe('overdue')
    expect(await statusOf(slowId)).toBe('awaited')
  })
})

describe('inbound pickup over SFTP', () => {
  let server: TestSftpServer
  beforeAll(async () => {
    server = await startSftpServer()
  })
  afterAll(async () => server?.close())

  const carrierConfig = (name: string, inbound: CarrierConfig['acknowledgement_inbound'], transport: CarrierConfig['edi_transport']): CarrierConfig => ({
    name,
    display_name: name,
    distribution_format: 'edi',
    member_management: true,
    requires_pcp_for_hmo: false,
    sandbox: false,
    edi_transport: transport,
    acknowledgement_inbound: inbound,
  })
  const sftpTransport = () =>
    ({ type: 'sftp', host: server.host, port: server.port, username: server.username, password_env: 'ACK_SFTP_PASSWORD', host_key_sha256: server.hostKeySha256, remote_directory: 'outbox' }) as const

  it("when a carrier's acknowledgements wait in its SFTP inbound directory, then they are stored and moved into processed/ on the server", async () => {
    const carrier = carrierOf('sftp')
    const delivery = await insertSentDelivery(carrier, 2)
    await mkdir(join(server.root, 'acks'))
    await writeFile(join(server.root, 'acks', '999-2.x12'), await fixture('change-accepted.999.x12'))
    await writeFile(join(server.root, 'acks', 'upload.x12.part'), 'ISA')
    const inboxes = createAcknowledgementInboxes([carrierConfig(carrier, { type: 'sftp', remote_directory: 'acks' }, sftpTransport())], {
      outboundDirectory: tmpdir(),
      env: { ACK_SFTP_PASSWORD: server.password },
    })
    expect(inboxes[0]!.inbox.describe()).toContain('inbound directory acks')

    const result = await pickUpAcknowledgements(receiver, inboxes, { now: () => new Date() })
    expect(result).toEqual({ received: 1, left: 0, rematched: 0 })
    expect(await statusOf(delivery)).toBe('accepted')
    expect((await stored(carrier)).map((r) => [r.file_name, r.outcome])).toEqual([['999-2.x12', 'matched']])
    expect((await readdir(join(server.root, 'acks'))).sort()).toEqual(['processed', 'upload.x12.part'])
    expect(await readdir(join(server.root, 'acks', 'processed'))).toEqual(['999-2.x12'])

    // Nothing waiting: a second visit stores nothing more.
    expect(await pickUpAcknowledgements(receiver, inboxes, { now: () => new Date() })).toEqual({ received: 0, left: 0, rematched: 0 })
  })

  it('when an SFTP inbound path is configured for a carrier whose files do not go over SFTP, then the start stops with a configuration error', () => {
    const bad = carrierConfig(carrierOf('nosftp'), { type: 'sftp', remote_directory: 'acks' }, { type: 'directory', path: tmpdir() })
    expect(() => createAcknowledgementInboxes([bad], { outboundDirectory: tmpdir(), env: {} })).toThrow(ConfigError)
    expect(() => createAcknowledgementInboxes([bad], { outboundDirectory: tmpdir(), env: {} })).toThrow(/edi_transport is not sftp/)
  })
})

describe("the service's workers", () => {
  it("when the workers run, then the general worker's polls pick up inbound files and mark overdue files by the clock and carrier settings they are given", async () => {
    // A database of its own: started workers claim every due job of theirs.
    const isolated = await openIsolatedDatabase()
    const own = await startTestApp({ database: isolated.handle })
    const inbox = await mkdtemp(join(tmpdir(), 'ack-workers-'))
    let running: Workers | undefined
    try {
      const owner = await own.newPartner()
      const { group } = await insertGroupWithLocation(own.db, owner.accountId)
      const res = await call(own.app, owner, 'POST', `/groups/${group.id}/coverage_periods`, {
        coverage_period: { external_identifier: 'plan-year-2027', coverage_start_date: '2027-01-01', coverage_end_date: '2027-12-31', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
      })
      expect(res.statusCode, res.body).toBe(201)
      const deliveryId = uuidv7()
      await own.db
        .insertInto('file_deliveries')
        .values({
          id: deliveryId,
          account_id: owner.accountId,
          coverage_period_id: res.json().coverage_period.id,
          group_id: group.id,
          carrier_name: 'acme_ack',
          kind: 'change',
          channel: 'edi',
          file_name: 'acme-change-7.x12',
          status: 'sent',
          sent_at: new Date('2026-11-25T08:00:00.000Z'),
          interchange_control_number: 7,
          acknowledgement_status: 'awaited',
          created_at: new Date('2026-11-25T08:00:00.000Z'),
          updated_at: new Date('2026-11-25T08:00:00.000Z'),
        })
        .execute()
      // An answer to a file nobody sent: kept unmatched, and the file moved.
      await writeFile(join(inbox, 'ack-3.x12'), await fixture('change-accepted.999.x12'))
      const acme: CarrierConfig = {
        name: 'acme_ack',
        display_name: 'Acme',
        distribution_format: 'edi',
        member_management: true,
        requires_pcp_for_hmo: false,
        sandbox: false,
        edi_transport: { type: 'directory', path: join(inbox, 'out') },
        acknowledgement_inbound: { type: 'directory', path: inbox },
        acknowledgement_due_hours: 2,
      }
      running = createWorkers({
        db: own.db,
        log: pino({ level: 'silent' }),
        worker: { concurrency: 1, pollMs: 20 },
        staleAfterMs: 300_000,
        webhooks: testWebhookSettings(),
        housekeeping: false,
        clock: () => new Date('2026-11-25T10:30:00.000Z'),
        carrierSide: { ssn: testSsnProtection(), carriers: new CarrierCatalog([acme]), settings: testCarrierSettings() },
      })
      running.start()
      const statusNow = async () => (await own.db.selectFrom('file_deliveries').select('acknowledgement_status').where('id', '=', deliveryId).executeTakeFirstOrThrow()).acknowledgement_status
      // Each wait is a few polls, which a loaded machine can stretch to seconds; both fit in the test's timeout.
      expect(await waitFor(async () => ((await statusNow()) === 'overdue' ? true : undefined), 20_000, 'the delivery to become overdue')).toBe(true)
      expect(await waitFor(async () => ((await readdir(inbox)).includes('ack-3.x12') ? undefined : true), 20_000, 'the inbound file to be processed')).toBe(true)
      const [kept] = await own.db.selectFrom('acknowledgements').selectAll().where('carrier_name', '=', 'acme_ack').execute()
      expect(kept).toMatchObject({ outcome: 'unmatched', file_name: 'ack-3.x12', source: 'inbound' })
    } finally {
      await running?.stop()
      await own.close()
      await isolated.close()
      await rm(inbox, { recursive: true, force: true })
    }
    // Opening a database of its own took 12.5 s of CI's 30 s default; the two waits add up to 40 s more.
  }, 90_000)
})
