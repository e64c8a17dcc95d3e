import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Transaction } from 'kysely'
import type { AcknowledgementStatus, Database, Db } from '../../db/schema.js'
import { uuidv7 } from '../../lib/ids.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { AcknowledgementArrival, AcknowledgementReceiver, ReceivedAcknowledgement, UnmatchedAcknowledgements } from './acknowledgement-receiver.js'
import { followVerdict } from '../carrier-delivery/index.js'
import { resolveOverdueError } from './acknowledgements.overdue.js'
import * as repo from './acknowledgements.repo.js'
import { recordAcknowledgementFindings } from './file-validation-errors.js'
import type { AcknowledgementRow, FileDeliveryRow } from './acknowledgements.repo.js'
import { deliveryStatusOf, mismatchOf, statusStated } from './acknowledgements.status.js'
import { AcknowledgementParseError } from './x12-ack.errors.js'
import type { AcknowledgementInterchange } from './x12-ack.model.js'
import { parseAcknowledgement } from './x12-ack.parse.js'

export interface AcknowledgementReceiverDeps {
  db: Db
  log?: FastifyBaseLogger
  /** The clock receivedAt defaults to; tests pass their own. */
  clock?: () => Date
  /**
   * Opens the 834 we sent (its chunks are sealed) to locate a 999's findings in it: each finding
   * becomes a file_validation error in the acknowledgement's own transaction
   * (file-validation-errors.ts), so an inbound file whose errors cannot be recorded stays for the
   * next poll instead of being half taken.
   */
  ssn: SsnProtection
}

/** The receiver's own answer, a little more than the shared interface's: whether it was stored before. */
export interface Receipt extends ReceivedAcknowledgement {
  duplicate: boolean
}

export interface AcknowledgementReceiverImpl extends AcknowledgementReceiver, UnmatchedAcknowledgements {
  /**
   * Receives an acknowledgement for the delivery an operator names (POST
   * /file_deliveries/{id}/acknowledgements): the caller checked that it answers that delivery.
   */
  receiveFor(fileDeliveryId: string, arrival: AcknowledgementArrival): Promise<Receipt>
}

/** Unmatched acknowledgements tried again per carrier and call: more wait for the next (an unknown interchange stays unmatched for good). */
const REMATCH_BATCH = 100

type Read = { ok: true; model: AcknowledgementInterchange } | { ok: false; problem: string }

function read(text: string): Read {
  try {
    return { ok: true, model: parseAcknowledgement(text) }
  } catch (error) {
    // The parser's messages name segments and positions, never values (x12-ack.errors.ts).
    if (error instanceof AcknowledgementParseError) return { ok: false, problem: `Not a readable TA1 or 999 (${error.code}): ${error.message}` }
    throw error
  }
}

/**
 * The number an acknowledgement names its 834 by: TA1-01 (our ISA13), else AK1-02 (our GS06, the
 * same number). Every other number in it must agree (mismatchOf): our 834 files hold one
 * interchange, one group and one set, so an acknowledgement answers exactly one of them.
 */
function controlNumberOf(model: AcknowledgementInterchange): { value: string; element: string } | undefined {
  const ta1 = model.ta1s[0]
  if (ta1) return { value: ta1.acknowledgedControlNumber, element: 'TA1-01' }
  const group = model.groups[0]
  if (group) return { value: group.acknowledgedGroupControlNumber, element: 'AK1-02' }
  return undefined
}

type Match = { delivery: FileDeliveryRow } | { problem: string }

/** The carrier's sent 834 the acknowledgement answers, locked; or why there is none. */
async function match(tx: Transaction<Database>, carrierName: string, model: AcknowledgementInterchange, named: string | undefined): Promise<Match> {
  let id = named
  if (id === undefined) {
    const number = controlNumberOf(model)
    if (!number) return { problem: 'It acknowledges no interchange and no functional group' }
    // Numbers are compared as numbers (leading zeros differ between ISA13 and GS06); ours fit nine digits.
    if (!/^\d{1,9}$/.test(number.value)) return { problem: `${number.element} ${number.value} is not a control number of ours (at most nine digits)` }
    id = await repo.findSentDeliveryId(tx, carrierName, Number(number.value))
    if (id === undefined) return { problem: `No sent 834 file of carrier ${carrierName} has interchange control number ${Number(number.value)} (${number.element})` }
  }
  const delivery = await repo.lockDelivery(tx, id)
  if (!delivery || delivery.interchange_control_number === null) return { problem: 'The 834 file it was posted for has no interchange control number' }
  const mismatch = mismatchOf(model, delivery.interchange_control_number)
  if (mismatch) return { problem: `It acknowledges more than one 834 file: ${mismatch}` }
  return { delivery }
}

const receiptOf = (row: AcknowledgementRow, duplicate: boolean): Receipt => ({ id: row.id, outcome: row.outcome, fileDeliveryId: row.file_delivery_id, duplicate })

/**
 * The one way acknowledgements enter (acknowledgement-receiver.ts): read, matched by carrier and
 * control numbers, stored either way, the delivery's acknowledgement_status recomputed and
 * followed (a rejected file's carrier views rolled back, carrier-delivery's followVerdict), its
 * overdue error resolved, and its findings raised as file_validation errors (or earlier ones
 * resolved), all in one transaction. The same text
 * from the same carrier is stored once: receiving it again answers the stored one, except that an
 * unmatched one is matched again (its 834 may be known now, or an operator names it).
 */
