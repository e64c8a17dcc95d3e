import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { captureInstallIds, expand, guideCommands, sendGuideCommand } from './helpers/readme-guide.js'
import type { TestApp } from './helpers/test-app.js'

/**
 * The README guide "Work with the carrier", run as written after "Install a group": the operator's
 * commands move the work order, read what was sent and post a census; the worker runs between
 * commands as it would behind `npm start`. The sandbox carrier is given an hour, so the operator's
 * own "completed" is the one that counts, as in the guide.
 */
let bed: CarrierTestBed
let t: TestApp
let workers: Workers

beforeAll(async () => {
  bed = await startCarrierTestBed({ settings: { sandboxDelayMs: 3_600_000 } })
  ;({ t, workers } = bed)
})
afterAll(async () => bed?.close())

/** The ids "Work with the carrier" tells the reader to carry from one answer to the next. */
// `any`: answers are walked by the names the guide gives; a missing one fails the guide's next command.
function captureCarrierIds(answer: Record<string, any>, variables: Record<string, string>): void {
  if (answer.work_order) variables.WORK_ORDER_ID = answer.work_order.id
  if (answer.file_deliveries?.[0]) variables.FILE_DELIVERY_ID = answer.file_deliveries[0].id
  if (answer.census_request) variables.CENSUS_REQUEST_ID = answer.census_request.id
}

describe('the README guide "Work with the carrier"', () => {
  it('when its commands follow "Install a group", then the group is installed, its file readable and the census reconciled', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const variables: Record<string, string> = { KEY: partner.apiKey, OPERATOR_KEY: operator.apiKey }
    for (const command of guideCommands('Install a group')) {
      const res = await sendGuideCommand(t.app, command, variables)
      expect(res.statusCode, `${command.source}\n${res.body}`).toBeLessThan(300)
      captureInstallIds(expand(command.path, variables), res.json(), variables)
      captureCarrierIds(res.json(), variables)
    }

    const answers: string[] = []
    for (const command of guideCommands('Work with the carrier')) {
      const res = await sendGuideCommand(t.app, command, variables)
      expect(res.statusCode, `${command.source}\n${res.body}`).toBeLessThan(300)
      answers.push(res.body)
      if (String(res.headers['content-type'] ?? '').includes('json')) captureCarrierIds(res.json(), variables)
      for (let round = 0; round < 4; round++) await workers.drain()
    }

    // The file the guide downloads is the 834 sent on submission.
    const file = answers.find((body) => body.startsWith('ISA*'))
    expect(file).toBeDefined()
    expectValid834(file!)
    const cp = await t.db.selectFrom('coverage_periods').selectAll().where('id', '=', variables.COVERAGE_PERIOD_ID!).executeTakeFirstOrThrow()
    expect(cp).toMatchObject({ state: 'production', carrier_group_number: 'G-100200' })
    // The guide's census names Jane in the carrier's spellings and leaves out her spouse.
    const errors = await t.db
      .selectFrom('errors')
      .select(['discrepancy_parameter', 'discrepancy_kind', 'member_id'])
      .where('coverage_period_id', '=', cp.id)
      .where('source', '=', 'reconciliation')
      .execute()
    expect(errors).toEqual([{ discrepancy_parameter: 'dependent', discrepancy_kind: 'carrier_missing', member_id: variables.SPOUSE_ID }])
  })
})
