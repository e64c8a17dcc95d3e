import { readFileSync } from 'node:fs'
import type { App } from '../../src/http/app-types.js'

/**
 * The README guides run as tests: their curl commands are parsed out of README.md and sent to a
 * test app in order, so a guide that drifts from the API fails the suite.
 */

export interface CurlCommand {
  method: string
  path: string
  /** The body with `$NAME` references still to expand. */
  body: string | undefined
  /** The `Service-Api-Key` header's value, `$NAME` references still to expand. */
  apiKey: string
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

/** A README section, from its `## ` heading to the next one. */
function readmeSection(heading: string): string {
  const readme = readFileSync('README.md', 'utf8')
  const start = readme.indexOf(`## ${heading}\n`)
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`)
  const next = readme.indexOf('\n## ', start + 3)
  return readme.slice(start, next < 0 ? undefined : next)
}

/** Every curl command of a README section, in order. */
export function guideCommands(heading: string): CurlCommand[] {
  return guideBlocks(heading, 'sh').flatMap((block) =>
    shellCommands(block)
      .filter((words) => words[0] === 'curl')
      .map((words) => {
        const method = words.includes('-X') ? words[words.indexOf('-X') + 1]! : 'GET'
        const url = words.find((w) => w.startsWith('http://'))!
        const body = words.includes('-d') ? words[words.indexOf('-d') + 1] : undefined
        const keyHeader = words.find((w, i) => words[i - 1] === '-H' && /^service-api-key:/i.test(w))
        if (!keyHeader) throw new Error(`a guide command sends no Service-Api-Key: ${words.join(' ')}`)
        const apiKey = keyHeader.replace(/^service-api-key:\s*/i, '')
        return { method, path: url.replace(/^http:\/\/[^/]+/, ''), body, apiKey, source: words.join(' ').slice(0, 120) }
      }),
  )
}

/** Replaces each `$NAME` with its value; a name no answer gave yet fails the guide. */
export function expand(text: string, variables: Record<string, string>): string {
  return text.replace(new RegExp(`${VARIABLE}([A-Z_]+)${VARIABLE}`, 'g'), (_, name: string) => {
    const value = variables[name]
    if (value === undefined) throw new Error(`the guide uses $${name} before an answer gave it`)
    return value
  })
}

/** Runs one guide command on the app; the key is the command's own `Service-Api-Key` value. */
export function sendGuideCommand(app: App, command: CurlCommand, variables: Record<string, string>) {
  return app.inject({
    method: command.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: expand(command.path, variables),
    headers: { 'service-api-key': expand(command.apiKey, variables), ...(command.body ? { 'content-type': 'application/json' } : {}) },
    ...(command.body ? { payload: expand(command.body, variables) } : {}),
  })
}

/** Every fenced block of one language in a README section, in order. */
export function guideBlocks(heading: string, language: string): string[] {
  return [...readmeSection(heading).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!)
}

/** The ids the "Install a group" guide tells the reader to take from each answer. */
export function captureInstallIds(path: string, answer: Record<string, any>, variables: Record<string, string>): void {
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
