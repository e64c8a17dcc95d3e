import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand, UsageError } from '../src/cli/commands.js'
import { runProcess } from './helpers/processes.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const cli = (...argv: string[]) => runCommand(argv, t.services)

describe('the command line', () => {
  it('when an account, a key and a user are created, then the key authenticates and the user is registered', async () => {
    const account = (await cli('accounts', 'create', '--name', 'Cli Partner', '--kind', 'partner')) as { id: string; kind: string }
    expect(account.kind).toBe('partner')
    const key = (await cli('keys', 'create', '--account', account.id, '--name', 'ci key')) as { id: string; key: string }
    expect(key.key).toMatch(/^esk_/)
    await cli('users', 'create', '--account', account.id, '--email', 'Ops@Example.com', '--roles', 'admin,operations')

    const users = await call(t.app, { apiKey: key.key }, 'GET', '/users')
    expect(users.statusCode).toBe(200)
    expect(users.json().users).toEqual([expect.objectContaining({ email: 'ops@example.com', role_names: ['admin', 'operations'] })])
  })

  it('when a key is revoked from the command line, then the API refuses it', async () => {
    const account = (await cli('accounts', 'create', '--name', 'Revoked', '--kind', 'partner')) as { id: string }
    const key = (await cli('keys', 'create', '--account', account.id, '--name', 'short-lived')) as { id: string; key: string }
    expect((await call(t.app, { apiKey: key.key }, 'GET', '/groups')).statusCode).toBe(200)
    const revoked = (await cli('keys', 'revoke', key.id)) as { revoked_at: string | null }
    expect(revoked.revoked_at).not.toBeNull()
    // The CLI is another process in real life: this instance must not wait for its cache to expire.
    t.credentials.forget(key.id)
    expect((await call(t.app, { apiKey: key.key }, 'GET', '/groups')).statusCode).toBe(401)
    const listed = (await cli('keys', 'list', '--account', account.id)) as Array<{ id: string; revoked_at: string | null }>
    expect(listed).toEqual([expect.objectContaining({ id: key.id, revoked_at: revoked.revoked_at })])
    expect(JSON.stringify(listed)).not.toContain(key.key)
  })

  it('when options are missing or invalid, then it answers a usage error naming the option, using the API rules', async () => {
    await expect(cli('accounts', 'create', '--kind', 'partner')).rejects.toThrow(/--name is required/)
    await expect(cli('accounts', 'create', '--name', 'X', '--kind', 'carrier')).rejects.toThrow(UsageError)
    await expect(cli('keys', 'create', '--account', 'not-a-uuid', '--name', 'k')).rejects.toThrow(/--account must be a UUID/)
    const account = (await cli('accounts', 'create', '--name', 'Y', '--kind', 'partner')) as { id: string }
    await expect(cli('users', 'create', '--account', account.id, '--email', 'nope')).rejects.toThrow(/--email/)
    await expect(cli('frobnicate')).rejects.toThrow(/Unknown command/)
  })

  it('when the built binary is run without a command, then it prints the usage and exits non-zero', async () => {
    const result = await runProcess('dist/main/cli.js', [], {})
    expect(result.code).toBe(1)
    expect(result.output).toContain('Usage: enrollsync <command>')
  })
})
