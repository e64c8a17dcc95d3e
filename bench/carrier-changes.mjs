// The change side of `bench/carrier.mjs` (issue 13): after the full file, 5% of the families are
// changed by life events through the API, the change file that carries them all is built and
// checked against what is true, and GET /members/{id}/coverages is measured against the floor.
//
//   - planChanges: which families change and how (deterministic pseudo-random), and the members
//     the read rotates through.
//   - applyChanges: the dependents and life events, posted with the partner key at modest
//     concurrency (not measured).
//   - measureChangeFile: makes the pending carrier.deliver_transactions job due, waits for the
//     change delivery to be sent, and reports the carrier.build_file attempt (job_attempts), the
//     file's checks (the service's own parser and rule table, node-x12's strict parser, INS loops)
//     and where the time went.
//   - rosterMatchesTruth: applies the full file then the change file to the service's
//     Edi834Roster (what a carrier holds after reading them) and compares it, member by member and
//     date by date, with the stored coverage spans (what GET /members/{id}/coverages reads).
//   - measureCoverageRead: GET /members/{id}/coverages?as_of=... and the floor, interleaved (ABBA)
//     with autocannon, as bench/run.mjs measures its reads.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'
import { cpuDelta, cpuSnapshot, isRunning } from './lib.mjs'

export const CHANGE_SHARE = 0.05 // of the families, changed by life events
export const SEED_CONCURRENCY = 8 // requests in flight while the changes are posted
export const READ_AS_OF = '2027-06-01'
export const READ_IDS = 500 // members the read rotates through: half of changed families, half not
const RSS_SAMPLE_MS = 50
const POLL_MS = 50

const round = (x, digits = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null)
const pad = (n, width) => String(n).padStart(width, '0')

export function vmRssMb(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024
  } catch {
    return NaN // the process has gone
  }
}

/** VmRSS of `pid` every RSS_SAMPLE_MS from now until stop(); the bench's event loop is free meanwhile. */
export function rssSampler(pid) {
  const before = vmRssMb(pid)
  let peak = before
  const sample = () => {
    const rss = vmRssMb(pid)
    if (rss > peak) peak = rss
  }
  const timer = setInterval(sample, RSS_SAMPLE_MS)
  return {
    stop() {
      clearInterval(timer)
      sample()
      return { rssBeforeMb: round(before, 1), rssPeakMb: round(peak, 1), rssGrowthMb: round(peak - before, 1), rssAfterMb: round(vmRssMb(pid), 1) }
    },
  }
}

// ---------------------------------------------------------------------------------------------
// The plan: which families change, and how.

