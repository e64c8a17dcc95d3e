// 834 generator micro-benchmark: our streaming writer against node-x12's object model, on
// synthetic data for 50,000 subscribers and 75,000 dependents (2-3 coverages each, addresses).
//
//   npm run -s build && node bench/edi-834-generator.mjs
//
// Each side runs in its own child process (this script forked with an argument) so their RSS
// figures cannot mix. Both sides use the same mapping (edi-834.build.js: member -> segments), so
// the difference is what each does with the segments: ours serialises and streams them to the
// file; node-x12 builds X12Interchange / X12FunctionalGroup / X12Transaction / X12Segment objects
// and serialises the whole interchange at the end. The parent checks that both files are
// byte-identical, deletes them and prints one JSON line.
//
// RSS is sampled every 10 ms with setInterval; the node-x12 side yields to the event loop every
// 500 members while building so the sampler runs (its final toString() is synchronous, so it is
// sampled right before and after). The kernel's high-water mark (resourceUsage().maxRSS) is
// reported too: it catches peaks between samples. BENCH_SERVICE_DIST selects another build.
import { fork } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const DIST = process.env.BENCH_SERVICE_DIST ? resolve(process.env.BENCH_SERVICE_DIST) : join(ROOT, 'dist')
const SUBSCRIBERS = 50_000 // even-numbered ones get a spouse and a child, odd ones a spouse: 75,000 dependents
const DEPENDENTS = 75_000
const RSS_SAMPLE_MS = 10
// node-x12 holds every segment as objects; give both children the same generous heap so the
// comparison measures memory use instead of failing at V8's default limit.
const CHILD_HEAP_MB = Number(process.env.BENCH_EDI_HEAP_MB ?? 12_288)

