import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand, UsageError, USAGE } from '../src/cli/commands.js'
import { openDatabase } from '../src/db/database.js'
import { DomainError } from '../src/lib/domain-error.js'
import { verifyPassword } from '../src/lib/passwords.js'
import { consoleUser, expectProblem, signedIn, signIn, withSession } from './helpers/console-session.js'
import { call, startTestApp, systemActor, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

/** The command line with the given text on standard input. */
const cli = (stdin: string | null, ...argv: string[]) =>
  runCommand(argv, t.services, { readStdin: async () => (stdin === null ? Promise.reject(new Error('no stdin')) : stdin) })

let counter = 0
async function newUser(account: Pick<Credential, 'accountId'>, email = `cli.user.${Date.now().toString(36)}.${++counter}@example.com`) {
  return t.services.users.createUser(systemActor(account.accountId), { email, role_names: [] }, account.accountId)
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the command to fail')
}

async function storedHash(userId: string): Promise<string | null> {
  const row = await t.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow()
  return row.password_hash
}

describe('users set-password', () => {
  it('when a password is piped in, then the first line without its newline becomes the password, stored as an scrypt hash, and the user can sign in', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const password = 'a long pass phrase with a trailing space '
    const answer = (await cli(`${password}\r\nsecond line is ignored\n`, 'users', 'set-password', user.id)) as Record<string, unknown>
    expect(answer).toEqual({ user: expect.objectContaining({ id: user.id, email: user.email }), password_set_at: expect.any(String), sessions_ended: 0 })
    expect(JSON.stringify(answer)).not.toContain(password)

    const stored = await storedHash(user.id)
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/)
    expect(stored).not.toContain(password)
    expect(await verifyPassword(password, stored!)).toBe(true)
    expect((await signIn(t.app, user.email, password)).statusCode).toBe(201)
    expectProblem(await signIn(t.app, user.email, password.trimEnd()), 401, 'sign_in_failed')

    const audit = await call(t.app, await t.newOperator(), 'GET', `/audit_events?resource_id=${user.id}&action=user.password_set`)
    expect(audit.json().audit_events).toEqual([expect.objectContaining({ account_id: partner.accountId, channel: 'cli', resource_type: 'user' })])
  })

  it('when the password is shorter than 12 or longer than 256 characters, then it is refused and nothing is stored', async () => {
    const user = await newUser(await t.newPartner())
    for (const password of ['short pass', 'x'.repeat(257)]) {
      const error = await rejection(cli(`${password}\n`, 'users', 'set-password', user.id))
      expect(error).toBeInstanceOf(DomainError)
      expect(error).toMatchObject({ code: 'password_rules_not_met', message: expect.stringMatching(/12 to 256 characters/) })
      expect(error.message).not.toContain(password)
    }
    expect(await storedHash(user.id)).toBeNull()
  })

  it('when standard input is empty or the user id is not a UUID, then a usage error explains how to pipe the password', async () => {
    const user = await newUser(await t.newPartner())
    await expect(cli('', 'users', 'set-password', user.id)).rejects.toThrow(/printf '%s\\n' "\$PASSWORD" \| npm run cli -- users set-password USER_ID/)
    await expect(cli('\nthe password on the second line\n', 'users', 'set-password', user.id)).rejects.toThrow(UsageError)
    await expect(cli('a fine password here\n', 'users', 'set-password', 'not-a-uuid')).rejects.toThrow(/USER_ID must be a UUID/)
    expect(USAGE).toContain('users set-password USER_ID')
    expect(USAGE).toContain('users reset-password USER_ID')
    expect(await storedHash(user.id)).toBeNull()
  })

  it('when the user is deactivated or unknown, then it is refused', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    await t.services.users.deactivateUser(systemActor(partner.accountId), user.id)
    expect(await rejection(cli('a fine password here\n', 'users', 'set-password', user.id))).toMatchObject({ code: 'user_deactivated' })
    expect(await rejection(cli(null, 'users', 'reset-password', user.id))).toMatchObject({ code: 'user_deactivated' })
    expect(await storedHash(user.id)).toBeNull()
    const unknown = '0193a4b2-0000-7000-8000-00000000dead'
    expect(await rejection(cli('a fine password here\n', 'users', 'set-password', unknown))).toMatchObject({ code: 'user_not_found' })
  })

  it('when another account already has an active user with a password and the same email, then it is refused with the reason; without a password there, it is allowed', async () => {
    const email = `shared.${Date.now()}@example.com`
    const firstAccount = await t.newPartner()
    const first = await newUser(firstAccount, email)
    const second = await newUser(await t.newPartner(), email)
    // Neither has a password yet: the first to get one takes the email for sign-in.
    await cli('the first password!\n', 'users', 'set-password', first.id)
    const error = await rejection(cli('the second password\n', 'users', 'set-password', second.id))
    expect(error).toMatchObject({ code: 'console_email_taken', message: expect.stringMatching(/sign in to the console with their email alone/) })
    expect(await rejection(cli(null, 'users', 'reset-password', second.id))).toMatchObject({ code: 'console_email_taken' })
    expect(await storedHash(second.id)).toBeNull()

    // Once the first is deactivated the email is free again.
    await t.services.users.deactivateUser(systemActor(firstAccount.accountId), first.id)
    await cli('the second password\n', 'users', 'set-password', second.id)
    const session = await signedIn(t.app, { email, password: 'the second password' })
    expect(session.body.session.user.id).toBe(second.id)
  })
})

