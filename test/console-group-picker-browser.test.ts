import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_PASSWORD, browserMissing, consoleInBrowser, screenshot, signIn, uniqueEmail, type ConsoleServer } from './helpers/browser.js'
import { raiseByHand } from './helpers/error-fixtures.js'
import { groupBody } from './helpers/group-fixtures.js'
import { call, type Credential } from './helpers/test-app.js'

// The error queue's Group picker past the first hundred groups: it used to read the deployment's
// first 100 groups and filter them by account in the browser, so an account whose groups came
// later showed an empty picker and its groups could never be chosen.

const session = consoleInBrowser()
const { newPage, consoleUser } = session
let t: ConsoleServer
beforeAll(() => {
  t = session.server
})

/** More groups than one page of GET /groups holds, all created before the test's own. */
const EARLIER_GROUPS = 101

async function newGroup(who: Credential, organizationName: string): Promise<string> {
  const res = await call(t.app, who, 'POST', '/groups', { group: groupBody({ employer: { ...(groupBody().employer as object), organization_name: organizationName } }) })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().group.id
}

/** A group with a coverage period and one error raised by hand on it (no member needed). */
async function groupWithError(partner: Credential, operator: Credential, organizationName: string, parameter: string): Promise<string> {
  const groupId = await newGroup(partner, organizationName)
  const cp = await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
    coverage_period: { external_identifier: 'plan-year-2027', coverage_start_date: '2027-01-01', coverage_end_date: '2027-12-31', carrier_name: 'sandbox_edi', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
  })
  expect(cp.statusCode, cp.body).toBe(201)
  const raised = await raiseByHand(t, operator, cp.json().coverage_period.id, { source: 'manual', discrepancy: { parameter, carrier: 'X', platform: 'Y' } })
  expect(raised.statusCode, raised.body).toBe(201)
  return groupId
}

/** The error names of the queue's rows, top to bottom. */
const rowNames = (page: Page) => page.locator('table.queue-table tbody a.queue-open').allTextContents()
const groupOptions = (page: Page) => page.getByLabel('Group', { exact: true }).locator('option').allTextContents()

describe.skipIf(browserMissing())('the error queue’s Group picker past the first hundred groups, in a browser', { timeout: 120_000 }, () => {
  it('when an operator chooses an account whose groups were created after the first hundred, then the Group picker offers them and choosing one filters the queue', async () => {
    const operator = await t.newOperator()
    const early = await t.newPartner(`Early partner ${Math.random().toString(36).slice(2, 8)}`)
    await groupWithError(early, operator, 'Early Bird Foods', 'region')
    for (let n = 1; n < EARLIER_GROUPS; n++) await newGroup(early, `Early filler ${String(n).padStart(3, '0')}`)
    const lateName = `Late partner ${Math.random().toString(36).slice(2, 8)}`
    const late = await t.newPartner(lateName)
    const zephyr = await groupWithError(late, operator, 'Zephyr Late Co', 'tobacco_use')
    await groupWithError(late, operator, 'Yarrow Late LLC', 'gender')

    const email = uniqueEmail('pickers')
    await consoleUser(operator, email)
    const page = await newPage()
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, '/console/errors?sort=parameter')
    await page.getByLabel('Account', { exact: true }).selectOption({ label: lateName })
    await expect.poll(() => rowNames(page)).toEqual(['gender', 'tobacco use'])

    // Both of the account's groups, sorted by name, and none of another account's.
    await expect.poll(() => groupOptions(page), { timeout: 10_000 }).toEqual(['Every group', 'Yarrow Late LLC', 'Zephyr Late Co'])
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Zephyr Late Co' })
    await expect.poll(() => rowNames(page)).toEqual(['tobacco use'])
    expect(page.url()).toContain(`group_id=${zephyr}`)
    expect(page.url()).toContain(`account_id=${late.accountId}`)
    await screenshot(page, 'queue-group-picker')
  })
})
