import { readFile } from 'node:fs/promises'
import { sql } from 'kysely'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_PASSWORD, PHONE, browserMissing, consoleInBrowser, screenshot, signIn, uniqueEmail, type ConsoleServer } from './helpers/browser.js'
import { parseCsv } from './helpers/csv.js'
import { insertReadySetup } from './helpers/setup-factories.js'
import { call, systemActor, type Credential } from './helpers/test-app.js'

// The operators' work-order queue (issue 17) in a real browser: search, sorting by a column
// header (with the mouse and the keyboard), "My queue", the CSV export of the current view, the
// phone layout, and assignment on the work-order page with the service's refusals shown there.

const session = consoleInBrowser()
const { newPage, consoleUser } = session
let t: ConsoleServer
beforeAll(() => {
  t = session.server
})

interface Queue {
  operator: Credential
  tag: string
  /** By employer: "Initech <tag>" (open, 3 days in status), "Hooli <tag>" (in progress, 1 hour), "Globex <tag>" (cancelled, just now). */
  ids: Record<'initech' | 'hooli' | 'globex', string>
}

/** Three work orders of a partner of their own, opened in the order Initech, Hooli, Globex; each employer carries the test's tag. */
async function queueOfThree(): Promise<Queue> {
  const partner = await t.newPartner()
  const operator = await t.newOperator()
  const tag = Math.random().toString(36).slice(2, 8)
  const ids = {} as Queue['ids']
  for (const [key, employer] of [['initech', 'Initech'], ['hooli', 'Hooli'], ['globex', 'Globex']] as const) {
    const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_manual' })
    await t.db.updateTable('groups').set({ organization_name: `${employer} ${tag}` }).where('id', '=', setup.group.id).execute()
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
    expect(res.statusCode, res.body).toBe(201)
    ids[key] = res.json().work_order.id
  }
  const move = async (id: string, status: string) => expect((await call(t.app, operator, 'POST', `/work_orders/${id}/transitions`, { status, message: `now ${status}` })).statusCode).toBe(200)
  await move(ids.hooli, 'in_progress')
  await move(ids.globex, 'cancelled')
  const ago = (id: string, seconds: number) => t.db.updateTable('work_orders').set({ status_changed_at: new Date(Date.now() - seconds * 1000) }).where('id', '=', id).execute()
  await ago(ids.initech, 3 * 86_400)
  await ago(ids.hooli, 3600)
  return { operator, tag, ids }
}

/** The employers of the queue's rows, top to bottom, without the tag. */
const employers = async (page: Page, tag: string) =>
  (await page.locator('table.queue-table tbody td[data-label="Employer"] a').allTextContents()).map((text) => text.replace(` ${tag}`, ''))

