import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import type { AppDeps } from '../../src/app.js'
import type { RoleNameValue } from '../../src/modules/users/users.schema.js'
import { startTestApp, systemActor, type Credential, type TestApp } from './test-app.js'

// Screenshots of each page, for people to look at: test-results/ is ignored by git.
export const SCREENSHOT_DIRECTORY = 'test-results/console'

export const DESKTOP = { width: 1280, height: 900 }
/** The laptop size the queue issue (17) was reported at. */
export const LAPTOP = { width: 1440, height: 900 }
export const PHONE = { width: 390, height: 844 }

/**
 * The machine's own Chromium, as test/global-setup.ts found it (CHROMIUM_PATH, then PATH; see
 * scripts/find-chromium.mjs): nothing is downloaded by npm.
 */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    // This machine's network is closed: without these, Chromium keeps trying to reach Google.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** The service (API and console) listening on a loopback port, over the test database. */
export async function startConsoleServer(overrides: Partial<AppDeps> = {}): Promise<TestApp & { baseUrl: string }> {
  const t = await startTestApp(overrides)
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
  return Object.assign(t, { baseUrl: address })
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true })
  const width = page.viewportSize()?.width ?? 0
  await page.screenshot({ path: join(SCREENSHOT_DIRECTORY, `${name}-${width}px.png`), fullPage: true })
}

/** Signs in through the console's form, as a person would, and waits for the signed-in frame. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string, path = '/console/'): Promise<void> {
  await page.goto(`${baseUrl}${path}`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible(), { timeout: 10_000 }).toBe(true)
}

/** Whether this run has no browser and needs none: the browser tests then skip (test/global-setup.ts). */
export function browserMissing(): boolean {
  const chromium = inject('chromium')
  return chromium.kind === 'missing' && !chromium.required
}

/** The console password the browser tests give their users. */
export const CONSOLE_PASSWORD = 'correct horse battery staple'

/** An email no other test uses. */
export const uniqueEmail = (name: string) => `${name}.${Math.random().toString(36).slice(2, 8)}@example.com`

export type ConsoleServer = TestApp & { baseUrl: string }

/** What consoleInBrowser gives a test file. */
export interface ConsoleInBrowser {
  readonly server: ConsoleServer
  readonly browser: Browser
  /** A page of a fresh browser context (see freshPage), LAPTOP-sized unless told. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>
  /** A console user of the credential's account who signs in with CONSOLE_PASSWORD. */
  consoleUser(who: Credential, email: string, roleNames?: RoleNameValue[]): ReturnType<typeof consoleUserWithPassword>
}

/**
 * A console server and a browser for a test file: started before its tests, closed after them.
 * Call it at the file's top level; read `server` and `browser` inside the tests. Without a
 * browser the file fails here (test/global-setup.ts already skipped it unless one is required).
 */
export function consoleInBrowser(): ConsoleInBrowser {
  const chromium = inject('chromium')
  let server: ConsoleServer | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    if (chromium.kind === 'missing') throw new Error(chromium.message)
    server = await startConsoleServer()
    browser = await launchBrowser(chromium.path)
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })
  const session: ConsoleInBrowser = {
    get server() {
      if (!server) throw new Error('the console server starts in beforeAll')
      return server
    },
    get browser() {
      if (!browser) throw new Error('the browser starts in beforeAll')
      return browser
    },
    newPage: (viewport = LAPTOP) => freshPage(session.browser, viewport),
    consoleUser: (who, email, roleNames = []) => consoleUserWithPassword(session.server, who, email, roleNames),
  }
  return session
}

/** A console user of the credential's account who signs in with CONSOLE_PASSWORD. */
export async function consoleUserWithPassword(server: TestApp, who: Credential, email: string, roleNames: RoleNameValue[] = []) {
  const actor = systemActor(who.accountId)
  const user = await server.services.users.createUser(actor, { email, role_names: roleNames }, who.accountId)
  await server.services.consolePasswords.setPassword(actor, user.id, CONSOLE_PASSWORD)
  return user
}

/** A page of a fresh browser context (no cookies shared); a script error on it fails the test. */
export async function freshPage(browser: Browser, viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport, acceptDownloads: true })
  const page = await context.newPage()
  page.on('pageerror', (error) => {
    throw error
  })
  return page
}
