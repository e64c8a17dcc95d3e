import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { completedPcpSetup, raiseByHand, type PcpSetup } from './helpers/error-fixtures.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// Inputs a client can send that once answered 500: each must be a precise 4xx problem.

let t: TestApp
let partner: Credential
let operator: Credential
let setup: PcpSetup
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  operator = await t.newOperator()
  setup = await completedPcpSetup(t, partner)
})
afterAll(async () => t?.close())

describe('limits of error inputs', () => {
  it('when a discrepancy value nests past its 16 levels, then 422 points at it', async () => {
    // 40 levels: past the discrepancy's own limit, within the 64 any JSON body may nest.
    const deep = `${'['.repeat(40)}"x"${']'.repeat(40)}`
    const res = await t.app.inject({
      method: 'POST',
      url: `/coverage_periods/${setup.coveragePeriod.id}/errors`,
      headers: { 'service-api-key': operator.apiKey, 'content-type': 'application/json' },
      payload: `{"error": {"source": "manual", "discrepancy": {"parameter": "gender", "carrier": ${deep}, "platform": "M"}}}`,
    })
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/error/discrepancy/carrier', code: 'too_deep' })])
  })

  it('when a discrepancy value nests thousands of levels deep, then the body is refused before parsing instead of overflowing the stack', async () => {
    // Written as text: serialising such a value would overflow the test's own stack.
    const deep = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`
    const res = await t.app.inject({
      method: 'POST',
      url: `/coverage_periods/${setup.coveragePeriod.id}/errors`,
      headers: { 'service-api-key': operator.apiKey, 'content-type': 'application/json' },
      payload: `{"error": {"source": "manual", "discrepancy": {"parameter": "gender", "carrier": ${deep}, "platform": "M"}}}`,
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.headers['content-type']).toContain('application/problem+json')
    expect(res.json().code).toBe('malformed_json')
  })

  it('when a discrepancy value nests a few levels, then it is accepted', async () => {
    const res = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'residential_address', carrier: { lines: [['1 Elm St']] }, platform: null } })
    expect(res.statusCode, res.body).toBe(201)
  })

  it('when page is beyond any offset the database can take, then the list answers a 4xx naming page, never a 500', async () => {
    for (const page of ['1000000000000000000', '1e21']) {
      const res = await call(t.app, partner, 'GET', `/coverage_periods/${setup.coveragePeriod.id}/errors?page=${page}`)
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400)
      expect(res.statusCode).toBeLessThan(500)
      expect(res.body).toContain('page')
    }
  })
})
