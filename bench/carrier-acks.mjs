// The acknowledgement side of `bench/carrier.mjs` (issue 14), on the full 834 of target 1 while
// its service still runs:
//
//   - Generation: what sandbox_edi does with an 834 it receives (sandbox-intake.ts), in this
//     process with the service's built code: answer834, the TA1 and the 999 from one reading of
//     the file's text against the X220A1 rule table. The file is read from the outbound
//     directory, the bytes the carrier got; reading it is not counted (the sandbox reads the
//     stored chunks, as the send does).
//   - Ingestion: the TA1 and then the 999 POSTed as an operator to
//     POST /file_deliveries/{id}/acknowledgements, through the same receiver the sandbox and the
//     inbound pickup use (matched, stored, the delivery's status recomputed, findings raised).
//     Target: generation and ingestion together under 5 s.
//   - A 999 rejecting 1,000 member loops (IK3 DMG with IK4 DMG02 invalid date, at the DMG of
//     1,000 subscribers spread over the file), POSTed the same way: the answer comes once its
//     1,000 file_validation errors are raised (one transaction). Target: under 5 s, and exactly
//     1,000 errors, each on the subscriber whose loop was named.
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { rssSampler } from './carrier-changes.mjs'

export const ACK_TARGETS = { generationAndIngestionSeconds: 5, rejectionSeconds: 5, rejectedLoops: 1000 }

const round = (x, digits = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null)

