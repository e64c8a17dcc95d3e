import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { completedPcpSetup, raiseByHand, registerUser } from './helpers/error-fixtures.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { insertReadySetup } from './helpers/setup-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// SSNs typed into free text are masked before they are stored (lib/free-text-masking.ts): the
// answer, a later read and the database itself hold only ***-**-6789.

let t: TestApp
let operator: Credential
let opsEmail: string
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
  opsEmail = (await registerUser(t, operator, `ops-${uuidv7()}@example.com`, ['operations'])).email
})
afterAll(async () => t?.close())

const CLEAR = /123-45-6789|123 45 6789|123456789/

/** Every row of `table` whose text (as JSON) mentions `id`, so the check reads the stored form. */
async function storedText(table: string, column: string, id: string): Promise<string> {
  const rows = await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(table)} t where ${sql.ref(column)} = ${id}`.execute(t.db)
  expect(rows.rows.length).toBeGreaterThan(0)
  return rows.rows.map((r) => r.row).join('\n')
}

describe('errors: comments, resolutions, returns and discrepancy values', () => {
  it('when an operator raises an error with SSNs in its values and first comment, then the answer, a later read and the stored row hold only the masked form', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const res = await raiseByHand(t, operator, setup.coveragePeriod.id, {
      source: 'error_report',
      discrepancy: { parameter: 'residential_address', carrier: { street: '1 Main St', note: 'ssn 123-45-6789' }, platform: 123456789 },
      member_id: setup.subscriber.id,
      created_by: opsEmail,
      comment: 'Carrier report lists SSN 123 45 6789; call 555-123-4567 before 2026-12-01.',
    })
    expect(res.statusCode, res.body).toBe(201)
    const error = res.json().error
    expect(error.discrepancy).toMatchObject({ carrier: { street: '1 Main St', note: 'ssn ***-**-6789' }, platform: '***-**-6789' })
    // Only the SSN is touched: the phone number and the date stay as typed.
    expect(error.comments[0].message).toBe('Carrier report lists SSN ***-**-6789; call 555-123-4567 before 2026-12-01.')
    expect(res.body).not.toMatch(CLEAR)

    const read = await call(t.app, operator, 'GET', `/errors/${error.id}`)
    expect(read.json().error).toEqual(error)
    expect(await storedText('errors', 'id', error.id)).not.toMatch(CLEAR)
    expect(await storedText('error_comments', 'error_id', error.id)).not.toMatch(CLEAR)
  })

  it('when a partner comments, returns and resolves with SSNs in the message, then each is stored and shown masked', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = (await call(t.app, partner, 'GET', `/coverage_periods/${setup.coveragePeriod.id}/errors`)).json().errors[0].id as string

    const commented = await call(t.app, partner, 'POST', `/errors/${errorId}/comments`, { message: 'Member SSN is 123-45-6789', created_by: (await registerUser(t, partner, `admin-${uuidv7()}@example.com`)).email })
    expect(commented.statusCode, commented.body).toBe(201)
    expect(commented.json().comment.message).toBe('Member SSN is ***-**-6789')

    const returned = await call(t.app, partner, 'POST', `/errors/${errorId}/return`, { message: 'The carrier has 123 45 6789 on file' })
    expect(returned.statusCode, returned.body).toBe(200)
    expect(returned.json().error.comments.map((c: { message: string }) => c.message)).toEqual(['Member SSN is ***-**-6789', 'The carrier has ***-**-6789 on file'])

    const resolved = await call(t.app, partner, 'POST', `/errors/${errorId}/resolution`, { message: 'Fixed SSN 123456789 (was 987-65-4321)' })
    expect(resolved.statusCode, resolved.body).toBe(200)
    expect(resolved.json().error.resolution.message).toBe('Fixed SSN ***-**-6789 (was ***-**-4321)')
    expect(resolved.json().error.resolution_message).toBe('Fixed SSN ***-**-6789 (was ***-**-4321)')

    const comments = await call(t.app, partner, 'GET', `/errors/${errorId}/comments`)
    expect(comments.body).not.toMatch(CLEAR)
    const stored = (await storedText('errors', 'id', errorId)) + (await storedText('error_comments', 'error_id', errorId))
    expect(stored).not.toMatch(CLEAR)
    expect(stored).not.toContain('987-65-4321')
  })
})

describe('other free text', () => {
  it('when an operator moves a work order with an SSN in the message, then the history keeps it masked', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_manual' })
    const opened = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
    expect(opened.statusCode, opened.body).toBe(201)
    const workOrderId = opened.json().work_order.id as string
    const moved = await call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status: 'in_progress', message: 'Carrier asks about 123-45-6789' })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(moved.json().work_order.history.at(-1).message).toBe('Carrier asks about ***-**-6789')
    expect(await storedText('work_orders', 'id', workOrderId)).not.toMatch(CLEAR)
  })

  it('when a coverage period is created with an SSN in additional_information, then it is stored masked', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId, { carrierName: 'sandbox_edi' })
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, {
      coverage_period: {
        external_identifier: 'py-2027',
        coverage_start_date: '2027-01-01',
        employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: new Date().toISOString().slice(0, 10) },
        additional_information: 'Owner SSN 123456789, phone 5551234567',
      },
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().coverage_period.additional_information).toBe('Owner SSN ***-**-6789, phone 5551234567')
    expect(await storedText('coverage_periods', 'id', res.json().coverage_period.id)).not.toMatch(CLEAR)
  })
})
