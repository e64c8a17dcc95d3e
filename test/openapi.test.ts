import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderConsoleTypes } from '../src/main/console-types.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

type Operation = { operationId?: string; summary?: string; responses: Record<string, unknown> }

describe('the OpenAPI document', () => {
  it('when the routes change, then the committed openapi.json must be regenerated (npm run openapi)', () => {
    const committed = JSON.parse(readFileSync('openapi.json', 'utf8'))
    expect(t.app.swagger(), 'openapi.json is stale: run `npm run openapi` and commit it').toEqual(committed)
  })

  it("when openapi.json changes, then the console's client types must be regenerated with it (npm run openapi)", async () => {
    const committed = readFileSync('console/src/api/schema.d.ts', 'utf8')
    expect(await renderConsoleTypes(t.app.swagger()), 'console/src/api/schema.d.ts is stale: run `npm run openapi`').toBe(committed)
  })

  it('when served at /openapi.json without credentials, then it is OpenAPI 3.1 with every operation named, summarised and its errors listed', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(res.statusCode).toBe(200)
    const document = res.json()
    expect(document.openapi).toBe('3.1.0')
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((item) => Object.values(item))
    expect(operations.length).toBeGreaterThan(10)
    const ids = operations.map((op) => op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const op of operations) {
      expect(op.operationId, JSON.stringify(op.summary)).toMatch(/^[a-z][A-Za-z]+$/)
      expect(op.summary).toBeTruthy()
      expect(Object.keys(op.responses).some((status) => status.startsWith('5')), op.operationId).toBe(true)
    }
  })

  it('when a browser opens /docs, then the interactive reference is served', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/html')
  })
})