export function createAcknowledgementReceiver(deps: AcknowledgementReceiverDeps): AcknowledgementReceiverImpl {
  const { db } = deps
  const clock = deps.clock ?? (() => new Date())

  async function receive(arrival: AcknowledgementArrival, named?: string): Promise<Receipt> {
    const now = arrival.receivedAt ?? clock()
    const rawSha256 = createHash('sha256').update(arrival.text, 'utf8').digest('hex')
    const parsed = read(arrival.text)
    const receipt = await db.transaction().execute(async (tx) => {
      const existing = await repo.findAcknowledgementByRaw(tx, arrival.carrierName, rawSha256)
      if (existing && !(existing.outcome === 'unmatched' && parsed.ok)) return receiptOf(existing, true)
      const found: Match = parsed.ok ? await match(tx, arrival.carrierName, parsed.model, named) : { problem: parsed.problem }
      if ('problem' in found) {
        if (existing) return receiptOf(existing, true)
        const row = await repo.insertAcknowledgement(tx, {
          id: uuidv7(now.getTime()),
          account_id: null,
          file_delivery_id: null,
          carrier_name: arrival.carrierName,
          file_name: arrival.fileName ?? null,
          outcome: parsed.ok ? 'unmatched' : 'malformed',
          problem: found.problem.slice(0, 1000),
          kind: parsed.ok ? kindOf(parsed.model) : null,
          raw: arrival.text,
          raw_sha256: rawSha256,
          model: parsed.ok ? parsed.model : null,
          status: parsed.ok ? statusStated(parsed.model) : null,
          source: arrival.source,
          received_at: now,
        })
        // Stored by a concurrent receiver between our look and our insert: that one stands.
        return row ? receiptOf(row, false) : receiptOf((await repo.findAcknowledgementByRaw(tx, arrival.carrierName, rawSha256))!, true)
      }
      if (!parsed.ok) throw new Error('unreachable: a match needs a read acknowledgement')
      const { delivery } = found
      let row: AcknowledgementRow | undefined
      if (existing) {
        row = await repo.linkAcknowledgement(tx, existing.id, delivery)
      } else {
        row = await repo.insertAcknowledgement(tx, {
          id: uuidv7(now.getTime()),
          account_id: delivery.account_id,
          file_delivery_id: delivery.id,
          carrier_name: arrival.carrierName,
          file_name: arrival.fileName ?? null,
          outcome: 'matched',
          problem: null,
          kind: kindOf(parsed.model),
          raw: arrival.text,
          raw_sha256: rawSha256,
          model: parsed.model,
          status: statusStated(parsed.model),
          source: arrival.source,
          received_at: now,
        })
        if (!row) return receiptOf((await repo.findAcknowledgementByRaw(tx, arrival.carrierName, rawSha256))!, true)
      }
      await applyToDelivery(tx, delivery, now)
      await recordAcknowledgementFindings(tx, { ssn: deps.ssn }, { delivery, acknowledgementId: row.id, model: parsed.model, status: row.status }, now)
      return receiptOf(row, false)
    })
    if (receipt.outcome !== 'matched' && !receipt.duplicate) {
      // Ids, names and the problem only: the raw text may copy member data back.
      const stored = await repo.findAcknowledgement(db, receipt.id)
      deps.log?.warn(
        { acknowledgement_id: receipt.id, carrier_name: arrival.carrierName, source: arrival.source, file_name: arrival.fileName ?? null, outcome: receipt.outcome, problem: stored?.problem },
        `acknowledgement ${receipt.outcome}: kept for the operators (GET /acknowledgements)`,
      )
    }
    return receipt
  }

  return {
    receive: (arrival) => receive(arrival),
    receiveFor: (fileDeliveryId, arrival) => receive(arrival, fileDeliveryId),
    // Received again, each in its own transaction: the path that matches an unmatched copy when the same text comes again.
    async rematchUnmatched(carrierName, since) {
      let matched = 0
      for (const row of await repo.unmatchedAcknowledgementsSince(db, carrierName, since, REMATCH_BATCH)) {
        const receipt = await receive({ carrierName, text: row.raw, source: row.source, fileName: row.file_name })
        if (receipt.outcome === 'matched') matched += 1
      }
      return matched
    },
  }
}

const kindOf = (model: AcknowledgementInterchange): '999' | 'ta1' => (model.groups.length > 0 ? '999' : 'ta1')

/** Recomputes the delivery's acknowledgement_status from all its acknowledgements, and resolves the overdue error an overdue one no longer deserves. */
async function applyToDelivery(tx: Transaction<Database>, delivery: FileDeliveryRow, now: Date): Promise<AcknowledgementStatus> {
  const all = await repo.listAcknowledgements(tx, delivery.id)
  const status = deliveryStatusOf(
    all.map((ack) => ({ kind: ack.kind!, status: ack.status!, model: ack.model as AcknowledgementInterchange })),
    delivery.acknowledgement_status,
  )
  if (status !== delivery.acknowledgement_status) {
    await repo.setAcknowledgementStatus(tx, delivery.id, status, now)
    // A rejection gives back what the carrier's view took of the file (a job of its own).
    await followVerdict(tx, delivery, status)
  }
  // Only an overdue delivery has an overdue error: the others spare the lookup.
  if (delivery.acknowledgement_status === 'overdue') await resolveOverdueError(tx, delivery, status, now)
  return status
}
