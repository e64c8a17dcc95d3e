import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { settle, startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { expectValid834 } from './helpers/edi-834-assertions.js'
import { GuideError } from './helpers/guide-shell.js'
import { credentialsFile, runGuide } from './helpers/readme-guide.js'
import type { TestApp } from './helpers/test-app.js'

/**
 * The README guide "Life after installation", run as written after "Install a group" and "Work
 * with the carrier" in one shell: a birth, a plan change, a renewal and a future-dated termination,
 * each checked in the change file it sends. The guide's `sleep`s wait for the batch delay and the
 * sandbox carrier; here the workers run instead (the test bed's delays are zero).
 */
let bed: CarrierTestBed
let t: TestApp
let workers: Workers

beforeAll(async () => {
  bed = await startCarrierTestBed()
  ;({ t, workers } = bed)
})
afterAll(async () => bed?.close())

/** The member loops of an 834 as lines: each INS with its DTPs and HD loops, segment by segment. */
function segmentsOf(file: string): string[] {
  return file
    .split('~')
    .map((segment) => segment.trim())
    .filter(Boolean)
}

/** One member loop: from its INS to the next INS (or the trailer). */
function loopOf(file: string, memberId: string): string[] {
  const segments = segmentsOf(file)
  const ref = segments.indexOf(`REF*17*${memberId}`)
  if (ref < 0) return []
  let start = ref
  while (!segments[start]!.startsWith('INS*')) start--
  let end = ref + 1
  while (end < segments.length && !segments[end]!.startsWith('INS*') && !segments[end]!.startsWith('SE*')) end++
  return segments.slice(start, end)
}

describe('the README guide "Life after installation"', () => {
  it('when its commands follow "Work with the carrier", then each change sends exactly the loops the guide says', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const today = new Date().toISOString().slice(0, 10)

    const { answers, variables } = await runGuide(t.app, 'Life after installation', {
      files: credentialsFile({ partner: partner.apiKey, operator: operator.apiKey }),
      afterCurl: () => workers.drain(),
      async run(argv, { source }) {
        if (argv[0] === 'sleep') {
          await settle(workers)
          return ''
        }
        if (argv.join(' ') === 'date -u +%F') return `${today}\n`
        throw new GuideError(`the test runs no "${argv.join(' ')}": ${source}`)
      },
    })
    const content = (id: string) => {
      const answer = answers.find((a) => a.url === `/file_deliveries/${id}/content`)
      expect(answer, `the guide reads file ${id}`).toBeDefined()
      expectValid834(answer!.body)
      return answer!.body
    }
    const { SUBSCRIBER_ID: subscriber, SPOUSE_ID: spouse, BABY_ID: baby } = variables

    // The birth: the child added, the subscriber's level ESP → FAM from the plan year's start; no spouse loop.
    const birth = content(variables.BIRTH_FILE_ID!)
    expect(loopOf(birth, baby!)[0]).toBe('INS*N*19*021*02*A')
    expect(loopOf(birth, baby!)).toContain('HD*021**HLT*Silver HMO 1500*FAM')
    const raised = loopOf(birth, subscriber!)
    expect(raised[0]).toBe('INS*Y*18*001*02*A***FT')
    expect(raised).toEqual(expect.arrayContaining(['DTP*303*D8*20270101', 'HD*001**HLT*Silver HMO 1500*FAM']))
    expect(loopOf(birth, spouse!)).toEqual([])

    // The plan change: every member's HMO ended on March 31 and the PPO added from April 1, in one loop.
    const change = content(variables.PLAN_CHANGE_FILE_ID!)
    for (const member of [subscriber!, spouse!, baby!]) {
      const loop = loopOf(change, member)
      expect(loop[0]).toMatch(/^INS\*[YN]\*\d\d\*001\*22\*A/)
      expect(loop).toContain('DTP*303*D8*20270401')
      const ended = loop.indexOf('HD*024**HLT*Silver HMO 1500*FAM')
      const added = loop.indexOf('HD*021**HLT*Gold PPO 500*FAM')
      expect(ended).toBeGreaterThan(0)
      expect(added).toBeGreaterThan(ended)
      expect(loop[ended + 2]).toBe('DTP*349*D8*20270331')
      expect(loop[added + 1]).toBe('DTP*348*D8*20270401')
    }

    // The renewal's full file: the 2028 PPO for the three of them, under the kept group number,
    // each enrolled by the open-enrollment election (021*EC, x12-834-notes.md), not as new (28).
    const renewal = content(variables.RENEWAL_FILE_ID!)
    expect(renewal).toContain('BGN*00*')
    expect(renewal).toMatch(/~\s*DTP\*007\*D8\*20280101~/)
    for (const member of [subscriber!, spouse!, baby!]) {
      const loop = loopOf(renewal, member)
      expect(loop[0]).toMatch(/^INS\*[YN]\*\d\d\*021\*EC\*A/)
      expect(loop.filter((s) => s.startsWith('HD*'))).toEqual(['HD*021**HLT*Gold PPO 500*FAM'])
    }
    const renewalPeriod = JSON.parse(answers.find((a) => a.url === `/coverage_periods/${variables.RENEWAL_ID}`)!.body).coverage_period
    const firstPeriod = await t.db.selectFrom('coverage_periods').select('carrier_group_number').where('id', '=', variables.COVERAGE_PERIOD_ID!).executeTakeFirstOrThrow()
    expect(renewalPeriod).toMatchObject({ state: 'production', carrier_group_number: firstPeriod.carrier_group_number })
    // The old year's carrier was told nothing about 2028.
    const oldFiles = await t.db.selectFrom('file_deliveries').select(['id', 'status', 'kind', 'member_count']).where('coverage_period_id', '=', variables.COVERAGE_PERIOD_ID!).execute()
    // The full file, the full file sent again after "Work with the carrier" posted a rejecting 999, the birth, the plan change.
    expect(oldFiles.filter((d) => d.status === 'sent'), JSON.stringify(oldFiles)).toHaveLength(4)

    // The future-dated termination: every loop 024*08 with the 2028 end, never an addition.
    const termination = content(variables.TERMINATION_FILE_ID!)
    expect(termination).not.toContain('HD*021')
    for (const member of [subscriber!, spouse!, baby!]) {
      const loop = loopOf(termination, member)
      expect(loop[0]).toMatch(member === subscriber ? /^INS\*Y\*18\*024\*08\*A\*\*\*TE/ : /^INS\*N\*\d\d\*024\*08\*A/)
      expect(loop).toEqual(expect.arrayContaining(['HD*024**HLT*Gold PPO 500*FAM', 'DTP*349*D8*20280331', 'DTP*357*D8*20280331']))
    }

    // What the guide reads back: the history, and one current event per coverage period.
    const history = JSON.parse(answers.find((a) => a.url === `/members/${subscriber}/coverages?as_of=all`)!.body).coverages
    expect(history.map((c: { plan_id: string; start_date: string; end_date: string | null }) => [c.plan_id, c.start_date, c.end_date])).toEqual([
      [variables.HMO_PLAN_ID, '2027-01-01', '2027-03-31'],
      [variables.PPO_PLAN_ID, '2027-04-01', null],
    ])
    const read = JSON.parse(answers.filter((a) => a.url === `/subscribers/${subscriber}`).at(-1)!.body).subscriber
    expect(read.current_qualifying_life_events.map((e: { event: string; coverage_period_id: string }) => [e.coverage_period_id, e.event])).toEqual([
      [variables.COVERAGE_PERIOD_ID, 'loss_of_coverage'],
      [variables.RENEWAL_ID, 'termination_of_employment'],
    ])
    // The whole guide and every change file after it: 5.3 s in CI and 20 s on a loaded machine, of the 30 s default.
  }, 90_000)
})
