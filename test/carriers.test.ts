import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../src/config.js'
import { CarrierCatalog, loadCarriers } from '../src/modules/carriers/carriers.catalog.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const dir = mkdtempSync(join(tmpdir(), 'enrollsync-carriers-'))
function file(content: unknown): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}
const acme = { name: 'acme_health', display_name: 'Acme Health', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: true, sandbox: false }

describe('carriers', () => {
  it('when a partner lists carriers, then the sandbox carriers and real-named ones come with their connection settings', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'GET', '/carriers?per_page=100')
    expect(res.statusCode).toBe(200)
    const carriers = res.json().carriers as Array<{ name: string; sandbox: boolean; distribution_format: string }>
    expect(carriers.filter((c) => c.sandbox).map((c) => c.distribution_format).sort()).toEqual(['api', 'edi', 'manual'])
    expect(carriers.filter((c) => !c.sandbox).length).toBeGreaterThanOrEqual(3)
    expect(res.headers.total).toBe(String(carriers.length))
  })

  it('when one carrier is asked for by name, then it answers it; an unknown name answers 404', async () => {
    const partner = await t.newPartner()
    const found = await call(t.app, partner, 'GET', '/carriers/sandbox_edi')
    expect(found.json().carrier).toMatchObject({ name: 'sandbox_edi', distribution_format: 'edi', requires_pcp_for_hmo: true })
    expect((await call(t.app, partner, 'GET', '/carriers/nobody')).statusCode).toBe(404)
  })

  it('when CARRIERS_FILE lists carriers, then the deployment has exactly those', () => {
    const catalog = new CarrierCatalog(loadCarriers(file([acme])))
    expect(catalog.names()).toEqual(['acme_health'])
    expect(catalog.find('acme_health')?.requires_pcp_for_hmo).toBe(true)
  })

  it('when CARRIERS_FILE is unreadable, malformed or lists a name twice, then the start stops with a message', () => {
    expect(() => loadCarriers(join(dir, 'missing.json'))).toThrow(ConfigError)
    expect(() => loadCarriers(file('{not json'))).toThrow(/could not be read as JSON/)
    expect(() => loadCarriers(file([{ ...acme, distribution_format: 'fax' }]))).toThrow(/not a valid carrier list/)
    expect(() => loadCarriers(file([acme, acme]))).toThrow(/lists carrier acme_health twice/)
  })
})
