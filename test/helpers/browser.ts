import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { expect } from 'vitest'
import type { AppDeps } from '../../src/app.js'
import { startTestApp, type TestApp } from './test-app.js'

// Screenshots of each page, for people to look at: test-results/ is ignored by git.
export const SCREENSHOT_DIRECTORY = 'test-results/console'

export const DESKTOP = { width: 1280, height: 900 }
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
