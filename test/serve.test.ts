import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitOf, runProcess, startProcess, type Started } from './helpers/processes.js'

const SERVE = 'dist/main/serve.js'

// The embedded mode on disk, as `npm start` runs it: one data directory for the whole file.
const dataDir = mkdtempSync(join(tmpdir(), 'enrollsync-serve-'))
const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' }
let server: Started | undefined
// A start of the service: the first (every migration on a new embedded database) took 13 s in
// CI and 23 s on a loaded machine.
const START_MS = 90_000

beforeAll(async () => {
  server = await startProcess(SERVE, env, START_MS)
}, START_MS + 30_000)
afterAll(async () => {
  server?.child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

function readCredentials() {
  return JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as {
    service: { api_key: string; console: { email: string; password: string } }
    partner: { api_key: string; console: { email: string; password: string } }
  }
}

describe('npm start on the embedded database', () => {
  it('when it starts on an empty data directory, then it prints the URLs and two keys, and keeps them in a 0600 credentials.json', async () => {
    const output = server!.output()
    expect(output).toContain(`${server!.url}/docs`)
    const credentials = readCredentials()
    expect(output).toContain(credentials.service.api_key)
    expect(output).toContain(credentials.partner.api_key)
    expect(statSync(join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600)

    const groups = await fetch(`${server!.url}/groups`, { headers: { 'service-api-key': credentials.partner.api_key } })
    expect(groups.status).toBe(200)
    const accounts = await fetch(`${server!.url}/accounts`, { headers: { 'service-api-key': credentials.service.api_key } })
    const { accounts: listed } = (await accounts.json()) as { accounts: Array<{ kind: string }> }
    expect(listed.map((a) => a.kind).sort()).toEqual(['partner', 'service'])
  })

  it('when it starts, then /console serves the built console and each first-start administrator can sign in with the printed password', async () => {
    const page = await fetch(`${server!.url}/console/errors`, { headers: { 'accept-encoding': 'gzip' } })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1]
    expect(script, 'index.html names its bundle').toBeDefined()
    const bundle = await fetch(`${server!.url}${script}`)
    expect(bundle.status).toBe(200)
    expect(bundle.headers.get('cache-control')).toContain('immutable')

    const output = server!.output()
    for (const { console: signIn } of Object.values(readCredentials())) {
      expect(output).toContain(signIn.password)
      const session = await fetch(`${server!.url}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: signIn.email, password: signIn.password }),
      })
      expect(session.status, await session.clone().text()).toBe(201)
      expect(session.headers.get('set-cookie')).toMatch(/^enrollsync_session=/)
    }
  })

  it('when a second process opens the same data directory, then it exits with a clear message and the first keeps serving', async () => {
    const second = await runProcess(SERVE, [], env)
    expect(second.code).toBe(2)
    expect(second.output).toContain(`The data directory ${dataDir} is in use by another Enrollsync process`)
    expect((await fetch(`${server!.url}/healthz`)).status).toBe(200)
  })

  it('when SIGTERM arrives during a request, then that request completes and the process exits 0; a restart keeps keys and tokens', async () => {
    const { partner } = readCredentials()
    const minted = await fetch(`${server!.url}/auth/token`, { method: 'POST', headers: { 'service-api-key': partner.api_key } })
    const { token } = (await minted.json()) as { token: string }
    const body = JSON.stringify({ user: { email: 'drain@example.com' } })
    const url = new URL(`${server!.url}/users`)
    // Send the head and half the body, signal, then the rest: the request is in flight throughout.
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'service-api-key': partner.api_key } },
        (res) => {
          let text = ''
          res.on('data', (chunk) => (text += chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
        },
      )
      req.on('error', reject)
      req.write(body.slice(0, 10))
      setTimeout(() => {
        server!.child.kill('SIGTERM')
        setTimeout(() => req.end(body.slice(10)), 300)
      }, 200)
    })
    const answered = await response
    expect(answered.status).toBe(201)
    expect(await exitOf(server!.child)).toBe(0)

    server = await startProcess(SERVE, env, START_MS)
    expect(server.output()).not.toContain('First start')
    const users = await fetch(`${server.url}/users`, { headers: { authorization: `Bearer ${token}` } })
    expect(users.status).toBe(200)
    const { users: listedUsers } = (await users.json()) as { users: Array<{ email: string }> }
    expect(listedUsers.map((u) => u.email)).toContain('drain@example.com')
    // A drain, an exit and a restart: 10.5 s in CI, 18 s on a loaded machine; the restart alone may wait START_MS.
  }, START_MS + 60_000)
})