/** mulberry32: a small deterministic generator, so every run changes the same families the same way. */
function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const YEAR = 2027
const monthStart = (m) => `${YEAR}-${pad(m, 2)}-01`
const monthEnd = (m) => new Date(Date.UTC(YEAR, m, 0)).toISOString().slice(0, 10) // last day of month m (1-12)
const inMonth = (m, day) => `${YEAR}-${pad(m, 2)}-${pad(day, 2)}`
function addDays(iso, days) {
  const date = new Date(`${iso}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}

/** A valid SSN no seeded member has: areas 600-659 (the seeding uses areas 1 to 13). */
const newSsn = (k) => `${600 + (k % 60)}${pad(1 + (Math.floor(k / 60) % 99), 2)}${pad(1 + (k % 9999), 4)}`

/**
 * What each kind of change posts, for a family `f` ({ i, sub, deps, planKeys }) with the month `m`
 * (2-12) its change takes effect. `newId` is the id of the dependent created first, if any.
 * Every election lists only the members it changes: the others keep what they have.
 */
const KINDS = {
  // The spouse's coverage ends on the last day of the month before m, on every line the family has.
  divorce: {
    applies: (f) => f.deps.some((d) => d.subscriber_relationship === 'spouse'),
    events: (f, m, planIds) => {
      const spouse = f.deps.find((d) => d.subscriber_relationship === 'spouse')
      return [
        {
          event: 'divorce',
          date: inMonth(m - 1, 15),
          eligibility_start_date: monthStart(m),
          plan_elections: Object.fromEntries(
            f.planKeys.map((key) => [key, { type: 'election', plan_id: planIds[key], coverages: [{ member_id: spouse.id, start_date: '2027-01-01', end_date: monthEnd(m - 1), status: 'employer_sponsored' }] }]),
          ),
        },
      ]
    },
  },
  // A new spouse, created first, covered from the first of month m on every line the family has.
  marriage: {
    applies: (f) => !f.deps.some((d) => d.subscriber_relationship === 'spouse'),
    dependent: (f, k) => ({
      external_identifier: `emp-${pad(f.i, 6)}-spouse-new`,
      first_name: 'Morgan',
      last_name: `Bench${f.i}`,
      birth_date: `${1975 + (f.i % 25)}-${pad(1 + (f.i % 12), 2)}-${pad(1 + (f.i % 28), 2)}`,
      gender: f.i % 2 === 0 ? 'male' : 'female',
      subscriber_relationship: 'spouse',
      social_security_number: newSsn(k),
    }),
    events: (f, m, planIds, newId) => [
      {
        event: 'marriage',
        date: inMonth(m - 1, 20),
        eligibility_start_date: monthStart(m),
        plan_elections: Object.fromEntries(f.planKeys.map((key) => [key, { type: 'election', plan_id: planIds[key], coverages: [{ member_id: newId, start_date: monthStart(m), status: 'employer_sponsored' }] }])),
      },
    ],
  },
  // A child born in the last 30 days (on or before today), reported within 30 days of the birth,
  // covered from the plan year's start (2027-01-01) on every line the family has.
  birth: {
    applies: () => true,
    dependent: (f, k, ctx) => ({
      external_identifier: `emp-${pad(f.i, 6)}-child-new`,
      first_name: 'Rowan',
      last_name: `Bench${f.i}`,
      birth_date: addDays(ctx.today, -ctx.daysAgo),
      gender: k % 2 === 0 ? 'female' : 'male',
      subscriber_relationship: 'child',
    }),
    events: (f, m, planIds, newId, ctx) => [
      {
        event: 'birth',
        date: addDays(ctx.today, -ctx.reportedDaysAgo),
        eligibility_start_date: '2027-01-01',
        plan_elections: Object.fromEntries(f.planKeys.map((key) => [key, { type: 'election', plan_id: planIds[key], coverages: [{ member_id: newId, start_date: '2027-01-01', status: 'employer_sponsored' }] }])),
      },
    ],
  },
  // Everyone moves to the second medical plan from the first of month m (the old plan ends the day before).
  plan_change: {
    applies: () => true,
    events: (f, m, planIds) => [
      {
        event: 'loss_of_coverage',
        date: inMonth(m - 1, 10),
        eligibility_start_date: monthStart(m),
        plan_elections: { medical: { type: 'election', plan_id: planIds.medical_silver, coverages: [f.sub, ...f.deps].map((member) => ({ member_id: member.id, start_date: monthStart(m), status: 'employer_sponsored' })) } },
      },
    ],
  },
  // Every member's coverage on every line ends on the last day of the month before m.
  termination: {
    applies: () => true,
    events: (f, m, planIds) => [terminationEvent(f, m, planIds)],
  },
  // The same termination, then COBRA continuation of medical for the subscriber (and spouse) from the first of month m.
  termination_then_cobra: {
    applies: () => true,
    events: (f, m, planIds) => [
      terminationEvent(f, m, planIds),
      {
        event: 'cobra',
        date: inMonth(m - 1, 20),
        eligibility_start_date: monthStart(m),
        plan_elections: {
          medical: {
            type: 'election',
            plan_id: planIds.medical,
            coverages: [f.sub, ...f.deps.filter((d) => d.subscriber_relationship === 'spouse')].map((member) => ({ member_id: member.id, start_date: monthStart(m), status: 'cobra' })),
          },
        },
      },
    ],
  },
}

function terminationEvent(f, m, planIds) {
  return {
    event: 'termination_of_employment',
    date: inMonth(m - 1, 16),
    eligibility_start_date: monthStart(m),
    plan_elections: Object.fromEntries(
      f.planKeys.map((key) => [
        key,
        { type: 'election', plan_id: planIds[key], coverages: [f.sub, ...f.deps].map((member) => ({ member_id: member.id, start_date: '2027-01-01', end_date: monthEnd(m - 1), status: 'employer_sponsored' })) },
      ]),
    ),
  }
}

/**
 * 5% of the families, drawn without replacement; for each, one kind of change among those that
 * apply to its shape and a month (February to December) it takes effect. Also the members the
 * read rotates through: half from changed families (filled in with the new dependents once they
 * exist), half from families left alone.
 */
export function planChanges(families, { seed = 13, today }) {
  const random = prng(seed)
  const count = Math.round(families.length * CHANGE_SHARE)
  const order = families.map((_, index) => index)
  for (let k = 0; k < count; k++) {
    const j = k + Math.floor(random() * (order.length - k))
    ;[order[k], order[j]] = [order[j], order[k]]
  }
  const chosen = order.slice(0, count).sort((a, b) => a - b)
  const changed = new Set(chosen)
  const changes = chosen.map((index, k) => {
    const f = families[index]
    const family = {
      i: f.i,
      sub: { id: f.sub.id },
      deps: f.deps.map((d) => ({ id: d.id, subscriber_relationship: d.subscriber_relationship })),
      planKeys: f.planKeys,
    }
    const kinds = Object.keys(KINDS).filter((name) => KINDS[name].applies(family))
    const kind = kinds[Math.floor(random() * kinds.length)]
    const month = 2 + Math.floor(random() * 11)
    const daysAgo = Math.floor(random() * 30) // birth: born 0-29 days ago, reported 0-daysAgo days ago
    const ctx = { today, daysAgo, reportedDaysAgo: Math.floor(random() * (daysAgo + 1)) }
    return { family, kind, month, k, ctx }
  })
  const unchangedReadIds = []
  const stride = Math.max(1, Math.floor(families.length / READ_IDS))
  for (let index = 0; index < families.length && unchangedReadIds.length < READ_IDS / 2; index += stride) {
    if (changed.has(index)) continue
    const f = families[index]
    for (const member of [f.sub, ...f.deps]) if (unchangedReadIds.length < READ_IDS / 2) unchangedReadIds.push(member.id)
  }
  const byKind = {}
  for (const change of changes) byKind[change.kind] = (byKind[change.kind] ?? 0) + 1
  return { changes, byKind, unchangedReadIds }
}

// ---------------------------------------------------------------------------------------------
// Posting the changes (not measured).

async function post(url, key, body, label) {
  const response = await fetch(url, { method: 'POST', headers: { 'service-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`${label} answered ${response.status}: ${text.slice(0, 800)}`)
  return JSON.parse(text)
}

/** Each family's dependent (if its change needs one) then its events, SEED_CONCURRENCY families at a time. */
export async function applyChanges(baseUrl, partnerKey, coveragePeriodId, planIds, plan) {
  let next = 0
  let events = 0
  let dependents = 0
  const newMemberIds = []
  const worker = async () => {
    while (next < plan.changes.length) {
      const change = plan.changes[next++]
      const kind = KINDS[change.kind]
      let newId = null
      if (kind.dependent) {
        const answer = await post(`${baseUrl}/subscribers/${change.family.sub.id}/dependents`, partnerKey, { dependent: kind.dependent(change.family, change.k, change.ctx) }, `POST /subscribers/{id}/dependents (${change.kind})`)
        newId = answer.dependent.id
        change.newMemberId = newId
        newMemberIds.push(newId)
        dependents++
      }
      for (const event of kind.events(change.family, change.month, planIds, newId, change.ctx)) {
        await post(
          `${baseUrl}/subscribers/${change.family.sub.id}/qualifying_life_events`,
          partnerKey,
          { qualifying_life_event: { coverage_period_id: coveragePeriodId, ...event } },
          `POST /subscribers/{id}/qualifying_life_events (${change.kind})`,
        )
        events++
      }
    }
  }
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker))
  return { events, dependents, newMemberIds }
}

/** The members of changed families the read rotates through (every few, new dependents included). */
export function changedReadIds(plan) {
  const all = plan.changes.flatMap((c) => [c.family.sub.id, ...c.family.deps.map((d) => d.id), ...(c.newMemberId ? [c.newMemberId] : [])])
  const stride = Math.max(1, Math.floor(all.length / (READ_IDS / 2)))
  const picked = []
  for (let index = 0; index < all.length && picked.length < READ_IDS / 2; index += stride) picked.push(all[index])
  return picked
}

// ---------------------------------------------------------------------------------------------
// The change file.

/**
 * Makes the pending carrier.deliver_transactions job of the coverage period due now, then waits
 * for the change delivery it opens to be sent. Timed from the UPDATE to `sent`, with the server's
 * RSS sampled; the build itself is the carrier.build_file attempt's duration in job_attempts.
 */
export async function measureChangeFile({ databaseUrl, service, coveragePeriodId, outboundDir, carrier, timeoutSeconds, distImport }) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const pendingTransactions = (
      await client.query(`select count(*)::int as n, count(distinct subscriber_id)::int as families from member_transactions where coverage_period_id = $1 and status = 'pending' and file_delivery_id is null`, [coveragePeriodId])
    ).rows[0]
    const rss = rssSampler(service.child.pid)
    const cpuBefore = cpuSnapshot(service.child.pid)
    const started = performance.now()
    let delivery
    let memory
    let dueJobs
    let deliveries = 0
    try {
      dueJobs = (
        await client.query(
          `update jobs set run_at = now() where name = 'carrier.deliver_transactions' and status = 'pending' and payload->>'coverage_period_id' = $1 returning id`,
          [coveragePeriodId],
        )
      ).rowCount
      // Changes posted at the same time may each schedule a gathering (the check for a waiting one
      // and the insert are not atomic): all are made due; the first gathers everything pending,
      // the others find nothing left (reported as pendingGatherJobs).
      if (dueJobs < 1) throw new Error('no pending carrier.deliver_transactions job for the coverage period')
      const deadline = started + timeoutSeconds * 1000
      for (;;) {
        const { rows } = await client.query(
          `select id, status, file_name, byte_size::int8::text as byte_size, sha256, member_count, transaction_count, last_error from file_deliveries where coverage_period_id = $1 and kind = 'change' order by created_at`,
          [coveragePeriodId],
        )
        delivery = rows[0]
        deliveries = rows.length
        const gathering = await client.query(
          `select 1 from jobs where name = 'carrier.deliver_transactions' and status in ('pending', 'running') and payload->>'coverage_period_id' = $1 limit 1`,
          [coveragePeriodId],
        )
        if (rows.length > 0 && rows.every((row) => row.status !== 'pending') && gathering.rowCount === 0) break
        if (performance.now() > deadline) throw new Error(`The change file was not sent within ${timeoutSeconds} s (delivery: ${JSON.stringify(delivery ?? null)})`)
        if (!isRunning(service.child)) throw new Error(`The service died while building the change file; see ${service.logFile}`)
        await delay(POLL_MS)
      }
    } finally {
      memory = rss.stop()
    }
    const seconds = (performance.now() - started) / 1000
    const cpu = cpuDelta(cpuBefore, cpuSnapshot(service.child.pid))
    if (delivery.status !== 'sent') throw new Error(`The change delivery ended ${delivery.status}: ${delivery.last_error}`)

    // Where the time went, as the worker recorded it: the gathering job, then build and send.
    const attempts = await client.query(
      `select j.name, a.attempt, a.outcome, extract(epoch from a.finished_at - a.started_at)::float8 as seconds,
              extract(epoch from a.started_at - j.created_at)::float8 as waited_seconds
         from job_attempts a join jobs j on j.id = a.job_id
        where j.payload->>'file_delivery_id' = $1
           or (j.name = 'carrier.deliver_transactions' and j.payload->>'coverage_period_id' = $2 and a.started_at >= now() - make_interval(secs => $3))
        order by a.started_at`,
      [delivery.id, coveragePeriodId, seconds + 5],
    )
    const jobs = attempts.rows.map((r) => ({ job: r.name, attempt: r.attempt, outcome: r.outcome, seconds: round(r.seconds, 3) }))
    const build = attempts.rows.filter((r) => r.name === 'carrier.build_file')
    const buildSeconds = build.length === 1 && build[0].outcome === 'succeeded' ? build[0].seconds : null
    const transmissions = (await client.query(`select count(*)::int as n from coverage_transmissions where file_delivery_id = $1`, [delivery.id])).rows[0].n

    // The file: there, as stored, and a valid 834 by three readers.
    const path = join(outboundDir, carrier, delivery.file_name)
    const content = readFileSync(path)
    const text = content.toString('utf8')
    let insSegments = 0
    for (let at = content.indexOf('\nINS*'); at !== -1; at = content.indexOf('\nINS*', at + 5)) insSegments++
    const [{ parse834 }, { check834 }] = await Promise.all([distImport('modules/edi-834/edi-834.parse.js'), distImport('modules/edi-834/edi-834.rules.js')])
    const problems = check834(text)
    let parsed = null
    let parseError = null
    try {
      parsed = parse834(text)
    } catch (error) {
      parseError = error.message
    }
    let nodeX12Error = null
    try {
      const { X12Parser } = await import('node-x12')
      const result = new X12Parser(true).parse(text)
      if (Array.isArray(result)) nodeX12Error = 'more than one interchange'
    } catch (error) {
      nodeX12Error = error.message
    }
    const maintenance = {}
    const reasons = {}
    for (const m of parsed?.members ?? []) {
      maintenance[m.maintenance] = (maintenance[m.maintenance] ?? 0) + 1
      reasons[m.reason] = (reasons[m.reason] ?? 0) + 1
    }
    return {
      deliveryId: delivery.id,
      fileName: delivery.file_name,
      path,
      pendingTransactions: pendingTransactions.n,
      pendingFamilies: pendingTransactions.families,
      pendingGatherJobs: dueJobs,
      changeDeliveries: deliveries, // all the changes in one: 1
      transactionCount: delivery.transaction_count,
      seconds,
      buildSeconds,
      jobs,
      ...memory,
      fileKb: round(content.length / 1024, 1),
      memberCount: delivery.member_count,
      insSegments,
      parsedMembers: parsed?.members.length ?? null,
      loopsByMaintenance: maintenance,
      loopsByReason: reasons,
      action: parsed?.header.action ?? null,
      coverageTransmissions: transmissions,
      check834Problems: problems.length,
      check834First: problems.slice(0, 5).map((p) => `${p.segment}@${p.position}: ${p.message}`),
      parseError,
      nodeX12Error,
      valid: problems.length === 0 && parseError === null && nodeX12Error === null,
      memberIdsInFile: parsed ? parsed.members.map((m) => m.memberId) : [],
      serverCpuSeconds: round(cpu.server),
      postgresCpuSeconds: round(cpu.postgres),
      restOfMachineCores: round(cpu.rest / cpu.wall),
    }
  } finally {
    await client.end()
  }
}

/**
 * What the carrier holds after the full file and the change file (the service's Edi834Roster)
 * against the stored spans, for every member of every changed family and of `alsoSubscribers`
 * (families left alone), on every date where anything of theirs starts or ends (and the plan
 * year's first and last day). Compared per member and date: plan code, benefit status and, for
 * subscribers, coverage level (as test/helpers/life-event-scenarios.ts compares them).
 */
export async function rosterMatchesTruth({ databaseUrl, coveragePeriodId, files, changedSubscriberIds, alsoSubscriberIds, period, distImport }) {
  const { Edi834Roster } = await distImport('modules/edi-834/edi-834.roster.js')
  const started = performance.now()
  const roster = new Edi834Roster()
  for (const file of files) roster.apply(readFileSync(file, 'utf8'))
  const rosterMembers = roster.members().length
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  let spans
  let memberIds
  let subscriberSet
  try {
    ;({ rows: spans } = await client.query(
      `select s.subscriber_id, s.member_id, p.external_identifier as plan_code, s.status, s.coverage_level,
              to_char(s.start_date, 'YYYY-MM-DD') as start_date, to_char(s.end_date, 'YYYY-MM-DD') as end_date
         from coverage_spans s join plans p on p.id = s.plan_id
        where s.coverage_period_id = $1 and s.voided_at is null and s.subscriber_id = any($2::uuid[])`,
      [coveragePeriodId, [...changedSubscriberIds, ...alsoSubscriberIds]],
    ))
    const members = await client.query(`select id, subscriber_id from members where id = any($1::uuid[]) or subscriber_id = any($1::uuid[])`, [[...changedSubscriberIds, ...alsoSubscriberIds]])
    memberIds = members.rows.map((r) => r.id)
    subscriberSet = new Set(members.rows.filter((r) => r.subscriber_id === null).map((r) => r.id))
  } finally {
    await client.end()
  }
  const dates = new Set([period.start, period.end])
  for (const s of spans) {
    dates.add(s.start_date)
    if (s.end_date) dates.add(addDays(s.end_date, 1))
  }
  const inPeriod = [...dates].filter((d) => d >= period.start && d <= period.end).sort()
  const spansOf = new Map()
  for (const s of spans) spansOf.set(s.member_id, [...(spansOf.get(s.member_id) ?? []), s])
  let compared = 0
  const mismatches = []
  for (const date of inPeriod) {
    const held = new Map(roster.onDate(date).map((m) => [m.memberId, m.coverages]))
    for (const memberId of memberIds) {
      const withLevel = subscriberSet.has(memberId)
      const truth = (spansOf.get(memberId) ?? [])
        .filter((s) => s.start_date <= date && (s.end_date === null || s.end_date >= date))
        .map((s) => `${s.plan_code} ${s.status === 'cobra' ? 'C' : 'A'}${withLevel ? ` ${s.coverage_level}` : ''}`)
        .sort()
      const carrier = (held.get(memberId) ?? []).map((c) => `${c.planCode} ${c.benefitStatus === 'cobra' ? 'C' : 'A'}${withLevel ? ` ${c.coverageLevel}` : ''}`).sort()
      compared++
      if (truth.join('|') !== carrier.join('|') && mismatches.length < 2000) mismatches.push({ date, memberId, truth, carrier })
    }
  }
  return {
    rosterMembers,
    membersCompared: memberIds.length,
    datesCompared: inPeriod.length,
    comparisons: compared,
    mismatchCount: mismatches.length,
    mismatches: mismatches.slice(0, 5),
    seconds: round((performance.now() - started) / 1000, 1),
  }
}

// ---------------------------------------------------------------------------------------------
// The read against the floor, interleaved as bench/run.mjs does it.

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const WINDOW_SECONDS = Math.max(1, Math.round(DURATION_SECONDS / ROUNDS))

export const readConfiguration = { connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, windowSeconds: WINDOW_SECONDS }

/** autocannon `requests` rotating through `paths`, one counter shared by all connections. */
function rotating(paths) {
  let next = 0
  return [{ method: 'GET', setupRequest: (request) => ((request.path = paths[next++ % paths.length]), request) }]
}

function scenario(name, { url, headers = {}, pid, paths }) {
  return { name, url, headers, pid, paths, windows: [], cpu: { server: 0, postgres: 0, loadgen: 0, rest: 0, wall: 0 } }
}

const fire = (s, duration, skipAggregateResult) =>
  autocannon({ url: s.url, headers: s.headers, requests: s.paths ? rotating(s.paths) : undefined, connections: CONNECTIONS, duration, skipAggregateResult })

async function measureWindow(s) {
  const before = cpuSnapshot(s.pid)
  const raw = await fire(s, WINDOW_SECONDS, true)
  const cpu = cpuDelta(before, cpuSnapshot(s.pid))
  for (const key of Object.keys(s.cpu)) s.cpu[key] += cpu[key]
  s.windows.push(raw)
  console.log(`  ${s.name.padEnd(48)} ${String(Math.round(raw.totalCompletedRequests / Math.max(1, raw.samples))).padStart(6)} req/s  non-2xx ${raw.non2xx}  errors ${raw.errors}  (rest of machine ${(cpu.rest / cpu.wall).toFixed(2)} cores)`)
}

function summarise(s) {
  const merged = autocannon.aggregateResult(s.windows, { url: s.url, connections: CONNECTIONS })
  const total = s.windows.reduce((n, w) => n + w.totalCompletedRequests, 0)
  const seconds = s.windows.reduce((n, w) => n + w.samples, 0)
  const perRequestUs = (cpuSeconds) => (total > 0 ? round((cpuSeconds * 1e6) / total, 0) : null)
  return {
    name: s.name,
    rps: round(total / seconds, 0),
    p50Ms: merged.latency.p50,
    p99Ms: merged.latency.p99,
    meanMs: round(merged.latency.average),
    total,
    non2xx: merged.non2xx,
    errors: merged.errors,
    cpuUsPerRequest: { server: perRequestUs(s.cpu.server), postgres: perRequestUs(s.cpu.postgres), loadgen: perRequestUs(s.cpu.loadgen) },
    serverCores: round(s.cpu.server / s.cpu.wall),
    restOfMachineCores: round(s.cpu.rest / s.cpu.wall),
  }
}

/** Warm-up, then ROUNDS windows per scenario, the order reversed every other round (ABBA). */
export async function measureCoverageRead({ service, floor, partnerKey, readIds, floorPath }) {
  const read = scenario(`GET /members/{id}/coverages?as_of=${READ_AS_OF}, ${readIds.length} ids`, {
    url: service.url,
    headers: { 'service-api-key': partnerKey },
    pid: service.child.pid,
    paths: readIds.map((id) => `/members/${id}/coverages?as_of=${READ_AS_OF}`),
  })
  const base = scenario('floor: bare Fastify + pg, users by id', { url: `${floor.url}${floorPath}`, pid: floor.child.pid })
  const order = [base, read]
  console.log('Coverage read: warm-up')
  for (const s of order) {
    console.log(`  warm-up ${WARMUP_SECONDS} s: ${s.name}`)
    await fire(s, WARMUP_SECONDS, false)
  }
  for (let r = 0; r < ROUNDS; r++) {
    console.log(`Coverage read: round ${r + 1} of ${ROUNDS}`)
    for (const s of r % 2 === 0 ? order : [...order].reverse()) await measureWindow(s)
  }
  return { read: summarise(read), floor: summarise(base) }
}
