import { createHash, randomBytes } from 'node:crypto'
import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { fileChunks } from '../src/modules/carrier-delivery/file-deliveries.repo.js'
import { contentDisposition } from '../src/modules/carrier-delivery/file-deliveries.routes.js'
import { CoverageTransmissionSchema, FileDeliverySchema } from '../src/modules/carrier-delivery/file-deliveries.schema.js'
import { uuidv7 } from '../src/lib/ids.js'
import { insertMember, insertPlan, insertReadySetup, type ReadySetup } from './helpers/setup-factories.js'
import { call, startTestApp, testSsnProtection, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

function expectShape(schema: TSchema, value: unknown) {
  expect([...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`)).toEqual([])
}

const at = (second: number) => new Date(Date.UTC(2027, 0, 2, 9, 0, second))

interface Seeded {
  partner: Credential
  setup: ReadySetup
  dependentId: string
  secondPlanId: string
  /** Oldest first: a full file sent, a change file failed, a change file still being written. */
  deliveries: { full: string; failed: string; writing: string }
  /** The full file's exact bytes, stored in 21 chunks of uneven sizes. */
  fullContent: Buffer
}

async function insertDelivery(setup: ReadySetup, values: Record<string, unknown>) {
  const id = uuidv7()
  await t.db
    .insertInto('file_deliveries')
    .values({
      id,
      account_id: setup.coveragePeriod.account_id,
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      carrier_name: 'sandbox_edi',
      kind: 'change',
      channel: 'edi',
      file_name: `file-${id}.x12`,
      created_at: at(0),
      updated_at: at(0),
      ...values,
    })
    .execute()
  return id
}

async function insertChunks(fileDeliveryId: string, content: Buffer, sizes: readonly number[]) {
  let offset = 0
  for (const [seq, size] of sizes.entries()) {
    // Sealed as the service stores them: the files carry SSNs in clear.
    const { data, keyId } = testSsnProtection().sealBytes(content.subarray(offset, offset + size))
    await t.db.insertInto('file_delivery_chunks').values({ file_delivery_id: fileDeliveryId, seq, key_id: keyId, data }).execute()
    offset += size
  }
  expect(offset).toBe(content.length)
}

async function seed(): Promise<Seeded> {
  const partner = await t.newPartner()
  const setup = await insertReadySetup(t.db, partner.accountId)
  const dependent = await insertMember(t.db, setup.group, { subscriberId: setup.subscriber.id, firstName: 'Sam' })
  const secondPlan = await insertPlan(t.db, setup.coveragePeriod, { productLine: 'dental', productType: null })

  // 21 chunks of uneven sizes, bytes that are not valid UTF-8. A chunk is read back in pieces of
  // 32 KiB (fileChunks): most are smaller than one, one is exactly two, one spans five, one is a byte.
  const sizes = Array.from({ length: 21 }, (_, i) => (i === 3 ? 65_536 : i === 7 ? 4 * 32_768 + 5 : i === 8 ? 1 : 1000 + i * 37))
  const fullContent = randomBytes(sizes.reduce((a, b) => a + b, 0))
  const full = await insertDelivery(setup, {
    kind: 'full',
    file_name: 'ENROLLSYNC_FULL_001.x12',
    status: 'sent',
    sent_at: at(5),
    transaction_count: 0,
    member_count: 2,
    byte_size: fullContent.length,
    sha256: createHash('sha256').update(fullContent).digest('hex'),
    interchange_control_number: 1,
    attempts: 1,
    created_at: at(1),
  })
  await insertChunks(full, fullContent, sizes)
  const failed = await insertDelivery(setup, {
    channel: 'api',
    file_name: 'submission-2.json',
    status: 'failed',
    byte_size: 2,
    sha256: createHash('sha256').update('{}').digest('hex'),
    attempts: 5,
    last_error: 'carrier API answered 503',
    created_at: at(2),
  })
  await insertChunks(failed, Buffer.from('{}'), [2])
  const writing = await insertDelivery(setup, { created_at: at(3) })

  const transmission = (memberId: string, planId: string, fileDeliveryId: string, second: number, maintenance: 'addition' | 'change' = 'addition') => ({
    id: uuidv7(),
    account_id: partner.accountId,
    coverage_period_id: setup.coveragePeriod.id,
    member_id: memberId,
    plan_id: planId,
    file_delivery_id: fileDeliveryId,
    transaction_id: null,
    maintenance,
    start_date: '2027-01-01',
    end_date: null,
    created_at: at(second),
  })
  await t.db
    .insertInto('coverage_transmissions')
    .values([
      transmission(setup.subscriber.id, setup.plan.id, full, 10),
      transmission(dependent.id, setup.plan.id, full, 11),
      transmission(setup.subscriber.id, secondPlan.id, failed, 12),
      transmission(setup.subscriber.id, setup.plan.id, writing, 13, 'change'),
    ])
    .execute()
  return { partner, setup, dependentId: dependent.id, secondPlanId: secondPlan.id, deliveries: { full, failed, writing }, fullContent }
}

describe('GET /coverage_periods/{id}/file_deliveries and GET /file_deliveries/{id}', () => {
  it('when a partner lists its deliveries, then they come newest first, in the schema, with pagination headers', async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/coverage_periods/${s.setup.coveragePeriod.id}/file_deliveries`)
    expect(res.statusCode, res.body).toBe(200)
    const list = res.json().file_deliveries
    expect(list.map((d: { id: string }) => d.id)).toEqual([s.deliveries.writing, s.deliveries.failed, s.deliveries.full])
    for (const delivery of list) expectShape(FileDeliverySchema, delivery)
    expect(res.headers.total).toBe('3')
    expect(list[2]).toMatchObject({
      kind: 'full',
      channel: 'edi',
      status: 'sent',
      sent_at: at(5).toISOString(),
      byte_size: s.fullContent.length,
      interchange_control_number: 1,
      member_count: 2,
      created_at: at(1).toISOString(),
    })
    expect(list[0]).toMatchObject({ status: 'pending', sent_at: null, byte_size: null, sha256: null, last_error: null })

    const page2 = await call(t.app, s.partner, 'GET', `/coverage_periods/${s.setup.coveragePeriod.id}/file_deliveries?per_page=2&page=2`)
    expect(page2.json().file_deliveries.map((d: { id: string }) => d.id)).toEqual([s.deliveries.full])
    expect(page2.headers).toMatchObject({ total: '3', 'per-page': '2', page: '2' })
    expect(page2.headers.link).toContain('rel="prev"')
    expect(page2.headers.link).not.toContain('rel="next"')
  })

  it('when a partner gets one delivery, then it is the same resource the list shows', async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/file_deliveries/${s.deliveries.failed}`)
    expect(res.statusCode, res.body).toBe(200)
    const delivery = res.json().file_delivery
    expectShape(FileDeliverySchema, delivery)
    expect(delivery).toMatchObject({ id: s.deliveries.failed, channel: 'api', status: 'failed', attempts: 5, last_error: 'carrier API answered 503', byte_size: 2 })
    const missing = await call(t.app, s.partner, 'GET', `/file_deliveries/${uuidv7()}`)
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('file_delivery_not_found')
  })
})

describe('GET /file_deliveries/{id}/content', () => {
  it('when an operator downloads a file of many chunks, then it streams byte-identical with its headers', async () => {
    const s = await seed()
    const res = await call(t.app, operator, 'GET', `/file_deliveries/${s.deliveries.full}/content`)
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200)
    expect(res.headers['content-type']).toBe('application/edi-x12')
    expect(res.headers['content-length']).toBe(String(s.fullContent.length))
    expect(res.headers['content-disposition']).toBe('attachment; filename="ENROLLSYNC_FULL_001.x12"')
    expect(res.headers['cache-control']).toBe('no-store')
    expect(Buffer.compare(res.rawPayload, s.fullContent)).toBe(0)
  })

  it('when a stored chunk was altered or cut short, then reading the content fails instead of giving other bytes', async () => {
    const s = await seed()
    const read = async () => {
      for await (const _piece of fileChunks(t.db, testSsnProtection(), s.deliveries.full)) {
        // read to the end
      }
    }
    await expect(read()).resolves.toBeUndefined()
    // One bit in the fourth of the five pieces that chunk is read in (byte 131,072 of the sealed value).
    await sql`UPDATE file_delivery_chunks SET data = set_byte(data, 131072, get_byte(data, 131072) # 1) WHERE file_delivery_id = ${s.deliveries.full} AND seq = 7`.execute(t.db)
    await expect(read()).rejects.toThrow()
    // Flipped back, then another chunk cut short: its tag no longer matches.
    await sql`UPDATE file_delivery_chunks SET data = set_byte(data, 131072, get_byte(data, 131072) # 1) WHERE file_delivery_id = ${s.deliveries.full} AND seq = 7`.execute(t.db)
    await expect(read()).resolves.toBeUndefined()
    await sql`UPDATE file_delivery_chunks SET data = substring(data FROM 1 FOR octet_length(data) - 20) WHERE file_delivery_id = ${s.deliveries.full} AND seq = 3`.execute(t.db)
    await expect(read()).rejects.toThrow()
    // Shorter than an IV and a tag: nothing to open.
    await sql`UPDATE file_delivery_chunks SET data = substring(data FROM 1 FOR 10) WHERE file_delivery_id = ${s.deliveries.full} AND seq = 3`.execute(t.db)
    await expect(read()).rejects.toThrow(/truncated/)
  })

  it('when the delivery went to an API carrier, then the content is JSON, even for a failed delivery', async () => {
    const s = await seed()
    const res = await call(t.app, operator, 'GET', `/file_deliveries/${s.deliveries.failed}/content`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.body).toBe('{}')
  })

  it('when the file is not written completely yet, then 409 file_content_not_ready; unknown ids are 404', async () => {
    const s = await seed()
    const writing = await call(t.app, operator, 'GET', `/file_deliveries/${s.deliveries.writing}/content`)
    expect(writing.statusCode).toBe(409)
    expect(writing.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(writing.json().code).toBe('file_content_not_ready')
    const missing = await call(t.app, operator, 'GET', `/file_deliveries/${uuidv7()}/content`)
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('file_delivery_not_found')
  })

  it('when a partner asks for the content, even of its own delivery, then 403', async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/file_deliveries/${s.deliveries.full}/content`)
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('forbidden')
  })

  it('when a file name has quotes or non-ASCII characters, then Content-Disposition stays a valid header', () => {
    expect(contentDisposition('a.x12')).toBe('attachment; filename="a.x12"')
    expect(contentDisposition('b"é.x12')).toBe(`attachment; filename="b__.x12"; filename*=UTF-8''b%22%C3%A9.x12`)
  })
})

describe('coverage transmissions', () => {
  it("when a partner lists a member's transmissions, then only that member's come, newest first, with the file's sent_at and status", async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/members/${s.setup.subscriber.id}/coverage_transmissions`)
    expect(res.statusCode, res.body).toBe(200)
    const list = res.json().coverage_transmissions
    for (const item of list) expectShape(CoverageTransmissionSchema, item)
    expect(list.map((x: { file_delivery_id: string }) => x.file_delivery_id)).toEqual([s.deliveries.writing, s.deliveries.failed, s.deliveries.full])
    expect(list.map((x: { sent_at: string | null; delivery_status: string }) => [x.sent_at, x.delivery_status])).toEqual([
      [null, 'pending'],
      [null, 'failed'],
      [at(5).toISOString(), 'sent'],
    ])
    expect(list[0]).toMatchObject({ maintenance: 'change', member_id: s.setup.subscriber.id, start_date: '2027-01-01', end_date: null, transaction_id: null })
    expect(res.headers.total).toBe('3')

    const dependent = await call(t.app, s.partner, 'GET', `/members/${s.dependentId}/coverage_transmissions`)
    expect(dependent.json().coverage_transmissions.map((x: { member_id: string }) => x.member_id)).toEqual([s.dependentId])
  })

  it('when a partner lists a coverage period\'s transmissions, then member_id and plan_id filter and pages carry over', async () => {
    const s = await seed()
    const base = `/coverage_periods/${s.setup.coveragePeriod.id}/coverage_transmissions`
    const all = await call(t.app, s.partner, 'GET', base)
    expect(all.statusCode, all.body).toBe(200)
    expect(all.json().coverage_transmissions).toHaveLength(4)
    expect(all.headers.total).toBe('4')

    const byPlan = await call(t.app, s.partner, 'GET', `${base}?plan_id=${s.secondPlanId}`)
    expect(byPlan.json().coverage_transmissions.map((x: { file_delivery_id: string }) => x.file_delivery_id)).toEqual([s.deliveries.failed])

    const both = await call(t.app, s.partner, 'GET', `${base}?member_id=${s.setup.subscriber.id}&plan_id=${s.setup.plan.id}&per_page=1`)
    expect(both.json().coverage_transmissions.map((x: { file_delivery_id: string }) => x.file_delivery_id)).toEqual([s.deliveries.writing])
    expect(both.headers.total).toBe('2')
    expect(both.headers.link).toContain(`member_id=${s.setup.subscriber.id}`)
    expect(both.headers.link).toContain('rel="next"')

    const bad = await call(t.app, s.partner, 'GET', `${base}?member_id=not-a-uuid`)
    expect(bad.statusCode).toBe(422)
    expect(bad.json().code).toBe('validation_failed')
  })

  it('when the member or coverage period is unknown, then 404', async () => {
    const s = await seed()
    const member = await call(t.app, s.partner, 'GET', `/members/${uuidv7()}/coverage_transmissions`)
    expect([member.statusCode, member.json().code]).toEqual([404, 'member_not_found'])
    const period = await call(t.app, s.partner, 'GET', `/coverage_periods/${uuidv7()}/coverage_transmissions`)
    expect([period.statusCode, period.json().code]).toEqual([404, 'coverage_period_not_found'])
  })
})

describe('tenancy', () => {
  it("when another partner asks for any of a partner's carrier-side resources, then 404 on every endpoint; an operator sees them all", async () => {
    const s = await seed()
    const other = await t.newPartner('Other partner')
    const cases: Array<[string, string]> = [
      [`/coverage_periods/${s.setup.coveragePeriod.id}/file_deliveries`, 'coverage_period_not_found'],
      [`/file_deliveries/${s.deliveries.full}`, 'file_delivery_not_found'],
      [`/members/${s.setup.subscriber.id}/coverage_transmissions`, 'member_not_found'],
      [`/coverage_periods/${s.setup.coveragePeriod.id}/coverage_transmissions`, 'coverage_period_not_found'],
    ]
    for (const [url, code] of cases) {
      const denied = await call(t.app, other, 'GET', url)
      expect([url, denied.statusCode, denied.json().code]).toEqual([url, 404, code])
      const seen = await call(t.app, operator, 'GET', url)
      expect([url, seen.statusCode]).toEqual([url, 200])
    }
    const operatorList = await call(t.app, operator, 'GET', `/coverage_periods/${s.setup.coveragePeriod.id}/file_deliveries`)
    expect(operatorList.json().file_deliveries).toHaveLength(3)
  })
})
