import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { captureInstallIds, expand, guideBlocks, guideCommands, sendGuideCommand } from './helpers/readme-guide.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'
import { startWorkers, testWebhookSettings, waitFor } from './helpers/webhooks.js'

/**
 * The README guide "Work the error queue", run as written after "Install a group": its curl
 * commands in order, and its receiver (the JavaScript block, saved to a file and run with node as
 * the reader would) receiving the signed events of the commands through a real worker.
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
const settings = testWebhookSettings()
beforeAll(async () => {
  t = await startTestApp({ webhooks: settings })
})
afterAll(async () => {
  receiver?.kill('SIGKILL')
  await workers?.stop()
  await t?.close()
})

describe('the README guide "Work the error queue"', () => {
  it('when its commands follow "Install a group", then the error is commented, returned and resolved, and the receiver verifies each event', async () => {
    const partner = await t.newPartner()
    const variables: Record<string, string> = { KEY: partner.apiKey }
    for (const command of guideCommands('Install a group')) {
      const res = await sendGuideCommand(t.app, command, variables)
      expect(res.statusCode, `${command.source}\n${res.body}`).toBeLessThan(300)
      captureInstallIds(expand(command.path, variables), res.json(), variables)
    }
    // "First requests" registers the user the guide comments as.
    const user = await call(t.app, partner, 'POST', '/users', { user: { email: 'jane.doe@example.com', role_names: ['benefits_admin'] } })
    expect(user.statusCode).toBe(201)
    workers = startWorkers(t.db, settings)

    const port = await freePort()
    const output: string[] = []
    const commands = guideCommands('Work the error queue')
    expect(commands.map((c) => `${c.method} ${c.path.split('?')[0]}`)).toEqual([
      'POST /watchers',
      'GET /coverage_periods/\u0000COVERAGE_PERIOD_ID\u0000/errors',
      'GET /errors/\u0000ERROR_ID\u0000',
      'POST /errors/\u0000ERROR_ID\u0000/comments',
      'POST /errors/\u0000ERROR_ID\u0000/return',
      'POST /errors/\u0000ERROR_ID\u0000/resolution',
      'GET /watchers/\u0000WATCHER_ID\u0000/deliveries',
    ])
    for (const command of commands) {
      const sent = { ...command, body: command.body?.replace('127.0.0.1:4000', `127.0.0.1:${port}`) }
      if (command.path.includes('/deliveries')) {
        // By then the receiver has had the three events of the commands above.
        await waitFor(() => (['error.commented', 'error.returned', 'error.resolved'].every((type) => output.some((line) => line.startsWith(type))) ? true : undefined), 15_000, 'the three events at the receiver')
      }
      const res = await sendGuideCommand(t.app, sent, variables)
      expect(res.statusCode, `${command.source}\n${res.body}`).toBeLessThan(300)
      const answer = res.json()
      if (answer.watcher) {
        variables.WATCHER_ID = answer.watcher.id
        // The reader saves the receiver and runs it with the secret the watcher answered.
        mkdirSync(RECEIVER_DIR, { recursive: true })
        const file = join(RECEIVER_DIR, 'guide-receiver.mjs')
        writeFileSync(file, guideBlocks('Work the error queue', 'js')[0]!)
        receiver = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: answer.watcher.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] })
        receiver.stdout!.setEncoding('utf8').on('data', (chunk: string) => output.push(...chunk.split('\n').filter(Boolean)))
        await waitFor(() => (output.some((line) => line.startsWith('receiving on')) ? true : undefined), 10_000, 'the receiver to listen')
      }
      if (answer.errors) {
        // The guide's subscriber has no primary care provider: the one error waiting for the partner.
        expect(answer.errors).toHaveLength(1)
        expect(answer.errors[0]).toMatchObject({ status: 'unresolved', assignee: 'partner', discrepancy: { parameter: 'primary_care_provider' } })
        variables.ERROR_ID = answer.errors[0].id
      }
      if (answer.deliveries) {
        expect(answer.deliveries.map((d: { event_type: string; status: string }) => `${d.event_type} ${d.status}`).sort()).toEqual(
          ['error.commented succeeded', 'error.commented succeeded', 'error.resolved succeeded', 'error.returned succeeded'],
        )
      }
    }

    const error = (await call(t.app, partner, 'GET', `/errors/${variables.ERROR_ID}`)).json().error
    expect(error).toMatchObject({ status: 'resolved', assignee: 'service', resolution: { message: 'PCP selected: Dr. Lee, NPI 1234567893.', resolved_by: 'jane.doe@example.com' } })
    expect(error.comments.map((c: { message: string; sent_by: string }) => `${c.sent_by}: ${c.message}`)).toEqual([
      'partner: The employee is choosing a doctor this week.',
      'partner: Does the carrier need a PCP for a spouse-only HMO?',
    ])
    // Every delivery passed the receiver's signature check: it printed each event once.
    expect(output.filter((line) => line.startsWith('error.')).map((line) => line.split(' ')[0]).sort()).toEqual(['error.commented', 'error.commented', 'error.resolved', 'error.returned'])
    expect(output.join('\n')).not.toContain('invalid signature')
  })
})