describe.skipIf(browserMissing())('the work-order queue, in a browser', { timeout: 90_000 }, () => {
  it('when an operator searches and sorts by clicking and with the keyboard, then the rows follow and the header says how they are sorted', async () => {
    const { operator, tag } = await queueOfThree()
    const email = uniqueEmail('wo-search')
    await consoleUser(operator, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/work-orders')
    await page.getByLabel('Search').fill(tag)
    await expect.poll(() => page.url()).toContain(`q=${tag}`)
    await expect.poll(() => employers(page, tag)).toEqual(['Initech', 'Hooli', 'Globex'])
    // The counts follow the search.
    await expect.poll(() => page.getByRole('button', { name: /^All/ }).textContent()).toContain('3')

    const statusHeader = page.locator('th', { has: page.getByRole('button', { name: /^Status/ }) })
    await page.getByRole('button', { name: /^Status/ }).click()
    await expect.poll(() => employers(page, tag)).toEqual(['Initech', 'Hooli', 'Globex'])
    expect(await statusHeader.getAttribute('aria-sort')).toBe('ascending')
    await page.getByRole('button', { name: /^Status/ }).click()
    await expect.poll(() => employers(page, tag)).toEqual(['Globex', 'Hooli', 'Initech'])
    expect(await statusHeader.getAttribute('aria-sort')).toBe('descending')
    expect(page.url()).toContain('sort=-status')

    // The keyboard: Tab reaches the Age header's button, Enter sorts oldest in its status first.
    await page.getByRole('button', { name: /^Status/ }).focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toMatch(/^Age/)
    await page.keyboard.press('Enter')
    await expect.poll(() => employers(page, tag)).toEqual(['Initech', 'Hooli', 'Globex'])
    expect(await page.locator('th', { has: page.getByRole('button', { name: /^Age/ }) }).getAttribute('aria-sort')).toBe('descending')
    expect(await statusHeader.getAttribute('aria-sort')).toBeNull()
    expect(page.url()).toContain('sort=-age')

    await page.getByLabel('Search').fill(`hooli ${tag}`)
    await expect.poll(() => employers(page, tag)).toEqual(['Hooli'])
    expect(page.url()).toContain(`q=hooli`)
    await screenshot(page, 'work-order-queue-search')
  })

  it('when an operator exports the current view, then the file has every order of that search and sort, with a byte order mark and human headers', async () => {
    const { operator, tag, ids } = await queueOfThree()
    const email = uniqueEmail('wo-export')
    await consoleUser(operator, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, `/console/work-orders?q=${tag}&sort=-created_at`)
    await expect.poll(() => employers(page, tag)).toEqual(['Globex', 'Hooli', 'Initech'])
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
    expect(download.suggestedFilename()).toMatch(/^work-orders-\d{4}-\d{2}-\d{2}\.csv$/)
    const text = await readFile((await download.path())!, 'utf8')
    expect(text.startsWith('\uFEFFWork order ID,Status,Age (days),')).toBe(true)
    const rows = parseCsv(text.slice(1)).slice(1)
    expect(rows.map((row) => row[0])).toEqual([ids.globex, ids.hooli, ids.initech])
    expect(await page.getByRole('alert').count()).toBe(0)
  })

  it('when an operator assigns on the work-order page, then "Assign to me", another operator and Unassign reach the API, a refusal shows on the page, and My queue lists what is mine', async () => {
    const { operator, tag, ids } = await queueOfThree()
    // A hundred people joined the team earlier: the ones below are on the users list's second page.
    await sql`insert into users (id, account_id, email, role_names, created_at)
      select gen_random_uuid(), ${operator.accountId}, 'filler-' || n || '-' || ${tag} || '@example.com', '{}', now() - interval '1 hour'
      from generate_series(1, 100) as n`.execute(t.db)
    const email = uniqueEmail('wo-assign')
    const me = await consoleUser(operator, email)
    const colleague = await consoleUser(operator, uniqueEmail('wo-colleague'))
    const leaver = await consoleUser(operator, uniqueEmail('wo-leaver'))
    const assignee = async () => (await call(t.app, operator, 'GET', `/work_orders/${ids.hooli}`)).json().work_order.assigned_user?.email ?? null

    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, `/console/work-orders/${ids.hooli}`)
    const panel = page.locator('section', { has: page.getByRole('heading', { name: 'Who works on it' }) })
    await panel.getByText('Assigned to nobody').waitFor()
    await panel.getByRole('button', { name: 'Assign to me' }).click()
    await panel.getByText(`Assigned to you (${email}).`).waitFor()
    expect(await assignee()).toBe(email)
    await panel.getByText(`Assigned to ${email} (me)`).waitFor()

    await panel.getByLabel('Assign to').selectOption({ label: colleague.email })
    await panel.getByRole('button', { name: 'Assign', exact: true }).click()
    await panel.getByText(`Assigned to ${colleague.email}.`).waitFor()
    expect(await assignee()).toBe(colleague.email)

    // Deactivated after the page listed them: the service refuses, and says why on the page.
    await t.services.users.deactivateUser(systemActor(operator.accountId), leaver.id)
    await panel.getByLabel('Assign to').selectOption({ label: leaver.email })
    await panel.getByRole('button', { name: 'Assign', exact: true }).click()
    const refusal = panel.getByRole('alert')
    await refusal.waitFor()
    expect(await refusal.textContent()).toMatch(/deactivated/i)
    // The earlier success is no longer announced beside the refusal.
    expect(await panel.getByText(`Assigned to ${colleague.email}.`).count()).toBe(0)
    expect(await assignee()).toBe(colleague.email)
    await screenshot(page, 'work-order-assignment-refused')

    await panel.getByRole('button', { name: 'Unassign' }).click()
    await panel.getByText('Nobody is assigned any more.').waitFor()
    expect(await assignee()).toBeNull()

    // Mine: Initech. My queue shows it alone.
    expect((await call(t.app, operator, 'PUT', `/work_orders/${ids.initech}/assignment`, { assignment: { user_id: me.id } })).statusCode).toBe(200)
    await page.goto(`${t.baseUrl}/console/work-orders?q=${tag}`)
    await expect.poll(() => employers(page, tag)).toHaveLength(3)
    await page.getByRole('button', { name: 'My queue' }).click()
    await expect.poll(() => employers(page, tag)).toEqual(['Initech'])
    expect(await page.getByRole('button', { name: 'My queue' }).getAttribute('aria-pressed')).toBe('true')
    expect(page.url()).toContain('assigned_user_id=me')
    await page.getByRole('heading', { level: 1, name: 'My work orders' }).waitFor()
    await screenshot(page, 'work-order-my-queue')

    // A cancelled order is nobody's work (the API refuses to assign it): only Unassign is offered.
    await sql`update work_orders set assigned_user_id = ${me.id} where id = ${ids.globex}`.execute(t.db)
    await page.goto(`${t.baseUrl}/console/work-orders/${ids.globex}`)
    const closed = page.locator('section', { has: page.getByRole('heading', { name: 'Who works on it' }) })
    await closed.getByText(`Assigned to ${email} (me)`).waitFor()
    expect(await closed.getByLabel('Assign to').count()).toBe(0)
    expect(await closed.getByRole('button', { name: 'Assign to me' }).count()).toBe(0)
    await closed.getByRole('button', { name: 'Unassign' }).click()
    await closed.getByText('Nobody is assigned any more.').waitFor()
    expect((await call(t.app, operator, 'GET', `/work_orders/${ids.globex}`)).json().work_order.assigned_user).toBeNull()
  })

  it('when an operator opens the queue on a 390 px phone, then rows are cards with status and age on screen, the filters fold away, and nothing scrolls sideways', async () => {
    const { operator, tag } = await queueOfThree()
    const email = uniqueEmail('wo-phone')
    await consoleUser(operator, email)
    const page = await newPage(PHONE)
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, `/console/work-orders?q=${tag}&sort=-age`)
    await expect.poll(() => employers(page, tag)).toEqual(['Initech', 'Hooli', 'Globex'])
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0)
    const firstCard = page.locator('table.queue-table tbody tr').first()
    for (const cell of ['td.queue-status', 'td.queue-age']) {
      const box = await firstCard.locator(cell).boundingBox()
      expect(box, cell).not.toBeNull()
      expect(box!.x + box!.width, `${cell} is on screen`).toBeLessThanOrEqual(PHONE.width)
      expect(await firstCard.locator(cell).isVisible(), cell).toBe(true)
    }
    expect(await firstCard.locator('td.queue-age').textContent()).toMatch(/^3 d/)
    // The cards stack: the table is not a table any more.
    expect(await page.evaluate("getComputedStyle(document.querySelector('table.queue-table')).display")).toBe('block')
    // The pickers fold away, saying how many are set (the sort here), until asked for.
    expect(await page.getByLabel('Carrier').isVisible()).toBe(false)
    await screenshot(page, 'work-order-queue-phone')
    await page.getByRole('button', { name: 'Filters (1)' }).click()
    expect(await page.getByLabel('Carrier').isVisible()).toBe(true)
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0)
    await screenshot(page, 'work-order-queue-phone-filters')
  })
})
