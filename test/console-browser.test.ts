import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { DESKTOP, launchBrowser, PHONE, screenshot, signIn, startConsoleServer } from './helpers/browser.js'
import { installThroughApi } from './helpers/carrier-side.js'
import { insertWatcher, raiseByHand } from './helpers/error-fixtures.js'
import { fakeResolver } from './helpers/webhooks.js'
import { call, systemActor, type Credential, type TestApp } from './helpers/test-app.js'
import type { RoleNameValue } from '../src/modules/users/users.schema.js'

// The console in a real browser (Debian's Chromium, driven by playwright-core) against the
// service listening on loopback: what operators and client teams do, click by click.

// Found by test/global-setup.ts. Without a browser these tests are skipped (with one line after
// the summary saying how to enable them), or fail when CI or REQUIRE_BROWSER=1 asks for them.
const chromium = inject('chromium')

let t: TestApp & { baseUrl: string }
let browser: Browser
beforeAll(async () => {
  if (chromium.kind === 'missing') throw new Error(chromium.message)
  // Watcher URLs are checked against DNS: hooks.example.com answers a public documentation address.
  t = await startConsoleServer({ resolveHost: fakeResolver({ 'hooks.example.com': ['203.0.113.10'] }) })
  browser = await launchBrowser(chromium.path)
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
})

const PASSWORD = 'correct horse battery staple'

/** A console user of the credential's account, with a password, as `users set-password` leaves one. */
async function consoleUser(who: Credential, email: string, roleNames: RoleNameValue[] = []) {
  const actor = systemActor(who.accountId)
  const user = await t.services.users.createUser(actor, { email, role_names: roleNames }, who.accountId)
  await t.services.consolePasswords.setPassword(actor, user.id, PASSWORD)
  return user
}

const unique = (name: string) => `${name}.${Math.random().toString(36).slice(2, 8)}@example.com`

async function newPage(viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  // A console that throws in the browser fails the test, even when the page looks right.
  page.on('pageerror', (error) => {
    throw error
  })
  return page
}

