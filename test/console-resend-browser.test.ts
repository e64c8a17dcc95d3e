import { beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { CONSOLE_PASSWORD, PHONE, browserMissing, consoleInBrowser, screenshot, signIn, uniqueEmail, type ConsoleServer } from './helpers/browser.js'
import { groupBody } from './helpers/group-fixtures.js'
import { call, type Credential } from './helpers/test-app.js'

// A file the carrier rejected, on the group page: its answer shown, and for operators "Send again"
// (POST /file_deliveries/{id}/resend). The rejected delivery is written as the acknowledgement
// receiver leaves it (test/rejected-files.test.ts drives the real rejection and resend).

const session = consoleInBrowser()
const { newPage, consoleUser } = session
let t: ConsoleServer
beforeAll(() => {
  t = session.server
})

/** A group with a coverage period and one change file the carrier rejected, its views already rolled back. */
async function groupWithRejectedFile(partner: Credential): Promise<{ groupId: string; deliveryId: string }> {
  const group = await call(t.app, partner, 'POST', '/groups', { group: groupBody() })
  expect(group.statusCode, group.body).toBe(201)
  const groupId = group.json().group.id as string
  const cp = await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
    coverage_period: { external_identifier: 'plan-year-2027', coverage_start_date: '2027-01-01', coverage_end_date: '2027-12-31', carrier_name: 'aetna', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
  })
  expect(cp.statusCode, cp.body).toBe(201)
  const deliveryId = uuidv7()
  const now = new Date()
  await t.db
    .insertInto('file_deliveries')
    .values({
      id: deliveryId,
      account_id: partner.accountId,
      coverage_period_id: cp.json().coverage_period.id,
      group_id: groupId,
      carrier_name: 'aetna',
      kind: 'change',
      channel: 'edi',
      file_name: `aetna_834_change_rejected_${deliveryId.slice(-6)}.x12`,
      status: 'sent',
      sha256: null,
      destination: null,
      last_error: null,
      interchange_control_number: 990_001,
      acknowledgement_status: 'rejected',
      views_rolled_back_at: now,
      created_at: now,
      sent_at: now,
      updated_at: now,
    })
    .execute()
  return { groupId, deliveryId }
}

describe.skipIf(browserMissing())('a rejected file on the group page, in a browser', { timeout: 120_000 }, () => {
  it('when an operator presses Send again on a rejected file, then the API records it resent and the page says when; a partner sees the answer but no button', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const { groupId, deliveryId } = await groupWithRejectedFile(partner)

    const partnerEmail = uniqueEmail('resend-partner')
    await consoleUser(partner, partnerEmail)
    const partnerPage = await newPage()
    await signIn(partnerPage, t.baseUrl, partnerEmail, CONSOLE_PASSWORD, `/console/groups/${groupId}`)
    await expect.poll(() => partnerPage.getByText('rejected', { exact: true }).count(), { timeout: 10_000 }).toBe(1)
    expect(await partnerPage.getByRole('button', { name: 'Send again' }).count()).toBe(0)
    await screenshot(partnerPage, 'group-rejected-file')

    const email = uniqueEmail('resend')
    await consoleUser(operator, email)
    const page = await newPage(PHONE)
    await signIn(page, t.baseUrl, email, CONSOLE_PASSWORD, `/console/groups/${groupId}`)
    const button = page.getByRole('button', { name: 'Send again' })
    await button.waitFor({ timeout: 10_000 })
    await screenshot(page, 'group-rejected-file-phone')
    await button.click()
    await page.getByText(/^Sent again /).waitFor({ timeout: 10_000 })
    expect(await page.getByRole('button', { name: 'Send again' }).count()).toBe(0)

    const read = await call(t.app, operator, 'GET', `/file_deliveries/${deliveryId}`)
    expect(read.json().file_delivery.resent_at).toEqual(expect.any(String))
    await screenshot(page, 'group-rejected-file-resent-phone')
  })
})