describe('users reset-password', () => {
  it('when a password is reset, then a strong one is printed once, the old one stops working, and open sessions end', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const session = await signedIn(t.app, user)
    expect((await withSession(t.app, session, 'GET', '/session')).statusCode).toBe(200)

    const answer = (await cli(null, 'users', 'reset-password', user.id)) as { password: string; sessions_ended: number; user: { id: string } }
    expect(answer.password).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(answer.sessions_ended).toBe(1)
    expect(answer.user.id).toBe(user.id)

    expectProblem(await withSession(t.app, session, 'GET', '/session'), 401, 'session_expired')
    expectProblem(await signIn(t.app, user.email, user.password), 401, 'sign_in_failed')
    expect((await signIn(t.app, user.email, answer.password)).statusCode).toBe(201)
    // Another reset gives another password.
    const again = (await cli(null, 'users', 'reset-password', user.id)) as { password: string }
    expect(again.password).not.toBe(answer.password)
  })
})

/** The built command line, with `input` written to its standard input. */
function runCli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['dist/main/cli.js', ...args], { env: { PATH: process.env.PATH ?? '', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  child.stdin.end(input)
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe('the built command line', () => {
  it('when a password is piped into users set-password, then it is set; a refused one exits 65 with the code', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'enrollsync-passwords-'))
    const env = { DATA_DIR: dataDir }
    try {
      const account = await runCli(['accounts', 'create', '--name', 'Piped', '--kind', 'partner'], env)
      expect(account.code, account.stderr).toBe(0)
      const accountId = JSON.parse(account.stdout).id
      const user = await runCli(['users', 'create', '--account', accountId, '--email', 'piped@example.com'], env)
      expect(user.code, user.stderr).toBe(0)
      const userId = JSON.parse(user.stdout).id

      const tooShort = await runCli(['users', 'set-password', userId], env, 'too short\n')
      expect(tooShort.code).toBe(65)
      expect(tooShort.stderr).toContain('password_rules_not_met')

      const set = await runCli(['users', 'set-password', userId], env, 'piped pass phrase 42\n')
      expect(set.code, set.stderr).toBe(0)
      expect(JSON.parse(set.stdout).user.id).toBe(userId)
      expect(set.stdout).not.toContain('piped pass phrase 42')

      const database = await openDatabase({ kind: 'embedded', dataDir })
      try {
        const row = await database.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow()
        expect(await verifyPassword('piped pass phrase 42', row.password_hash!)).toBe(true)
      } finally {
        await database.close()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('the built command line while the service runs', () => {
  it('when the data directory is held by a running process, then set-password exits 2 and says to use a set-password link instead or to stop the service', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'enrollsync-held-'))
    // This test process stands in for the running service: a live pid in the lock file.
    writeFileSync(join(dataDir, 'enrollsync.lock'), String(process.pid))
    try {
      const held = await runCli(['users', 'set-password', '0193a4b2-0000-7000-8000-000000000003'], { DATA_DIR: dataDir }, 'a piped pass phrase\n')
      expect(held.code).toBe(2)
      expect(held.stderr).toContain(`holds the data directory ${dataDir}`)
      expect(held.stderr).toContain('set-password link')
      expect(held.stderr).toContain('POST /users/USER_ID/password_links')
      expect(held.stderr).toContain('Or stop the service first')
      expect(held.stderr).not.toContain('a piped pass phrase')
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
