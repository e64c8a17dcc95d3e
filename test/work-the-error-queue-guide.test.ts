import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import type { Workers } from '../src/main/workers.js'
import { GuideError } from './helpers/guide-shell.js'
import { credentialsFile, guideBlocks, runGuide } from './helpers/readme-guide.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'
import { startWorkers, waitFor } from './helpers/webhooks.js'

/**
 * The README guide "Work the error queue", run as written in the shell of "First requests" and
 * "Install a group": its commands in order, and its receiver (the JavaScript block, saved to a
 * file and started by the guide's `node receiver.mjs &`) receiving the signed events through a
 * real worker. The webhook settings are the ones a plain `npm start` has: no restart, no
 * WEBHOOK_ALLOW_PRIVATE_URLS.
 */

const RECEIVER_DIR = 'test-results'

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

let t: TestApp
let workers: Workers | undefined
let receiver: ChildProcess | undefined
// What `npm start` on the embedded database uses, with a retry schedule a test can wait for.
const settings = { ...loadConfig({}).webhooks, timeoutMs: 2000, retryScheduleSeconds: [0, 0, 0] }
beforeAll(async () => {
  t = await startTestApp({ webhooks: settings })
})
afterAll(async () => {
  receiver?.kill('SIGKILL')
  await workers?.stop()
  await t?.close()
})

describe('the README guide "Work the error queue"', () => {
  it('when its commands follow "Install a group" on a plain npm start, then the error is commented, returned and resolved, and the receiver verifies each event', async () => {
    expect(settings).toMatchObject({ allowPrivateUrls: false, allowLoopbackUrls: true })
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    workers = startWorkers(t.db, settings)
    const port = await freePort()
    const output: string[] = []
    const seen = (type: string) => output.some((line) => line.startsWith(type))

    const { answers, variables } = await runGuide(t.app, 'Work the error queue', {
      files: credentialsFile({ partner: partner.apiKey, operator: operator.apiKey }),
      // The guide's receiver listens on 4000; the test's on a free port.
      rewrite: (argument) => argument.replace('127.0.0.1:4000', `127.0.0.1:${port}`),
      async beforeCurl(source) {
        // Reading the deliveries: by then the receiver has had the events of the commands above.
        if (source.includes('/deliveries')) {
          await waitFor(() => (['error.commented', 'error.returned', 'error.resolved'].every(seen) ? true : undefined), 20_000, 'the three events at the receiver')
          // The receiver prints before its answer reaches the worker: wait for the worker to record it.
          await waitFor(
            async () => {
              const statuses = await t.db
                .selectFrom('watcher_deliveries as d')
                .innerJoin('watchers as w', 'w.id', 'd.watcher_id')
                .select('d.status')
                .where('w.account_id', '=', partner.accountId)
                .execute()
              return statuses.length >= 4 && statuses.every((d) => d.status === 'succeeded') ? true : undefined
            },
            15_000,
            'the deliveries to be recorded as succeeded',
          )
        }
      },
      async run(argv, { env, background, source }) {
        if (argv.join(' ') === 'node receiver.mjs' && background) {
          // The reader saved the JavaScript block as receiver.mjs.
          mkdirSync(RECEIVER_DIR, { recursive: true })
          const file = join(RECEIVER_DIR, 'guide-receiver.mjs')
          writeFileSync(file, guideBlocks('Work the error queue', 'js')[0]!)
          expect(env.WEBHOOK_SECRET).toMatch(/^whsec_/)
          receiver = spawn(process.execPath, [file], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
          receiver.stdout!.setEncoding('utf8').on('data', (chunk: string) => output.push(...chunk.split('\n').filter(Boolean)))
          await waitFor(() => (seen('receiving on') ? true : undefined), 20_000, 'the receiver to listen')
          return ''
        }
        // The guide gives the worker a few seconds; the test waits for the events themselves (beforeCurl).
        if (argv[0] === 'sleep') return ''
        throw new GuideError(`the test runs no "${argv.join(' ')}": ${source}`)
      },
    })

    // The guide's subscriber has no primary care provider: the one error waiting for the partner.
    const queue = answers.find((a) => a.url.includes('/errors?status=unresolved'))!
    expect(JSON.parse(queue.body).errors).toMatchObject([{ id: variables.ERROR_ID, status: 'unresolved', assignee: 'partner', discrepancy: { parameter: 'primary_care_provider' } }])
    const deliveries = JSON.parse(answers.find((a) => a.url.endsWith('/deliveries'))!.body).watcher_deliveries
    expect(deliveries.map((d: { event_type: string; status: string }) => `${d.event_type} ${d.status}`).sort()).toEqual(
      ['error.commented succeeded', 'error.commented succeeded', 'error.resolved succeeded', 'error.returned succeeded'],
    )

    const error = (await call(t.app, partner, 'GET', `/errors/${variables.ERROR_ID}`)).json().error
    expect(error).toMatchObject({ status: 'resolved', assignee: 'service', resolution: { message: 'PCP selected: Dr. Lee, NPI 1234567893.', resolved_by: 'jane.doe@example.com' } })
    expect(error.comments.map((c: { message: string; sent_by: string }) => `${c.sent_by}: ${c.message}`)).toEqual([
      'partner: The employee is choosing a doctor this week.',
      'partner: Does the carrier need a PCP for a spouse-only HMO?',
    ])
    // Every delivery passed the receiver's signature check: it printed each event once.
    expect(output.filter((line) => line.startsWith('error.')).map((line) => line.split(' ')[0]).sort()).toEqual(['error.commented', 'error.commented', 'error.resolved', 'error.returned'])
    expect(output.join('\n')).not.toContain('invalid signature')
    // A receiver process to start and three deliveries to reach it, each allowed 20 s on a loaded machine.
  }, 60_000)
})
