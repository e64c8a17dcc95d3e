import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { SEND_FILE_JOB } from '../src/modules/carrier-delivery/index.js'
import { CarrierCatalog, DEFAULT_CARRIERS } from '../src/modules/carriers/carriers.catalog.js'
import { installThroughApi, settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * An api carrier reached through its HTTP connector: the group goes out as a JSON document with
 * the delivery id as Idempotency-Key, a 503 is retried with the same key, and the bearer token
 * comes from the environment variable the configuration names.
 */
interface Received {
  path: string
  idempotencyKey: string | undefined
  authorization: string | undefined
  body: { kind: string; members: { memberId: string; ssn: string | null }[] }
}

let bed: CarrierTestBed
let t: TestApp
let workers: Workers
let operator: Credential
let carrierApi: Server
const received: Received[] = []
const answers: number[] = []

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => resolve(text))
  })

beforeAll(async () => {
  carrierApi = createServer(async (request, response) => {
    received.push({
      path: request.url ?? '',
      idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      authorization: request.headers.authorization,
      body: JSON.parse(await readBody(request)),
    })
    response.statusCode = answers.shift() ?? 202
    response.end('{"accepted": true}')
  })
  await new Promise<void>((resolve) => carrierApi.listen(0, '127.0.0.1', resolve))
  const { port } = carrierApi.address() as AddressInfo
  const carriers = new CarrierCatalog([
    ...DEFAULT_CARRIERS,
    {
      name: 'test_api',
      display_name: 'Test carrier over its API',
      distribution_format: 'api',
      member_management: true,
      requires_pcp_for_hmo: false,
      sandbox: false,
      api_connection: { base_url: `http://127.0.0.1:${port}/v1`, token_env: 'TEST_CARRIER_TOKEN' },
    },
  ])
  bed = await startCarrierTestBed({ carriers, settings: { secrets: { TEST_CARRIER_TOKEN: 'carrier-token-123' } } })
  ;({ t, workers } = bed)
  operator = await t.newOperator()
})
afterAll(async () => {
  await bed?.close()
  await new Promise((resolve) => carrierApi?.close(resolve))
})

describe('an api carrier', () => {
  it('when the order is submitted and the carrier answers 503 once, then the group is sent again with the same key and lands once', async () => {
    const partner = await t.newPartner()
    const install = await installThroughApi(t, partner, 'test_api', 2)
    answers.push(503)
    for (const status of ['in_progress', 'submitted']) {
      expect((await call(t.app, operator, 'POST', `/work_orders/${install.workOrderId}/transitions`, { status, message: status })).statusCode).toBe(200)
    }
    await settle(workers)
    const [pending] = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(pending).toMatchObject({ channel: 'api', status: 'pending', attempts: 1 })
    expect(pending.last_error).toContain('503')

    await t.db.updateTable('jobs').set({ run_at: new Date() }).where('name', '=', SEND_FILE_JOB.name).where('status', '=', 'pending').execute()
    await settle(workers)
    const [sent] = (await call(t.app, partner, 'GET', `/coverage_periods/${install.coveragePeriodId}/file_deliveries`)).json().file_deliveries
    expect(sent).toMatchObject({ status: 'sent', attempts: 2 })

    expect(received).toHaveLength(2)
    for (const request of received) {
      expect(request).toMatchObject({ path: '/v1/enrollments', idempotencyKey: sent.id, authorization: 'Bearer carrier-token-123' })
      expect(request.body.kind).toBe('full')
      expect(request.body.members).toHaveLength(6)
    }
    // The carrier needs the SSNs to enroll; they travel to it, and only to it.
    expect(received[0]!.body.members.filter((m) => m.ssn !== null)).toHaveLength(4)
    const content = (await call(t.app, operator, 'GET', `/file_deliveries/${sent.id}/content`)).json()
    expect(content).toEqual(received[1]!.body)
  })
})
