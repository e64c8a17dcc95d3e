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
  it('when a partner lists carriers, then the sandbox carriers and real-named ones are there with their connection kinds', async () => {
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

  it('when a carrier has connection settings, then the service uses them but GET /carriers never shows them', async () => {
    const withSftp = {
      ...acme,
      edi_transport: { type: 'sftp', host: 'sftp.acme.example', username: 'enrollsync', password_env: 'ACME_SFTP_PASSWORD', host_key_sha256: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' },
      gender_mapping: { '1': 'male', '2': 'female' },
    }
    const catalog = new CarrierCatalog(loadCarriers(file([withSftp])))
    expect(catalog.find('acme_health')?.edi_transport).toMatchObject({ type: 'sftp', host: 'sftp.acme.example' })
    const app = await startTestApp({ carriers: catalog })
    try {
      const partner = await app.newPartner()
      const listed = await call(app.app, partner, 'GET', '/carriers')
      // The retroactive limit is public (clients need it) and defaults to 60 days.
      expect(listed.json().carriers).toEqual([{ ...acme, retroactive_limit_days: 60 }])
      const limited = new CarrierCatalog(loadCarriers(file([{ ...acme, retroactive_limit_days: 30 }])))
      expect(limited.find('acme_health')?.retroactive_limit_days).toBe(30)
      const one = await call(app.app, partner, 'GET', '/carriers/acme_health')
      expect(one.body).not.toMatch(/sftp|ACME_SFTP_PASSWORD|gender_mapping/)
    } finally {
      await app.close()
    }
    // A new embedded database of its own: 7.2 s in CI and 18 s on a loaded machine, of the 30 s default.
  }, 90_000)

  it('when CARRIERS_FILE is unreadable, malformed or lists a name twice, then the start stops with a message', () => {
    expect(() => loadCarriers(join(dir, 'missing.json'))).toThrow(ConfigError)
    expect(() => loadCarriers(file('{not json'))).toThrow(/could not be read as JSON/)
    expect(() => loadCarriers(file([{ ...acme, distribution_format: 'fax' }]))).toThrow(/not a valid carrier list/)
    expect(() => loadCarriers(file([acme, acme]))).toThrow(/lists carrier acme_health twice/)
    expect(() => loadCarriers(file([{ ...acme, api_connection: { base_url: 'https://api.acme.example' } }]))).toThrow(/api_connection but distribution_format edi/)
    expect(() => loadCarriers(file([{ ...acme, edi_transport: { type: 'sftp', host: 'h', username: 'u', password: 'inline secret' } }]))).toThrow(/not a valid carrier list/)
  })
})