// A browser driving the console over the API: a test took up to 6.8 s in CI and 10.4 s on a loaded
// machine, against the 30 s default.
describe.skipIf(chromium.kind === 'missing' && !chromium.required)('the operations console in a browser', { timeout: 60_000 }, () => {
  it('when an operator signs in and moves a work order to completed, then the page shows the coverage period in production, as the API does', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, partner, 'aetna', 2)
    const email = unique('operator')
    await consoleUser(operator, email, ['admin'])

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD)
    // The operator's start page is the work order queue; the new order is in it by group name.
    await expect.poll(() => page.getByRole('heading', { level: 1, name: 'Work orders' }).isVisible()).toBe(true)
    await page.getByLabel('Status').selectOption('open')
    await page.getByRole('link', { name: /Open the work order of Acme Widgets Inc\./ }).first().waitFor()
    await screenshot(page, 'work-orders')
    await page.goto(`${t.baseUrl}/console/work-orders/${installed.workOrderId}`)

    // One move: the button for the next status (waiting for it to appear), then its dialog.
    const moves = page.getByRole('region', { name: 'Move the work order' })
    const move = async (button: RegExp, fill: Record<string, string>) => {
      await moves.getByRole('button', { name: button }).click()
      const dialog = page.getByRole('dialog')
      for (const [label, value] of Object.entries(fill)) await dialog.getByLabel(label).fill(value)
      await dialog.getByRole('button').first().click()
      await dialog.waitFor({ state: 'hidden' })
    }
    await move(/in progress/i, { Message: 'Checking the group.' })
    await move(/submit/i, { Message: 'Sent to the carrier.' })
    await move(/complete/i, { Message: 'Installed by the carrier.', 'Carrier group number': 'AET-55501' })

    const period = page.getByRole('region', { name: 'Coverage period' })
    await expect.poll(() => period.textContent(), { timeout: 10_000 }).toContain('production')
    await expect.poll(() => period.textContent()).toContain('AET-55501')
    await screenshot(page, 'work-order')

    const answer = await call(t.app, partner, 'GET', `/coverage_periods/${installed.coveragePeriodId}`)
    expect(answer.json().coverage_period).toMatchObject({ state: 'production', carrier_group_number: 'AET-55501' })
    const workOrder = await call(t.app, operator, 'GET', `/work_orders/${installed.workOrderId}`)
    expect(workOrder.json().work_order.status).toBe('completed')
    expect(workOrder.json().work_order.history.at(-1)).toMatchObject({ status: 'completed', by: email, message: 'Installed by the carrier.' })
  })

  it('when a partner user opens an error, comments and resolves it, then the API shows the comment and the resolution signed by that user', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, partner, 'aetna', 1)
    const raised = await raiseByHand(t, operator, installed.coveragePeriodId, {
      source: 'manual',
      discrepancy: { parameter: 'gender', carrier: 'F', platform: 'M' },
      member_id: installed.families[0]!.subscriberId,
    })
    expect(raised.statusCode, raised.body).toBe(201)
    const errorId: string = raised.json().error.id
    const email = unique('benefits')
    await consoleUser(partner, email)

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD)
    await expect.poll(() => page.getByRole('heading', { level: 1, name: 'Errors' }).isVisible()).toBe(true)
    await screenshot(page, 'errors')
    await page.locator(`a[href="/console/errors/${errorId}"]`).first().click()
    await page.getByRole('heading', { level: 1, name: /Error: gender/ }).waitFor()
    const discrepancy = page.getByRole('region', { name: 'Discrepancy' })
    expect(await discrepancy.getByRole('group', { name: /Carrier/ }).textContent()).toContain('F')
    expect(await discrepancy.getByRole('group', { name: /Platform/ }).textContent()).toContain('M')

    await page.getByLabel('Add a comment').fill('The member corrected the gender on the enrollment form.')
    await page.getByRole('button', { name: 'Add comment' }).click()
    await page.getByText('Comment added.').waitFor()
    await page.getByRole('button', { name: 'Resolve', exact: true }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('textbox').fill('Platform data corrected.')
    await dialog.getByRole('button', { name: 'Resolve' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await expect.poll(() => page.getByText('resolved', { exact: true }).first().isVisible()).toBe(true)
    await screenshot(page, 'error')

    const answer = await call(t.app, partner, 'GET', `/errors/${errorId}`)
    const error = answer.json().error
    expect(error.status).toBe('resolved')
    expect(error.resolution).toMatchObject({ message: 'Platform data corrected.', resolved_by: email })
    expect(error.comments.map((c: { message: string; created_by: { email: string } | null }) => [c.message, c.created_by?.email])).toContainEqual([
      'The member corrected the gender on the enrollment form.',
      email,
    ])
  })

  it("when a partner user opens another account's error by its URL, then the console says it does not exist or is not visible, and shows nothing of it", async () => {
    const owner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, owner, 'aetna', 1)
    const raised = await raiseByHand(t, operator, installed.coveragePeriodId, {
      source: 'manual',
      discrepancy: { parameter: 'marital_status', carrier: 'SECRET-CARRIER-VALUE', platform: 'SECRET-PLATFORM-VALUE' },
    })
    const errorId: string = raised.json().error.id
    const stranger = await t.newPartner()
    const email = unique('stranger')
    await consoleUser(stranger, email)

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD, `/console/errors/${errorId}`)
    await page.getByText('This error does not exist or is not visible to your account.').waitFor()
    const text = await page.locator('main').textContent()
    expect(text).not.toContain('SECRET-CARRIER-VALUE')
    expect(text).not.toContain('SECRET-PLATFORM-VALUE')
  })

  // Every page loaded in two sizes: 17 s alone, past the default 30 s when the whole suite shares a
  // slow 2-core machine with it (CI, 2026-11-26).
  it('when an operator opens every page at 1280 px and at 390 px, then each shows its heading, no error, and nothing wider than the screen', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, partner, 'aetna', 3)
    const raised = await raiseByHand(t, operator, installed.coveragePeriodId, {
      source: 'manual',
      discrepancy: { parameter: 'residential_address', carrier: '12 Elm St', platform: '12 Elm Street Apt 4' },
      member_id: installed.families[1]!.subscriberId,
    })
    const watcherId = await insertWatcher(t.db, partner.accountId)
    const email = unique('tour')
    await consoleUser(operator, email, ['admin'])

    const pages: [name: string, path: string, heading: RegExp][] = [
      ['work-orders', '/work-orders', /^Work orders$/],
      ['work-order', `/work-orders/${installed.workOrderId}`, /Work order/],
      ['errors', '/errors', /^Errors$/],
      ['coverage-period-errors', `/coverage-periods/${installed.coveragePeriodId}/errors`, /Errors of coverage period/],
      ['error', `/errors/${raised.json().error.id}`, /^Error: residential address$/],
      ['groups', '/groups', /^Groups$/],
      ['group', `/groups/${installed.groupId}`, /Acme Widgets Inc\./],
      ['watchers', '/watchers', /^Watchers$/],
      ['watcher', `/watchers/${watcherId}`, /Watcher/],
      ['api-keys', `/api-keys?account=${partner.accountId}`, /API keys/],
      ['users', `/users?account=${partner.accountId}`, /Users/],
      ['audit-log', '/audit', /^Audit log$/],
    ]
    for (const viewport of [DESKTOP, PHONE]) {
      const page = await newPage(viewport)
      await signIn(page, t.baseUrl, email, PASSWORD)
      for (const [name, path, heading] of pages) {
        await page.goto(`${t.baseUrl}/console${path}`)
        await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 10_000 })
        await expect.poll(() => page.getByRole('status').filter({ hasText: /Loading|…$/ }).count(), { message: `${name} finishes loading` }).toBe(0)
        expect(await page.getByRole('alert').allTextContents(), `${name} shows no error`).toEqual([])
        // Evaluated in the page (a string: the test's own type check has no DOM).
        const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))
        expect(overflow, `${name} at ${viewport.width} px scrolls sideways`).toBeLessThanOrEqual(0)
        await screenshot(page, name)
      }
      await page.context().close()
    }
    // Every page at two widths: 20.4 s in CI and 27.4 s on a loaded machine.
  }, 150_000)

  it('when a partner user selects several errors and resolves them at once, then each is resolved with the message and the queue says so', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, partner, 'aetna', 1)
    const ids: string[] = []
    for (const parameter of ['gender', 'marital_status', 'tobacco_use']) {
      const raised = await raiseByHand(t, operator, installed.coveragePeriodId, { source: 'manual', discrepancy: { parameter, carrier: 'X', platform: 'Y' } })
      ids.push(raised.json().error.id)
    }
    const email = unique('bulk')
    await consoleUser(partner, email)

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD, `/console/coverage-periods/${installed.coveragePeriodId}/errors`)
    await page.getByRole('heading', { level: 1, name: /Errors of coverage period/ }).waitFor()
    // Two of the three, by their labelled checkboxes.
    await page.getByRole('checkbox', { name: /Select the gender error/ }).check()
    await page.getByRole('checkbox', { name: /Select the marital status error/ }).check()
    await page.getByText('2 errors selected').waitFor()
    await page.getByRole('button', { name: 'Resolve selected' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('textbox').fill('Both corrected on the platform.')
    await dialog.getByRole('button').first().click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByText(/2 of 2 errors resolved|2 errors resolved/).first().waitFor()
    await screenshot(page, 'errors-bulk-resolved')

    const statuses = await Promise.all(ids.map(async (id) => (await call(t.app, partner, 'GET', `/errors/${id}`)).json().error))
    expect(statuses.map((e: { status: string }) => e.status)).toEqual(['resolved', 'resolved', 'unresolved'])
    expect(statuses[0].resolution).toMatchObject({ message: 'Both corrected on the platform.', resolved_by: email })
  })

  it('when an administrator creates a watcher, then its secret is shown once, and the API signs with that secret', async () => {
    const partner = await t.newPartner()
    const email = unique('hooks')
    await consoleUser(partner, email, ['admin'])

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD, '/console/watchers')
    await page.getByRole('button', { name: 'New watcher' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('URL').fill('https://hooks.example.com/enrollsync')
    await dialog.getByRole('checkbox', { name: /error\.created/ }).check()
    await dialog.getByRole('button', { name: 'Create watcher' }).click()
    const secret = (await page.locator('.secret').textContent())?.trim() ?? ''
    expect(secret).toMatch(/^whsec_/)
    await screenshot(page, 'watcher-created')

    const watchers = (await call(t.app, partner, 'GET', '/watchers')).json().watchers
    expect(watchers).toHaveLength(1)
    expect(watchers[0]).toMatchObject({ url: 'https://hooks.example.com/enrollsync', event_types: ['error.created'] })
    const stored = await t.db.selectFrom('watchers').select('secret').where('id', '=', watchers[0].id).executeTakeFirstOrThrow()
    expect(stored.secret).toBe(secret)
    // Once stored, it is gone from the page and no read shows it again.
    await page.getByRole('button', { name: 'I have stored it' }).click()
    await expect.poll(() => page.locator('.secret').count()).toBe(0)
    expect(JSON.stringify(watchers)).not.toContain(secret)
  })

  it('when a partner administrator creates an API key and revokes it, then the key works once shown and stops working once revoked', async () => {
    const partner = await t.newPartner()
    const email = unique('keys')
    await consoleUser(partner, email, ['admin'])

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD, '/console/api-keys')
    await page.getByRole('button', { name: 'Create API key' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Name').fill('nightly sync')
    await dialog.getByRole('button', { name: 'Create key' }).click()
    const key = (await page.locator('.secret').textContent())?.trim() ?? ''
    expect(key).toMatch(/^esk_/)
    expect((await call(t.app, { apiKey: key }, 'GET', '/groups')).statusCode).toBe(200)
    await page.getByRole('button', { name: 'I have stored it' }).click()

    await page.getByRole('button', { name: 'Revoke the API key nightly sync' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    await expect.poll(async () => (await call(t.app, { apiKey: key }, 'GET', '/groups')).statusCode).toBe(401)
  })

  it('when the session ends while a comment is being written, then sign-in appears over the page, the text is kept and sends once signed in again', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, partner, 'aetna', 1)
    const raised = await raiseByHand(t, operator, installed.coveragePeriodId, { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'F', platform: 'M' } })
    const errorId: string = raised.json().error.id
    const email = unique('draft')
    const user = await consoleUser(partner, email)

    const page = await newPage()
    await signIn(page, t.baseUrl, email, PASSWORD, `/console/errors/${errorId}`)
    await page.getByLabel('Add a comment').fill('A long explanation the user would hate to type twice.')
    // The session ends behind the user's back (expiry, deactivation elsewhere, a password reset).
    await t.db.deleteFrom('console_sessions').where('user_id', '=', user.id).execute()
    await page.getByRole('button', { name: 'Add comment' }).click()

    const again = page.getByRole('dialog', { name: 'Sign in again' })
    await again.waitFor()
    expect(await again.getByLabel('Email').inputValue()).toBe(email)
    // What is asked has the focus: the password.
    await expect.poll(() => again.getByLabel('Password').evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true)
    await screenshot(page, 'sign-in-again')
    await again.getByLabel('Password').fill(PASSWORD)
    await again.getByRole('button', { name: 'Sign in' }).click()
    await again.waitFor({ state: 'hidden' })
    expect(await page.getByLabel('Add a comment').inputValue()).toBe('A long explanation the user would hate to type twice.')
    await page.getByRole('button', { name: 'Add comment' }).click()
    await page.getByText('Comment added.').waitFor()

    const comments = (await call(t.app, partner, 'GET', `/errors/${errorId}`)).json().error.comments
    expect(comments.map((c: { message: string }) => c.message)).toEqual(['A long explanation the user would hate to type twice.'])
  })
})
