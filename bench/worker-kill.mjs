// `npm run bench:workers` (issue 15, point 4): a worker process is `kill -9`ed while webhook
// deliveries to a slow receiver are in flight, another worker is started, and the run measures
// how long the orphaned deliveries wait (from the kill to their receipt) and how many deliveries
// the receiver got more than once (by webhook-id). PostgreSQL, a database of its own, under 2 minutes.
import { once } from 'node:events'
import { createServer } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { createPartner, dropDatabase, errorCreatedEvents, importDist, openServiceDatabase, PG_SERVER, recreateDatabase, startWorkerProcess, stopChild, systemActor } from './lib.mjs'

const env = process.env
const DB_NAME = 'enrollsync_bench_worker_kill'
const DATABASE_URL = `${PG_SERVER}/${DB_NAME}`
const DELIVERIES = Number(env.BENCH_DELIVERIES ?? 40)
// The receiver holds every request this long: a slow receiver keeps deliveries in flight.
const RECEIVER_DELAY_MS = Number(env.BENCH_RECEIVER_DELAY_MS ?? 2000)
// The service's defaults unless overridden: what a deployment gets.
const HEARTBEAT_MS = env.WORKER_HEARTBEAT_MS ?? '5000'
const DEAD_AFTER_MS = env.WORKER_DEAD_AFTER_MS ?? '30000'
const RUN_LIMIT_MS = 100_000


/** A receiver that holds each request RECEIVER_DELAY_MS, then answers 200; it notes every arrival by webhook-id. */
async function startReceiver() {
  const arrivals = [] // { id, at, answered }
  const server = createServer((request, response) => {
    const arrival = { id: String(request.headers['webhook-id']), at: Date.now(), answered: false }
    arrivals.push(arrival)
    request.resume()
    const timer = setTimeout(() => {
      arrival.answered = true
      response.writeHead(200).end()
    }, RECEIVER_DELAY_MS)
    // The sender died: its socket closed with the request unanswered.
    response.once('close', () => clearTimeout(timer))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { arrivals, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => new Promise((resolve) => server.close(resolve)) }
}

async function prepare(receiverUrl) {
  await recreateDatabase(DB_NAME)
  const { createWatchersService } = await importDist('modules/watchers/watchers.service.js')
  const { DEFAULT_WEBHOOK_SETTINGS } = await importDist('modules/watchers/webhook-settings.js')
  const { emitEvents } = await importDist('modules/events/events.js')
  const { handle, services } = await openServiceDatabase(DATABASE_URL)
  const { accountId } = await createPartner(services, 'bench worker kill')
  const watchers = createWatchersService({ db: handle.db, settings: { ...DEFAULT_WEBHOOK_SETTINGS, allowPrivateUrls: true, allowLoopbackUrls: true } })
  await watchers.createWatcher(systemActor(accountId), { url: receiverUrl, event_types: ['error.created'] })
  const events = errorCreatedEvents(accountId, DELIVERIES)
  await handle.db.transaction().execute((tx) => emitEvents(tx, events))
  return handle
}

function startWorker(label) {
  return startWorkerProcess({
    label: `worker-kill-${label}`,
    databaseUrl: DATABASE_URL,
    extraEnv: { WORKER_HEARTBEAT_MS: HEARTBEAT_MS, WORKER_DEAD_AFTER_MS: DEAD_AFTER_MS, LOG_LEVEL: 'info' },
  })
}

async function waitUntil(check, what, timeoutMs = RUN_LIMIT_MS) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await delay(25)
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`

async function main() {
  const runStart = Date.now()
  const receiver = await startReceiver()
  const handle = await prepare(receiver.url)
  let second
  try {
    const first = await startWorker('first')
    // Mid-flight: some deliveries answered, others held open by the receiver.
    await waitUntil(() => receiver.arrivals.some((a) => a.answered) && receiver.arrivals.some((a) => !a.answered && Date.now() - a.at < RECEIVER_DELAY_MS / 2), 'deliveries in flight')
    first.child.kill('SIGKILL')
    const killedAt = Date.now()
    await once(first.child, 'exit').catch(() => {})
    const orphaned = (await handle.db.selectFrom('jobs').select('payload').where('name', '=', 'webhook.deliver').where('status', '=', 'running').execute()).map((row) => row.payload.delivery_id)
    const inFlightAtKill = new Set(receiver.arrivals.filter((a) => !a.answered).map((a) => a.id))

    second = await startWorker('second')
    const answered = () => new Set(receiver.arrivals.filter((a) => a.answered).map((a) => a.id))
    await waitUntil(() => answered().size >= DELIVERIES, `all ${DELIVERIES} deliveries to be answered`)

    const byId = new Map()
    for (const arrival of receiver.arrivals) byId.set(arrival.id, [...(byId.get(arrival.id) ?? []), arrival])
    const receivedTwice = [...byId.values()].filter((list) => list.length > 1).length
    const answeredTwice = [...byId.values()].filter((list) => list.filter((a) => a.answered).length > 1).length
    // Their copies from the second worker: a request the first one had in transit may land just after the kill.
    const delays = orphaned
      .map((id) => (byId.get(id) ?? []).find((a) => a.at >= second.spawnedAt))
      .filter(Boolean)
      .map((a) => a.at - killedAt)
      .sort((a, b) => a - b)
    const median = delays[Math.floor(delays.length / 2)]
    await stopChild(second.child)
    const rowsLeft = (await handle.db.selectFrom('worker_heartbeats').select('id').execute()).length

    console.log(`\nA worker killed mid-flight (PostgreSQL; WORKER_HEARTBEAT_MS=${HEARTBEAT_MS}, WORKER_DEAD_AFTER_MS=${DEAD_AFTER_MS}; receiver holds each request ${RECEIVER_DELAY_MS} ms)`)
    console.log(`  deliveries queued:                      ${DELIVERIES}`)
    console.log(`  jobs orphaned by the kill:              ${orphaned.length} (${inFlightAtKill.size} requests held open by the receiver)`)
    console.log(`  second worker started after the kill:   ${seconds(second.startedAt - killedAt)}`)
    console.log(`  delay from the kill to the orphaned deliveries' receipt: min ${seconds(delays[0] ?? NaN)}, median ${seconds(median ?? NaN)}, max ${seconds(delays.at(-1) ?? NaN)} (${delays.length} of ${orphaned.length} received again)`)
    console.log(`  deliveries received more than once:     ${receivedTwice} (answered 2xx more than once: ${answeredTwice})`)
    console.log(`  deliveries never answered:              ${DELIVERIES - answered().size}`)
    console.log(`  heartbeat rows left after a clean stop: ${rowsLeft} (the killed worker's was removed when it was presumed dead)`)
    console.log(`  run time:                               ${seconds(Date.now() - runStart)}`)
  } finally {
    if (second) await stopChild(second.child)
    await handle.close()
    await receiver.close()
    await dropDatabase(DB_NAME)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
