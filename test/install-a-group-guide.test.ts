import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { credentialsFile, runGuide } from './helpers/readme-guide.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * The README guide "Install a group", run exactly as written: its commands in order in one shell,
 * the ids carried by the guide's own `jq` captures. When the guide changes, this test runs the new
 * guide; when the API drifts from it, or a command uses a variable no earlier one set, it fails.
 */

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('the README guide "Install a group"', () => {
  it('when its commands are run in order, then every step answers success and the installment is complete', async () => {
    const partner = await t.newPartner()
    const { answers, variables } = await runGuide(t.app, 'Install a group', { files: credentialsFile({ partner: partner.apiKey }) })
    expect(answers.length).toBeGreaterThanOrEqual(10)
    // Completing the setup twice (the coverage period, then the installment alias): 201 then 200.
    expect(answers.filter((a) => a.statusCode === 201).length).toBeGreaterThanOrEqual(8)
    expect(variables).toMatchObject({ WORK_ORDER_ID: expect.any(String), SPOUSE_ID: expect.any(String), LOCATION_ID: expect.any(String) })

    const installment = await t.app.inject({
      method: 'GET',
      url: `/group_installments/${variables.INSTALLMENT_ID}`,
      headers: { 'service-api-key': partner.apiKey },
    })
    const { group_installment } = installment.json()
    expect(group_installment.status).toBe('setup_completed')
    expect(group_installment.work_order_id).toBe(variables.WORK_ORDER_ID)
    expect(group_installment.progress.map((p: { status: string }) => p.status)).toEqual(Array(7).fill('done'))

    // The guide selects a PCP for the spouse only: the subscriber, in the HMO of a carrier that
    // requires one, gets the error the specification describes; the spouse does not.
    const errors = await t.db
      .selectFrom('errors')
      .select(['member_id', 'discrepancy_parameter', 'severity', 'source', 'assignee', 'status'])
      .where('coverage_period_id', '=', variables.COVERAGE_PERIOD_ID!)
      .execute()
    expect(errors).toEqual([
      {
        member_id: variables.SUBSCRIBER_ID,
        discrepancy_parameter: 'primary_care_provider',
        severity: 'failure',
        source: 'api',
        assignee: 'partner',
        status: 'unresolved',
      },
    ])
  })
})
