import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_PASSWORD, LAPTOP, PHONE, browserMissing, consoleInBrowser, screenshot, signIn, uniqueEmail, type ConsoleServer } from './helpers/browser.js'
import { installThroughApi, type ApiInstallation } from './helpers/carrier-side.js'
import { raiseByHand } from './helpers/error-fixtures.js'
import { call, type Credential } from './helpers/test-app.js'

// The error queue as a day's work (issue 17), in a real browser: search, sorting, assignment,
// live updates, the phone layout and the keyboard shortcuts, as operators and client teams use them.

const session = consoleInBrowser()
const { newPage, consoleUser } = session
let t: ConsoleServer
beforeAll(() => {
  t = session.server
})

/** A partner with one installed group of three families and an error on each subscriber. */
async function queueWithErrors(): Promise<{ partner: Credential; operator: Credential; installed: ApiInstallation; ids: string[] }> {
  const partner = await t.newPartner()
  const operator = await t.newOperator()
  const installed = await installThroughApi(t, partner, 'aetna', 3)
  const ids: string[] = []
  for (const [index, parameter] of ['tobacco_use', 'gender', 'marital_status'].entries()) {
    const raised = await raiseByHand(t, operator, installed.coveragePeriodId, {
      source: 'manual',
      discrepancy: { parameter, carrier: 'X', platform: 'Y' },
      member_id: installed.families[index]!.subscriberId,
    })
    expect(raised.statusCode, raised.body).toBe(201)
    ids.push(raised.json().error.id)
  }
  return { partner, operator, installed, ids }
}

/** The error names of the queue's rows, top to bottom. */
const rowNames = (page: Page) => page.locator('table.queue-table tbody a.queue-open').allTextContents()

