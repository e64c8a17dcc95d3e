import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureInstallIds, expand, guideCommands, sendGuideCommand } from './helpers/readme-guide.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * The README guide "Install a group", run exactly as written: every curl command of the section,
 * in order, with the ids the guide tells the reader to carry from one answer to the next. When the
 * guide changes, this test runs the new guide; when the API drifts from it, this test fails.
 */

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('the README guide "Install a group"', () => {
  it('when its commands are run in order, then every step answers success and the installment is complete', async () => {
    const commands = guideCommands('Install a group')
    expect(commands.length).toBeGreaterThanOrEqual(10)
    const partner = await t.newPartner()
    const variables: Record<string, string> = { KEY: partner.apiKey }
    const statuses: number[] = []
    for (const command of commands) {
      const res = await sendGuideCommand(t.app, command, variables)
      expect(res.statusCode, `${command.source}\n${res.body}`).toBeLessThan(300)
      statuses.push(res.statusCode)
      captureInstallIds(expand(command.path, variables), res.json(), variables)
    }

    // Completing the setup twice (the coverage period, then the installment alias): 201 then 200.
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(8)
    const installment = await t.app.inject({
      method: 'GET',
      url: `/group_installments/${variables.INSTALLMENT_ID}`,
      headers: { 'service-api-key': partner.apiKey },
    })
    const { group_installment } = installment.json()
    expect(group_installment.status).toBe('setup_completed')
    expect(group_installment.work_order_id).toEqual(expect.any(String))
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