const ENVELOPE = {
  senderQualifier: 'ZZ', senderId: 'ENROLLSYNC', receiverQualifier: 'ZZ', receiverId: 'BENCHCARRIER',
  applicationSenderCode: 'ENROLLSYNC', applicationReceiverCode: 'BENCHCARRIER',
  interchangeControlNumber: 1001, usage: 'T', createdAt: new Date('2025-01-15T14:30:00Z'),
}
const HEADER = {
  reference: 'BENCH-834', action: 'replace', masterPolicyNumber: 'GRP-BENCH', effectiveDate: '2025-02-01',
  totals: { subscribers: SUBSCRIBERS, dependents: DEPENDENTS },
  sponsor: { name: 'Bench Widgets Inc', fein: '123456789', groupExternalIdentifier: 'bench' },
  payer: { name: 'Bench Carrier', carrierName: 'bench_carrier' },
  brokers: [{ name: 'Bench Brokerage', nationalProducerNumber: '1234567' }],
}
const PLANS = [
  { productLine: 'medical', productType: 'preferred_provider_organization', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD' },
  { productLine: 'dental', productType: null, planDescription: 'Dental Base', planExternalIdentifier: 'DEN-BASE' },
  { productLine: 'vision', productType: null, planDescription: 'Vision Plus', planExternalIdentifier: 'VIS-PLUS' },
]

/** Members generated lazily, subscriber first then dependents, so neither side is handed a prebuilt array. */
function* members() {
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const family = i % 2 === 0 ? ['self', 'spouse', 'child'] : ['self', 'spouse']
    const level = family.length === 3 ? 'family' : 'employee_and_spouse'
    const address = { address_line_1: `${100 + (i % 900)} Main St`, address_line_2: i % 3 === 0 ? `Apt ${i % 50}` : null, city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' }
    for (const [k, relationship] of family.entries()) {
      const n = i * 3 + k
      const coverages = PLANS.slice(0, 2 + (i % 2 === 0 ? 1 : 0)).map((plan) => ({
        maintenance: 'addition', ...plan, coverageLevel: level, startDate: '2025-02-01', endDate: null, maintenanceEffectiveDate: null, volume: null,
        primaryCareProvider: plan.productLine === 'medical' && k === 0 ? { npi: '1234567893', first_name: 'Grace', last_name: 'Hopper', organization_name: null } : null,
      }))
      yield {
        subscriber: k === 0, relationship, maintenance: 'addition', reason: 'initial_enrollment', benefitStatus: 'active', cobraQualifyingEvent: null,
        employmentStatus: k === 0 ? 'full_time' : null, handicapped: null,
        subscriberIdentifier: `EMP-${i}`, groupPolicyNumber: 'GRP-BENCH', memberId: `member-${n}`, carrierMemberId: null,
        employmentStartDate: k === 0 ? '2020-01-06' : null, employmentEndDate: null, cobraStartDate: null, eligibilityStartDate: '2025-02-01', eligibilityEndDate: null, maintenanceEffectiveDate: null,
        firstName: `First${n}`, middleName: null, lastName: `Last${i}`, ssn: String(100_000_000 + n * 7).slice(0, 9),
        phone: k === 0 ? '2175550100' : null, email: k === 0 ? `person${i}@example.com` : null,
        residentialAddress: address,
        mailingAddress: k === 0 && i % 10 === 0 ? { address_line_1: `PO Box ${i}`, address_line_2: null, city: 'Springfield', state: 'IL', zip: '62705', fips_county_code: null } : null,
        birthDate: k === 2 ? '2015-07-30' : '1985-03-14', gender: k === 1 ? 'male' : 'female', maritalStatus: k === 2 ? 'single' : 'married', tobaccoUse: false,
        coverages, reportingCategories: k === 0 ? [{ name: 'CLASS', value: i % 5 === 0 ? 'HOURLY' : 'SALARIED' }] : [],
      }
    }
  }
}

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10

function rssSampler() {
  let peak = process.memoryUsage.rss()
  const sample = () => { peak = Math.max(peak, process.memoryUsage.rss()) }
  const timer = setInterval(sample, RSS_SAMPLE_MS)
  return { sample, stop: () => { clearInterval(timer); sample(); return peak } }
}

async function runOurs(file) {
  const { write834 } = await import(pathToFileURL(join(DIST, 'modules/edi-834/edi-834.writer.js')).href)
  const out = createWriteStream(file)
  for await (const chunk of write834(ENVELOPE, HEADER, members())) {
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

async function runNodeX12(file, sampler) {
  const { X12Interchange } = await import('node-x12')
  const build = await import(pathToFileURL(join(DIST, 'modules/edi-834/edi-834.build.js')).href)
  // Same separators and layout as ours: `~` then a newline after every segment.
  const interchange = new X12Interchange({ elementDelimiter: '*', segmentTerminator: '~', subElementDelimiter: ':', repetitionDelimiter: '^', endOfLine: '\n', format: true })
  const control = build.controlNumbers(ENVELOPE)
  const { isa, gs, st } = build.envelopeSegments(ENVELOPE, control)
  interchange.setHeader(isa.slice(1))
  const group = interchange.addFunctionalGroup()
  group.setHeader(gs.slice(1))
  const transaction = group.addTransaction()
  transaction.setHeader(st.slice(1))
  for (const seg of build.headerSegments(HEADER, ENVELOPE.createdAt)) transaction.addSegment(seg[0], seg.slice(1))
  let count = 0
  for (const member of members()) {
    for (const seg of build.memberSegments(member)) transaction.addSegment(seg[0], seg.slice(1))
    if (++count % 500 === 0) await yieldToLoop()
  }
  sampler.sample()
  const text = `${interchange.toString()}\n` // node-x12 puts no newline after the last segment
  sampler.sample()
  writeFileSync(file, text)
  sampler.sample()
}

async function child(side, file) {
  global.gc?.()
  const baseline = process.memoryUsage.rss()
  const sampler = rssSampler()
  const started = performance.now()
  if (side === 'ours') await runOurs(file)
  else await runNodeX12(file, sampler)
  const ms = performance.now() - started
  const peak = sampler.stop()
  process.send({ side, ms: Math.round(ms), baselineRssMb: mb(baseline), peakRssMb: mb(peak), rssGrowthMb: mb(peak - baseline), maxRssMb: mb(process.resourceUsage().maxRSS * 1024) })
}

function runChild(side, file) {
  return new Promise((resolveRun) => {
    const proc = fork(fileURLToPath(import.meta.url), [side, file], { execArgv: [`--max-old-space-size=${CHILD_HEAP_MB}`], stdio: ['ignore', 'inherit', 'pipe', 'ipc'] })
    let result = null
    let stderr = ''
    proc.stderr.on('data', (data) => { stderr += data })
    proc.on('message', (message) => { result = message })
    proc.on('exit', (code, signal) => {
      resolveRun(result ?? { side, error: `exited with ${signal ?? code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}` })
    })
  })
}

async function sha256(file) {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk)
  return hash.digest('hex')
}

async function parent() {
  const stamp = `${process.pid}-${Date.now()}`
  const files = { ours: join(os.tmpdir(), `edi834-ours-${stamp}.edi`), nodeX12: join(os.tmpdir(), `edi834-node-x12-${stamp}.edi`) }
  try {
    const ours = await runChild('ours', files.ours)
    const nodeX12 = await runChild('node-x12', files.nodeX12)
    const complete = !ours.error && !nodeX12.error
    const identical = complete ? (await sha256(files.ours)) === (await sha256(files.nodeX12)) : null
    const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null)
    console.log(JSON.stringify({
      benchmark: 'edi-834-generator',
      subscribers: SUBSCRIBERS,
      dependents: DEPENDENTS,
      fileMb: ours.error ? null : mb(statSync(files.ours).size),
      identicalOutput: identical,
      ours,
      nodeX12,
      ratio: { time: ratio(nodeX12.ms, ours.ms), rssGrowth: ratio(nodeX12.rssGrowthMb, ours.rssGrowthMb) },
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryMb: mb(os.totalmem()), node: process.version, childHeapMb: CHILD_HEAP_MB },
    }))
    if (identical === false) process.exitCode = 1 // the two paths must write the same file
  } finally {
    for (const file of Object.values(files)) rmSync(file, { force: true })
  }
}

const [side, file] = process.argv.slice(2)
if (side === 'ours' || side === 'node-x12') await child(side, file)
else await parent()