async function postAck(service, operatorKey, deliveryId, text) {
  const started = performance.now()
  const res = await fetch(`${service.url}/file_deliveries/${deliveryId}/acknowledgements`, {
    method: 'POST',
    headers: { 'service-api-key': operatorKey, 'content-type': 'application/edi-x12' },
    body: text,
  })
  const body = await res.json().catch(() => null)
  const seconds = (performance.now() - started) / 1000
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST /file_deliveries/{id}/acknowledgements answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`)
  return { seconds, status: res.status, acknowledgement: body?.acknowledgement }
}

/** The file's segments with their position from ST (ST = 1), and the member id (REF*17) of each subscriber's DMG. */
function subscriberDmgs(text) {
  const segments = text.split(/~\s*/)
  const dmgs = []
  let position = 0
  let subscriber = false
  let memberId = null
  for (const segment of segments) {
    const id = segment.slice(0, segment.indexOf('*') >>> 0)
    if (id === 'ST') position = 0
    position++
    if (id === 'INS') {
      subscriber = segment.startsWith('INS*Y*')
      memberId = null
    } else if (id === 'REF' && segment.startsWith('REF*17*') && memberId === null) {
      memberId = segment.slice(7)
    } else if (id === 'DMG' && subscriber) {
      dmgs.push({ position, memberId })
    }
  }
  return dmgs
}

/** A 999 from `template` (the one generated above: its envelope and AK1/AK2) rejecting the DMG02 of `loops`. */
function rejecting999(template, loops, controlNumber) {
  const segments = template.split(/~\s*/).filter(Boolean)
  const separator = template.includes('~\n') ? '~\n' : '~'
  const upToAk2 = segments.slice(0, segments.findIndex((s) => s.startsWith('AK2*')) + 1)
  const isa = upToAk2[0].split('*')
  isa[13] = String(controlNumber).padStart(9, '0')
  upToAk2[0] = isa.join('*')
  const gs = upToAk2[1].split('*')
  gs[6] = String(controlNumber)
  upToAk2[1] = gs.join('*')
  const findings = loops.flatMap((loop) => [`IK3*DMG*${loop.position}*2100A*8`, 'IK4*2*1251*8'])
  const set = [...upToAk2.slice(2), ...findings, 'IK5*R*5', 'AK9*R*1*1*0']
  const st02 = set[0].split('*')[2]
  return [upToAk2[0], upToAk2[1], ...set, `SE*${set.length + 1}*${st02}`, `GE*1*${controlNumber}`, `IEA*1*${String(controlNumber).padStart(9, '0')}`].join(separator) + separator
}

export async function measureAcknowledgements({ service, operatorKey, deliveryId, filePath, coveragePeriodId, databaseUrl, distImport }) {
  const { answer834 } = await distImport('modules/acknowledgements/index.js')
  const text = readFileSync(filePath, 'utf8')

  // Generation, as sandbox_edi answers.
  const at = new Date()
  let started = performance.now()
  const answer = answer834(text, { controlNumber: 700_000_001, ack999ControlNumber: 700_000_002, at })
  const ta1 = answer?.ta1
  const ack999 = answer?.ack999
  const generationSeconds = (performance.now() - started) / 1000
  if (!ta1 || !ack999) throw new Error('the sandbox answer could not be built for the full file')

  // Ingestion through the API.
  const rss = rssSampler(service.child.pid)
  const ta1Post = await postAck(service, operatorKey, deliveryId, ta1.x12)
  const ninePost = await postAck(service, operatorKey, deliveryId, ack999.x12)
  const ingestionMemory = rss.stop()
  const ingestionSeconds = ta1Post.seconds + ninePost.seconds

  // 1,000 member loops rejected.
  const dmgs = subscriberDmgs(text)
  const step = Math.max(1, Math.floor(dmgs.length / ACK_TARGETS.rejectedLoops))
  const loops = dmgs.filter((_, i) => i % step === 0).slice(0, ACK_TARGETS.rejectedLoops)
  const rejection = rejecting999(ack999.x12, loops, 700_000_003)
  const rejectionRss = rssSampler(service.child.pid)
  started = performance.now()
  const rejected = await postAck(service, operatorKey, deliveryId, rejection)
  const rejectionSeconds = (performance.now() - started) / 1000
  const rejectionMemory = rejectionRss.stop()

  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  let errors
  try {
    const { rows } = await client.query(
      `select e.member_id::text, e.discrepancy_parameter, e.assignee, m.kind
         from errors e left join members m on m.id = e.member_id
        where e.coverage_period_id = $1 and e.source = 'file_validation' and e.status = 'unresolved' and e.message like '%DMG02%'`,
      [coveragePeriodId],
    )
    const expected = new Set(loops.map((loop) => loop.memberId))
    errors = {
      count: rows.length,
      onNamedSubscriber: rows.filter((r) => expected.has(r.member_id) && r.kind === 'subscriber').length,
      birthDate: rows.filter((r) => r.discrepancy_parameter === 'birth_date').length,
      assigneeService: rows.filter((r) => r.assignee === 'service').length,
    }
  } finally {
    await client.end()
  }

  return {
    fileMb: round(Buffer.byteLength(text) / 1048576, 1),
    generationSeconds: round(generationSeconds, 3),
    ta1Status: ta1.acknowledgement.ta1s[0]?.status ?? null,
    ack999Status: ack999.acknowledgement.groups[0]?.status ?? null,
    ingestion: { ta1Seconds: round(ta1Post.seconds, 3), ack999Seconds: round(ninePost.seconds, 3), deliveryStatusAfter: ninePost.acknowledgement?.status ?? null, ...ingestionMemory },
    generationAndIngestionSeconds: round(generationSeconds + ingestionSeconds, 3),
    rejection: { loops: loops.length, bytes: Buffer.byteLength(rejection), seconds: round(rejectionSeconds, 3), answer: rejected.acknowledgement?.status ?? null, errors, ...rejectionMemory },
  }
}

export function acknowledgementVerdict(acks) {
  const pass = {
    generationAndIngestion: acks.generationAndIngestionSeconds < ACK_TARGETS.generationAndIngestionSeconds && acks.ta1Status === 'accepted' && acks.ack999Status === 'accepted',
    rejectionTime: acks.rejection.seconds < ACK_TARGETS.rejectionSeconds,
    exactErrors:
      acks.rejection.errors.count === acks.rejection.loops &&
      acks.rejection.errors.onNamedSubscriber === acks.rejection.loops &&
      acks.rejection.errors.birthDate === acks.rejection.loops &&
      acks.rejection.loops === ACK_TARGETS.rejectedLoops,
  }
  return { pass, verdict: Object.values(pass).every(Boolean) ? 'PASS' : 'FAIL' }
}
