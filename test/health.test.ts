import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('health probes', () => {
  it('when /healthz is called without credentials, then 200 {status: "ok"} with a request id', async () => {
    const res = await call(t.app, null, 'GET', '/healthz')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual({ status: 'ok' })
    expect(res.headers['x-request-id']).toEqual(expect.any(String))
  })

  it('when /readyz is called without credentials and the database answers, then 200 {status: "ready"} with a request id', async () => {
    const res = await call(t.app, null, 'GET', '/readyz')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual({ status: 'ready' })
    expect(res.headers['x-request-id']).toEqual(expect.any(String))
  })

  it('when a probe carries a wrong or revoked credential, then it still answers 200: probes never check credentials', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    expect((await call(t.app, operator, 'DELETE', `/api_keys/${partner.apiKeyId}`)).statusCode).toBe(204)
    expect((await call(t.app, partner, 'GET', '/users')).statusCode).toBe(401)
    for (const url of ['/healthz', '/readyz']) {
      expect((await call(t.app, partner, 'GET', url)).statusCode, url).toBe(200)
      expect((await call(t.app, { apiKey: 'not-a-key' }, 'GET', url)).statusCode, url).toBe(200)
      expect((await call(t.app, null, 'GET', url, undefined, { authorization: 'Bearer not.a.jwt' })).statusCode, url).toBe(200)
    }
  })

  it('when a probe is asked with HEAD, then it answers 200 with no body (load balancers use HEAD)', async () => {
    for (const url of ['/healthz', '/readyz']) {
      const res = await call(t.app, null, 'HEAD', url)
      expect(res.statusCode, url).toBe(200)
      expect(res.body).toBe('')
    }
  })
})
