import { readFileSync } from 'node:fs'
import type { App } from '../../src/http/app-types.js'
import { GuideError, GuideShell, type ShellHost } from './guide-shell.js'

/**
 * The README guides run as tests, exactly as written: their `sh` blocks go through a small shell
 * (./guide-shell.ts) whose `curl` is a request to a test app, so the ids a guide captures with
 * `jq` are the ones the next command uses, and a command using a variable no earlier command set
 * fails with its line quoted. A guide that drifts from the API fails the suite.
 */

/** A README section, from its `## ` heading to the next one. */
export function readmeSection(heading: string): string {
  const readme = readFileSync('README.md', 'utf8')
  const start = readme.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`)
  const next = readme.indexOf('\n## ', start + 4)
  return readme.slice(start + 1, next < 0 ? undefined : next)
}

/** Every fenced block of one language in a README section, in order. */
export function guideBlocks(heading: string, language: string): string[] {
  return [...readmeSection(heading).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!)
}

/**
 * The README sections a reader pastes, each with the guides it continues in the same shell (their
 * variables are set there). Every section with a `curl` in a `sh` block must be listed.
 */
export const GUIDES: Record<string, readonly string[]> = {
  'First requests': [],
  'Install a group': [],
  'Work the error queue': ['First requests', 'Install a group'],
  'Work with the carrier': ['Install a group'],
  'Life after installation': ['Install a group', 'Work with the carrier'],
}

/** The sections a guide runs in, in order: the ones it continues, then itself. */
export function guideChain(heading: string): string[] {
  const before = GUIDES[heading]
  if (!before) throw new Error(`"${heading}" is not a guide of GUIDES`)
  return [...new Set([...before.flatMap(guideChain), heading])]
}

/** `data/credentials.json` as the first start writes it, with the keys a test made. */
export function credentialsFile(keys: { partner: string; operator?: string }): Record<string, string> {
  const json = { partner: { api_key: keys.partner }, ...(keys.operator ? { service: { api_key: keys.operator } } : {}) }
  return { 'data/credentials.json': JSON.stringify(json, null, 2) }
}

/** One `curl` the guide ran, and its answer. */
export interface CurlAnswer {
  source: string
  method: string
  url: string
  statusCode: number
  contentType: string
  body: string
}

export interface GuideRunOptions {
  files: Record<string, string>
  /** Commands other than curl, jq and echo (`sleep`, `node receiver.mjs`); unhandled ones fail the guide. */
  run?: ShellHost['run']
  /** Before each curl, e.g. to wait until a receiver has what the next command reads. */
  beforeCurl?(source: string): Promise<void>
  /** After each curl, e.g. to let the worker run as it would behind `npm start`. */
  afterCurl?(answer: CurlAnswer): Promise<void>
  /** Applied to each curl argument: a test's own port for a receiver the guide puts on 4000. */
  rewrite?(argument: string): string
}

/** curl's options the guides use; another one fails the guide rather than being ignored. */
function curlRequest(args: string[], source: string) {
  let method: string | undefined
  let url: string | undefined
  let body: string | undefined
  const headers: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '-s' || arg === '-sS' || arg === '-S') continue
    if (arg === '-X') method = args[++i]
    else if (arg === '-H') {
      const header = args[++i] ?? ''
      const colon = header.indexOf(':')
      if (colon < 1) throw new GuideError(`curl -H needs "Name: value": ${source}`)
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim()
    // --data-binary sends the text as given (-d would strip newlines; the guides' bodies have none).
    } else if (arg === '-d' || arg === '--data' || arg === '--data-binary') body = args[++i]
    else if (arg.startsWith('-')) throw new GuideError(`the guide shell's curl does not take ${arg}: ${source}`)
    else if (url === undefined) url = arg
    else throw new GuideError(`curl is given two URLs: ${source}`)
  }
  if (!url?.startsWith('http://127.0.0.1:3000/')) throw new GuideError(`a guide's curl calls http://127.0.0.1:3000/...: ${source}`)
  // As curl does: -d sends a POST, form-encoded unless the command says otherwise.
  if (body !== undefined) headers['content-type'] ??= 'application/x-www-form-urlencoded'
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), path: url.slice('http://127.0.0.1:3000'.length), headers, body }
}

/**
 * Runs the guide and the guides it continues, in one shell, against `app`. Every curl must answer
 * 2xx (a guide shows commands that work); the answers are returned in order with the shell's
 * variables.
 */
export async function runGuide(app: App, heading: string, options: GuideRunOptions) {
  const answers: CurlAnswer[] = []
  const host: ShellHost = {
    files: options.files,
    async curl(rawArgs, source) {
      const args = options.rewrite ? rawArgs.map(options.rewrite) : rawArgs
      const request = curlRequest(args, source)
      await options.beforeCurl?.(source)
      const res = await app.inject({
        method: request.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
        url: request.path,
        headers: request.headers,
        ...(request.body !== undefined ? { payload: request.body } : {}),
      })
      const answer = { source, method: request.method, url: request.path, statusCode: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body }
      if (res.statusCode >= 300) throw new GuideError(`${source}\nanswered ${res.statusCode}: ${res.body.slice(0, 1000)}`)
      answers.push(answer)
      await options.afterCurl?.(answer)
      return res.body
    },
    run:
      options.run ??
      (async (argv, { source }) => {
        throw new GuideError(`the test runs no "${argv[0]}": ${source}`)
      }),
  }
  const shell = new GuideShell(host)
  for (const section of guideChain(heading)) {
    for (const block of guideBlocks(section, 'sh')) await shell.runBlock(block)
  }
  return { answers, variables: Object.fromEntries(shell.variables) }
}

/** The README sections whose `sh` blocks call the API: each must be a guide of GUIDES. */
export function sectionsWithCurl(): string[] {
  const readme = readFileSync('README.md', 'utf8')
  return [...readme.matchAll(/^## (.+)$/gm)]
    .map((match) => match[1]!)
    .filter((heading) => guideBlocks(heading, 'sh').some((block) => /(^|[\s|(])curl\s/m.test(block)))
}
