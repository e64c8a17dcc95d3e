import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { GuideError } from './helpers/guide-shell.js'
import { credentialsFile, runGuide } from './helpers/readme-guide.js'
import type { TestApp } from './helpers/test-app.js'

/**
 * The README guide "Work with the carrier", run as written in the shell of "Install a group": the
 * operator submits the work order, the sandbox carrier installs the group on its own after its
 * delay (the guide's `sleep`) and answers with its census, then the guide reads what was sent and
 * what the census raised. The worker runs between commands as it would behind `npm start`.
 */
// Long enough that the guide's commands between the submission and its wait finish first on a
// loaded two-core machine (300 ms was not, under a full CI run beside other work).
const SANDBOX_DELAY_MS = 2_000

let bed: CarrierTestBed
let t: TestApp
let workers: Workers

beforeAll(async () => {
  bed = await startCarrierTestBed({ settings: { sandboxDelayMs: SANDBOX_DELAY_MS } })
  ;({ t, workers } = bed)
})
afterAll(async () => bed?.close())

describe('the README guide "Work with the carrier"', () => {
  it('when its commands follow "Install a group", then the sandbox carrier installs the group, its census arrives and is reconciled', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    let completedBeforeTheWait = false

    const { answers, variables } = await runGuide(t.app, 'Work with the carrier', {
      files: credentialsFile({ partner: partner.apiKey, operator: operator.apiKey }),
      afterCurl: () => workers.drain(),
      async run(argv, { source }) {
        if (argv[0] === 'sleep' && Number(argv[1]) * 1000 > 10_000) {
          // The guide waits out the default SANDBOX_CARRIER_DELAY_MS; the test's is shorter.
          // The test bed's database holds this guide's work order only.
          const orders = await t.db.selectFrom('work_orders').select('status').execute()
          completedBeforeTheWait = orders.some((order) => order.status === 'completed')
          await sleep(SANDBOX_DELAY_MS + 50)
          await settle(workers)
          return ''
        }
        throw new GuideError(`the test runs no "${argv.join(' ')}": ${source}`)
      },
    })
    expect(completedBeforeTheWait).toBe(false)

    // After the wait, the work order the guide reads was completed by the sandbox carrier itself.
    const workOrder = JSON.parse(answers.filter((a) => a.url.endsWith('/work_order')).at(-1)!.body).work_order
    expect(workOrder).toMatchObject({ id: variables.WORK_ORDER_ID, status: 'completed' })
    const cp = JSON.parse(answers.find((a) => a.url === `/coverage_periods/${variables.COVERAGE_PERIOD_ID}`)!.body).coverage_period
    expect(cp).toMatchObject({ state: 'production', carrier_group_number: expect.stringMatching(/^SBX-/) })

    // The file the guide downloads is the 834 sent on submission.
    const file = answers.find((a) => a.body.startsWith('ISA*'))
    expect(file?.url).toBe(`/file_deliveries/${variables.FILE_DELIVERY_ID}/content`)
    expectValid834(file!.body)

    // The sandbox's census arrived and raised its deliberate discrepancies, which the guide lists.
    const censuses = JSON.parse(answers.find((a) => a.url === `/coverage_periods/${variables.COVERAGE_PERIOD_ID}/census_requests`)!.body).census_requests
    expect(censuses).toMatchObject([{ id: variables.SANDBOX_CENSUS_ID, format: 'x12_834', status: 'completed' }])
    const raised = JSON.parse(answers.find((a) => a.url.endsWith('/errors?source=reconciliation'))!.body).errors
    // One family: the first subscriber's address, and a dependent (the spouse) the carrier lacks.
    expect(raised.map((e: { discrepancy: { parameter: string }; member_id: string }) => [e.discrepancy.parameter, e.member_id]).sort()).toEqual([
      ['dependent', variables.SPOUSE_ID],
      ['residential_address', variables.SUBSCRIBER_ID],
    ])

    // The operator's own census is reconciled too: it names Jane in the carrier's spellings and
    // leaves out her spouse.
    const manual = JSON.parse(answers.find((a) => a.url.endsWith('/census_requests?as_of=2027-01-15'))!.body).census_requests
    expect(manual).toMatchObject([{ id: variables.CENSUS_REQUEST_ID, status: 'completed' }])
    const spouseMissing = await t.db
      .selectFrom('errors')
      .select(['status'])
      .where('coverage_period_id', '=', cp.id)
      .where('member_id', '=', variables.SPOUSE_ID!)
      .where('discrepancy_parameter', '=', 'dependent')
      .where('discrepancy_kind', '=', 'carrier_missing')
      .execute()
    expect(spouseMissing).toEqual([{ status: 'unresolved' }])

    // The sandbox acknowledged the full file with a TA1 and a 999, both accepting it, which the
    // guide lists before the operator posts the carrier's rejecting 999.
    const listed = JSON.parse(answers.find((a) => a.url === `/file_deliveries/${variables.FILE_DELIVERY_ID}/acknowledgements`)!.body).acknowledgements
    expect(listed.map((a: { kind: string; status: string; source: string }) => [a.kind, a.status, a.source]).sort()).toEqual([
      ['999', 'accepted', 'sandbox'],
      ['ta1', 'accepted', 'sandbox'],
    ])
    const posted = answers.find((a) => a.method === 'POST' && a.url === `/file_deliveries/${variables.FILE_DELIVERY_ID}/acknowledgements`)!
    expect(JSON.parse(posted.body).acknowledgement).toMatchObject({ kind: '999', status: 'rejected', source: 'operator' })
    const delivery = await t.db.selectFrom('file_deliveries').select('acknowledgement_status').where('id', '=', variables.FILE_DELIVERY_ID!).executeTakeFirstOrThrow()
    expect(delivery.acknowledgement_status).toBe('rejected')
    // ... and its rejection is the file_validation error the guide's last command lists.
    const validation = JSON.parse(answers.find((a) => a.url.endsWith('/errors?source=file_validation'))!.body).errors
    expect(validation).toMatchObject([
      {
        source: 'file_validation',
        assignee: 'service',
        status: 'unresolved',
        member_id: null,
        message: "The carrier's 999 rejected the whole transaction set: one or more segments are in error (IK5 code 5).",
      },
    ])
    // The rejection took the full file back (its families in errors), and the guide's resend built
    // it again as a new full delivery.
    const resent = answers.find((a) => a.method === 'POST' && a.url === `/file_deliveries/${variables.FILE_DELIVERY_ID}/resend`)!
    expect(resent.statusCode, resent.body).toBe(202)
    expect(JSON.parse(resent.body)).toMatchObject({ file_delivery: { id: variables.FILE_DELIVERY_ID, acknowledgement_status: 'rejected', resent_at: expect.any(String) }, transactions_queued: 0, full_file: true })
    const fulls = await t.db.selectFrom('file_deliveries').select(['id', 'status']).where('coverage_period_id', '=', cp.id).where('kind', '=', 'full').orderBy('created_at').execute()
    expect(fulls.map((d) => d.id)).toHaveLength(2)
    expect(fulls[1]).toMatchObject({ status: 'sent' })
    // The whole guide through the sandbox carrier: 4.9 s in CI and 11.4 s on a loaded machine, of the 30 s default.
  }, 60_000)
})
