import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * The README guide "Install a group", run exactly as written: every curl command of the section,
 * in order, with the ids the guide tells the reader to carry from one answer to the next. When the
 * guide changes, this test runs the new guide; when the API drifts from it, this test fails.
 */

interface CurlCommand {
  method: string
  path: string
  /** The body with `$NAME` references still to expand. */
  body: string | undefined
  source: string
}

const VARIABLE = '\u0000'

/** Splits a shell block into words: quotes, `\` line continuations, comments and `$NAME` handled. */
function shellCommands(block: string): string[][] {
  const commands: string[][] = []
  let words: string[] = []
  let word: string | undefined
  const push = () => {
    if (word !== undefined) words.push(word)
    word = undefined
  }
  for (let i = 0; i < block.length; i++) {
    const c = block[i]!
    if (c === '\\' && block[i + 1] === '\n') {
      i++
      push()
    } else if (c === '\n') {
      push()
      if (words.length) commands.push(words)
      words = []
    } else if (c === '#' && word === undefined) {
      while (i < block.length && block[i] !== '\n') i++
      i--
    } else if (c === ' ' || c === '\t') {
      push()
    } else if (c === "'") {
      const end = block.indexOf("'", i + 1)
      word = (word ?? '') + block.slice(i + 1, end)
      i = end
    } else if (c === '"') {
      const end = block.indexOf('"', i + 1)
      word = (word ?? '') + block.slice(i + 1, end).replace(/\$([A-Z_]+)/g, `${VARIABLE}$1${VARIABLE}`)
      i = end
    } else if (c === '$' && /[A-Z_]/.test(block[i + 1] ?? '')) {
      const name = /^[A-Z_]+/.exec(block.slice(i + 1))![0]
      word = (word ?? '') + `${VARIABLE}${name}${VARIABLE}`
      i += name.length
    } else {
      word = (word ?? '') + c
    }
  }
  push()
  if (words.length) commands.push(words)
  return commands
}

function guideCommands(): CurlCommand[] {
  const readme = readFileSync('README.md', 'utf8')
  const section = readme.slice(readme.indexOf('## Install a group'), readme.indexOf('## Configuration'))
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
  return blocks.flatMap((block) =>
    shellCommands(block)
      .filter((words) => words[0] === 'curl')
      .map((words) => {
        const method = words.includes('-X') ? words[words.indexOf('-X') + 1]! : 'GET'
        const url = words.find((w) => w.startsWith('http://'))!
        const body = words.includes('-d') ? words[words.indexOf('-d') + 1] : undefined
        return { method, path: url.replace(/^http:\/\/[^/]+/, ''), body, source: words.join(' ').slice(0, 120) }
      }),
  )
}

function expand(text: string, variables: Record<string, string>): string {
  return text.replace(new RegExp(`${VARIABLE}([A-Z_]+)${VARIABLE}`, 'g'), (_, name: string) => {
    const value = variables[name]
    if (value === undefined) throw new Error(`the guide uses $${name} before an answer gave it`)
    return value
  })
}

/** The ids the guide tells the reader to take from each answer. */
function capture(path: string, answer: Record<string, any>, variables: Record<string, string>): void {
  // `any`: answers are walked by the names the guide gives; a missing one fails the expectations below.
  if (answer.group_installment && path === '/group_installments') {
    variables.INSTALLMENT_ID = answer.group_installment.id
    variables.GROUP_ID = answer.group_installment.group.id
    variables.LOCATION_ID = answer.group_installment.group.locations[0].id
  }
  if (answer.coverage_period) variables.COVERAGE_PERIOD_ID = answer.coverage_period.id
  if (answer.plan?.product_type === 'health_maintenance_organization') variables.HMO_PLAN_ID = answer.plan.id
  if (answer.employment_classification) variables.CLASS_ID = answer.employment_classification.id
  if (answer.subscriber) {
    variables.SUBSCRIBER_ID = answer.subscriber.id
    variables.SPOUSE_ID = answer.subscriber.dependents[0].id
  }
}

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('the README guide "Install a group"', () => {
  it('when its commands are run in order, then every step answers success and the installment is complete', async () => {
    const commands = guideCommands()
    expect(commands.length).toBeGreaterThanOrEqual(10)
    const partner = await t.newPartner()
    const variables: Record<string, string> = { KEY: partner.apiKey }
    const statuses: number[] = []
    for (const command of commands) {
      const res = await t.app.inject({
        method: command.method as 'GET' | 'POST',
        url: expand(command.path, variables),
        headers: { 'service-api-key': partner.apiKey, ...(command.body ? { 'content-type': 'application/json' } : {}) },
        ...(command.body ? { payload: expand(command.body, variables) } : {}),
      })
      expect(res.statusCode, `${command.source}\n${res.body}`).toBeLessThan(300)
      statuses.push(res.statusCode)
      capture(expand(command.path, variables), res.json(), variables)
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