describe.skipIf(browserMissing())('the error queue as a day’s work, in a browser', { timeout: 90_000 }, () => {
  it('when a partner user searches for a member and sorts by a column, then only that member’s errors show, in the order clicked', async () => {
    const { partner } = await queueWithErrors()
    const email = uniqueEmail('search')
    await consoleUser(partner, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/errors')
    await expect.poll(() => rowNames(page)).toHaveLength(3)
    // Names, not ids: the member and the employer read as a person reads them.
    expect(await page.locator('table.queue-table').textContent()).toContain('Janeb Doe2')
    expect(await page.locator('table.queue-table').textContent()).toContain('Acme Widgets Inc.')

    await page.getByRole('button', { name: /^Error/ }).click()
    await expect.poll(() => rowNames(page)).toEqual(['gender', 'marital status', 'tobacco use'])
    expect(await page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('ascending')
    await page.getByRole('button', { name: /^Error/ }).click()
    await expect.poll(() => rowNames(page)).toEqual(['tobacco use', 'marital status', 'gender'])
    expect(page.url()).toContain('sort=-parameter')

    await page.getByLabel('Search').fill('Janeb')
    await expect.poll(() => rowNames(page)).toEqual(['gender'])
    expect(page.url()).toContain('q=Janeb')
    await screenshot(page, 'queue-search')
  })

  it('when a partner user assigns two errors to themselves, then the API names them and "Assigned to: Me" lists exactly those', async () => {
    const { partner, ids } = await queueWithErrors()
    const held = (await call(t.app, partner, 'GET', `/errors/${ids[0]}`)).json().error
    expect(held.assignee).toBe('partner')
    const email = uniqueEmail('assign')
    await consoleUser(partner, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/errors?sort=parameter')
    await expect.poll(() => rowNames(page)).toHaveLength(3)
    await page.getByRole('checkbox', { name: /Select the gender error/ }).check()
    await page.getByRole('checkbox', { name: /Select the tobacco use error/ }).check()
    await page.getByLabel('Assign the selected errors to').selectOption({ label: `${email} (me)` })
    await page.getByRole('button', { name: 'Assign', exact: true }).click()
    await page.getByText(`2 errors assigned to ${email}.`).waitFor()

    const assigned = await Promise.all(ids.map(async (id) => (await call(t.app, partner, 'GET', `/errors/${id}`)).json().error.assigned_user?.email ?? null))
    expect(assigned).toEqual([email, email, null])
    await page.getByLabel('Assigned to').selectOption('me')
    await expect.poll(() => rowNames(page)).toEqual(['gender', 'tobacco use'])
    await screenshot(page, 'queue-assigned')
  })

  it('when an error is raised through the API while the queue is open, then it appears with its count, without a reload', async () => {
    const { partner, operator, installed } = await queueWithErrors()
    const email = uniqueEmail('live')
    await consoleUser(partner, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/errors')
    await expect.poll(() => rowNames(page)).toHaveLength(3)
    await page.evaluate('window.__sameDocument = true')
    const raised = await raiseByHand(t, operator, installed.coveragePeriodId, { source: 'manual', discrepancy: { parameter: 'region', carrier: 'A', platform: 'B' } })
    expect(raised.statusCode).toBe(201)
    // The event stream, or (without one) the 10-second poll.
    await expect.poll(() => rowNames(page), { timeout: 30_000, interval: 500 }).toContain('region')
    await expect.poll(() => page.getByRole('button', { name: /^Unresolved/ }).textContent()).toContain('4')
    expect(await page.evaluate('window.__sameDocument')).toBe(true)
  })

  it('when a partner user works the queue on a 390 px phone, then rows are cards with status and age on screen, the page never scrolls sideways, and the filters fold away', async () => {
    const { partner } = await queueWithErrors()
    const email = uniqueEmail('phone')
    await consoleUser(partner, email)
    const page = await newPage(PHONE)
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/errors')
    await expect.poll(() => rowNames(page)).toHaveLength(3)
    const sideways = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))
    expect(sideways).toBeLessThanOrEqual(0)
    const firstCard = page.locator('table.queue-table tbody tr').first()
    for (const cell of ['td.queue-status', 'td.queue-age']) {
      const box = await firstCard.locator(cell).boundingBox()
      expect(box, cell).not.toBeNull()
      expect(box!.x + box!.width, `${cell} is on screen`).toBeLessThanOrEqual(PHONE.width)
    }
    expect(await firstCard.locator('td.queue-age').textContent()).toMatch(/just now|min/)
    expect(await page.getByLabel('Severity').isVisible()).toBe(false)
    await screenshot(page, 'queue-phone')
    await page.getByRole('button', { name: /^Filters/ }).click()
    expect(await page.getByLabel('Severity').isVisible()).toBe(true)
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0)
    await screenshot(page, 'queue-phone-filters')
  })

  it('when a partner user works with the keyboard, then j/k move, x selects, r resolves, ? lists the shortcuts, and typing in the search never triggers them', async () => {
    const { partner, ids } = await queueWithErrors()
    const email = uniqueEmail('keys')
    await consoleUser(partner, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/errors?sort=parameter')
    await expect.poll(() => rowNames(page)).toEqual(['gender', 'marital status', 'tobacco use'])
    await page.locator('h1').click()

    await page.keyboard.press('?')
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await help.waitFor()
    expect(await help.textContent()).toContain('Next error')
    await screenshot(page, 'queue-shortcuts')
    await help.getByRole('button', { name: 'Close' }).click()
    await help.waitFor({ state: 'hidden' })

    await page.keyboard.press('j')
    await page.keyboard.press('j')
    await page.keyboard.press('k')
    await page.keyboard.press('j')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('marital status')
    await page.keyboard.press('x')
    expect(await page.getByRole('checkbox', { name: /Select the marital status error/ }).isChecked()).toBe(true)
    await page.getByText('1 error selected').waitFor()

    // Typed into the search, j and x are letters, not shortcuts.
    await page.getByLabel('Search').focus()
    await page.keyboard.type('jx')
    expect(await page.getByLabel('Search').inputValue()).toBe('jx')
    expect(await page.getByRole('checkbox', { name: /Select the marital status error/ }).isChecked()).toBe(true)
    await page.getByLabel('Search').fill('')
    await expect.poll(() => rowNames(page)).toHaveLength(3)
    await page.locator('h1').click()

    await page.keyboard.press('r')
    const dialog = page.getByRole('dialog', { name: 'Resolve 1 error' })
    await dialog.waitFor()
    await dialog.getByRole('textbox').fill('Corrected on the platform.')
    await dialog.getByRole('button', { name: 'Resolve them' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByText('1 error resolved.').waitFor()
    const statuses = await Promise.all(ids.map(async (id) => (await call(t.app, partner, 'GET', `/errors/${id}`)).json().error.status))
    expect(statuses).toEqual(['unresolved', 'unresolved', 'resolved'])
  })

  it('when an operator opens each queue, an error and the audit log at 1440 px and 390 px, then each shows names and ages, no error, and nothing wider than the screen', async () => {
    const { partner, operator, installed, ids } = await queueWithErrors()
    const benefits = uniqueEmail('benefits')
    await consoleUser(partner, benefits)
    const commented = await call(t.app, partner, 'POST', `/errors/${ids[1]}/comments`, { message: 'Checked with the employee: the form says single.', created_by: benefits })
    expect(commented.statusCode, commented.body).toBeLessThan(300)
    const returned = await call(t.app, partner, 'POST', `/errors/${ids[1]}/return`, { message: 'The carrier has the right value; please check the enrollment form.', created_by: benefits })
    expect(returned.statusCode, returned.body).toBeLessThan(300)
    const email = uniqueEmail('tour')
    await consoleUser(operator, email, ['admin'])
    const period = (await call(t.app, operator, 'GET', `/coverage_periods/${installed.coveragePeriodId}`)).json().coverage_period
    const pages: [name: string, path: string, heading: RegExp][] = [
      ['queue-errors', `/errors?account_id=${partner.accountId}&status=all`, /^Errors$/],
      ['queue-error', `/errors/${ids[1]}`, /^Error: gender$/],
      ['queue-work-orders', '/work-orders', /^Work orders$/],
      ['queue-audit', `/audit?account_id=${partner.accountId}`, /^Audit log$/],
    ]
    for (const viewport of [LAPTOP, PHONE]) {
      const page = await newPage(viewport)
      await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD)
      for (const [name, path, heading] of pages) {
        await page.goto(`${t.baseUrl}/console${path}`)
        await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 10_000 })
        await expect.poll(() => page.getByRole('status').filter({ hasText: /Loading|…$/ }).count(), { message: `${name} finishes loading` }).toBe(0)
        expect(await page.getByRole('alert').allTextContents(), `${name} shows no error`).toEqual([])
        const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))
        expect(overflow, `${name} at ${viewport.width} px scrolls sideways`).toBeLessThanOrEqual(0)
        if (name === 'queue-error') {
          // The coverage period as a person names it (its identifier and dates), not a short id.
          const concerns = () => page.locator('dl.facts').first().textContent()
          await expect.poll(concerns, { message: 'the coverage period named' }).toContain(`${period.external_identifier} (`)
          expect(await concerns()).not.toContain(installed.coveragePeriodId.slice(-8))
        }
        await screenshot(page, name)
      }
      await page.context().close()
    }
  }, 150_000)
})
