import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installThroughApi } from './helpers/carrier-side.js'
import { raiseByHand } from './helpers/error-fixtures.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('GET /coverage_periods/{id}/summary', () => {
  it('when a group of four families is installed and errors raised, then the summary counts its members, plans and errors by status', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const installed = await installThroughApi(t, partner, 'aetna', 4)
    const message = { message: 'Checked with the employer.' }
    const raised: string[] = []
    for (const parameter of ['gender', 'marital_status', 'tobacco_use']) {
      const res = await raiseByHand(t, operator, installed.coveragePeriodId, {
        source: 'manual',
        discrepancy: { parameter, carrier: 'X', platform: 'Y' },
        member_id: installed.families[0]!.subscriberId,
      })
      expect(res.statusCode, res.body).toBe(201)
      raised.push(res.json().error.id)
    }
    const resolved = await call(t.app, operator, 'POST', `/errors/${raised[0]}/resolution`, message)
    expect(resolved.statusCode, resolved.body).toBe(200)

    const res = await call(t.app, partner, 'GET', `/coverage_periods/${installed.coveragePeriodId}/summary`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().summary).toEqual({
      coverage_period_id: installed.coveragePeriodId,
      group_installment_id: installed.installmentId,
      subscribers: 4,
      dependents: 8,
      enrolled_members: 12,
      plans: 1,
      errors: { unresolved: 2, returned: 0, resolved: 1 },
    })
  })

  it("when a partner asks for another account's coverage period, then 404 answers as if it did not exist", async () => {
    const owner = await t.newPartner()
    const installed = await installThroughApi(t, owner, 'aetna', 1)
    const res = await call(t.app, await t.newPartner(), 'GET', `/coverage_periods/${installed.coveragePeriodId}/summary`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('coverage_period_not_found')
  })
})
