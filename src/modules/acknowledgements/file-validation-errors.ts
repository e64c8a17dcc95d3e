import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema.js'
import { systemActor } from '../../lib/actor.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { readFileContent } from '../carrier-delivery/index.js'
import { findingMessage, parameterOfFinding, rejectedSetMessage } from '../edi-834/edi-834.findings.js'
import type { DiscrepancyParameter } from '../errors/discrepancy-messages.js'
import type { ErrorRow } from '../errors/errors.repo.js'
import { raiseErrors, resolveLockedErrors, type FoundDiscrepancy, type RaisedError } from '../errors/raise-errors.js'
import { familyTransactionsOfDelivery, lockAcceptedErrors, membersOfGroup, plansByExternalIdentifier, transactionIdsOfDelivery } from './acknowledgements.repo.js'
import { locateFindings, type LocatedSegment } from './x12-ack.locate.js'
import type { AckCode, AcknowledgementInterchange, ElementFinding, SegmentFinding } from './x12-ack.model.js'

/**
 * `file_validation` errors raised by a carrier's TA1 and 999 (api-contract.md section 10,
 * "file_validation errors"), and resolved by a later acknowledgement that accepts the members.
 * Called by the acknowledgement ingestion inside its transaction, once a matched acknowledgement
 * is stored and its delivery's acknowledgement_status recomputed.
 *
 * One error per finding, each with a subject of its own so findings never merge (ACK_SUBJECT):
 * per IK4 (bad element), per IK3 without IK4 (bad or missing segment), per transaction set
 * rejected without naming a segment (IK5 codes only), per functional group rejected without
 * answering any set, and one for the file when a TA1 rejects the interchange. A finding inside a
 * member loop of the 834 we sent is linked to that member (REF*17, when it is a member of the
 * group) and, inside a coverage loop, to that plan (REF*CE, the plan's external identifier).
 */

/** Marks the subject (dedupe key's fifth part) of the errors raised here, not by the pre-send check or the overdue job. */
export const ACK_SUBJECT = 'ack'

/** Transaction ids an error lists when it is about the whole file or an unknown member: a full file has 50,000, and the error only needs to point at the delivery's transactions. */
export const MAX_FILE_TRANSACTION_IDS = 100

/** Who resolves (errors' resolved_by) when an acknowledgement accepts the members again, or answers an overdue file (acknowledgements.overdue.ts). */
export const ACKNOWLEDGEMENT_RESOLVER = 'carrier_acknowledgement'

/** IK3-04 codes of a segment that is missing: its IK3-02 is where the carrier noticed, the segment after the gap. */
const MISSING_SEGMENT_CODES = new Set(['3', 'I6', 'I7', 'I8'])

export interface AcknowledgedDelivery {
  id: string
  account_id: string
  coverage_period_id: string
  group_id: string
  kind: 'full' | 'change'
  file_name: string
  interchange_control_number: number | null
}

export interface AcknowledgementFindingsInput {
  delivery: AcknowledgedDelivery
  /** The stored acknowledgement: named in the resolution message so an operator can find it. */
  acknowledgementId: string
  model: AcknowledgementInterchange
  /**
   * What this acknowledgement says (acknowledgements.status, not the delivery's recomputed
   * status): accepted or accepted_with_errors resolves; null (a malformed one) never does.
   */
  status: 'accepted' | 'accepted_with_errors' | 'partially_accepted' | 'rejected' | null
}

export interface AcknowledgementFindingsOutcome {
  raised: RaisedError[]
  /** Ids of the errors of earlier deliveries (or of this one) that this acknowledgement resolved. */
  resolvedErrorIds: string[]
}

/** One finding before it is linked: where the carrier put it and what it says. */
interface Finding {
  subject: string
  /** Null for a segment's finding: its message names the loop, known once it is located. */
  message: string | null
  /** Absent for findings about a whole set, group or interchange. */
  at?: { st02: string; segment: SegmentFinding; element: ElementFinding | null }
}

const words = (code: AckCode) => (code.reason ? `${code.reason.replaceAll('_', ' ')} (code ${code.code})` : `code ${code.code}`)

function findingsOf(model: AcknowledgementInterchange, deliveryId: string): Finding[] {
  const subject = (...parts: (string | number)[]) => [ACK_SUBJECT, deliveryId, ...parts].join(':')
  const found: Finding[] = []
  for (const ta1 of model.ta1s) {
    if (ta1.status !== 'rejected') continue
    found.push({ subject: subject('ta1'), message: `The carrier's TA1 rejected the whole interchange: ${words(ta1.note)}.` })
  }
  for (const group of model.groups) {
    const before = found.length
    for (const set of group.transactionSets) {
      if (set.status === 'accepted') continue
      for (const segment of set.segments) {
        const at = subject(set.controlNumber, segment.position, segment.segmentId)
        if (segment.elements.length === 0) found.push({ subject: `${at}:-`, message: null, at: { st02: set.controlNumber, segment, element: null } })
        for (const element of segment.elements) {
          const place = element.componentPosition ? `${element.position}.${element.componentPosition}` : `${element.position}`
          found.push({ subject: `${at}:${place}`, message: null, at: { st02: set.controlNumber, segment, element } })
        }
      }
      // Accepted with errors but naming no segment: nothing to work on.
      if (set.segments.length === 0 && set.status !== 'accepted_with_errors') {
        found.push({ subject: subject(set.controlNumber, 'set'), message: rejectedSetMessage(set.errors.map((e) => e.code)) })
      }
    }
    if (group.status === 'rejected' && found.length === before) {
      const reasons = group.errors.length > 0 ? group.errors.map(words).join('; ') : 'no reason given'
      found.push({ subject: subject('group', group.acknowledgedGroupControlNumber), message: `The carrier's 999 rejected the whole functional group: ${reasons}.` })
    }
  }
  return found
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Raises the acknowledgement's findings as `file_validation` errors (source file_validation,
 * assignee service, kind value_invalid, severity failure) and, when it accepts the file (a 999
 * saying accepted or accepted_with_errors), resolves the open errors earlier 999s and TA1s
 * raised for the members this delivery carried (a full delivery carries everyone; a change
 * delivery the families of its transactions; neither the members the pre-send check held back
 * from it), except members it has findings for again, and the
 * errors without a member. Only errors of deliveries of the same coverage period sent no later
 * than this one are resolved: an accepted older file says nothing about a newer one.
 *
 * Reads the 834 we sent once, and only when a finding names a segment. Queries are batched: a
 * 999 with 1,000 findings costs a handful of round trips besides raiseErrors' own.
 */
export async function recordAcknowledgementFindings(
  tx: Transaction<Database>,
  deps: { ssn: SsnProtection },
  input: AcknowledgementFindingsInput,
  now: Date = new Date(),
): Promise<AcknowledgementFindingsOutcome> {
  const { delivery, model } = input
  const findings = findingsOf(model, delivery.id)
  const actor = systemActor(delivery.account_id)

  const located = await locate(tx, deps.ssn, delivery.id, findings)
  const memberIds = [...new Set(located.flatMap((l) => (l?.memberId && UUID.test(l.memberId) ? [l.memberId.toLowerCase()] : [])))]
  const planCodes = [...new Set(located.flatMap((l) => (l?.planExternalId ? [l.planExternalId] : [])))]
  const members = memberIds.length === 0 ? [] : await membersOfGroup(tx, delivery.group_id, memberIds)
  const memberOf = new Map(members.map((m) => [m.id, { id: m.id, kind: m.kind, family: m.subscriber_id ?? m.id }]))
  const plans = planCodes.length === 0 ? [] : await plansByExternalIdentifier(tx, delivery.coverage_period_id, planCodes)
  const planOf = new Map(plans.map((p) => [p.external_identifier, p.id]))

  const families = [...new Set(members.map((m) => m.subscriber_id ?? m.id))]
  const familyTransactions = new Map<string, string[]>()
  if (families.length > 0) {
    const rows = await familyTransactionsOfDelivery(tx, delivery.id, families)
    for (const row of rows) familyTransactions.set(row.subscriber_id, [...(familyTransactions.get(row.subscriber_id) ?? []), row.id])
  }
  let fileTransactions: string[] | null = null
  const deliveryTransactions = async () => (fileTransactions ??= await transactionIdsOfDelivery(tx, delivery.id, MAX_FILE_TRANSACTION_IDS))

  const found: FoundDiscrepancy[] = []
  for (const [index, finding] of findings.entries()) {
    const place = located[index] ?? null
    const member = place?.memberId ? memberOf.get(place.memberId.toLowerCase()) ?? null : null
    const planId = place?.planExternalId ? planOf.get(place.planExternalId) ?? null : null
    const transactionIds = (member && familyTransactions.get(member.family)) || (await deliveryTransactions())
    let parameter: DiscrepancyParameter = member ? member.kind : 'coverage'
    let message = finding.message ?? ''
    if (finding.at) {
      const { segment, element } = finding.at
      // Our loop and qualifier are the segment's only when it is there: a missing one was noticed at the next.
      const isThere = place?.segmentId === segment.segmentId && !MISSING_SEGMENT_CODES.has(segment.error?.code ?? '')
      const where = {
        segmentId: segment.segmentId,
        qualifier: isThere ? place.qualifier : null,
        elementPosition: element?.position ?? null,
        loopId: segment.loopId ?? (isThere ? place.loopId : null),
      }
      parameter = parameterOfFinding(where) ?? parameter
      // IK4-04, the carrier's copy of the bad value, is not in the model: the message cannot quote it.
      message = findingMessage('carrier', { ...where, segmentCode: segment.error?.code ?? null, elementCode: element?.error.code ?? null, dataElement: element?.dataElement ?? null })
    }
    found.push({ memberId: member?.id ?? null, planId, parameter, kind: 'value_invalid', severity: 'failure', assignee: 'service', message, subject: finding.subject, transactionIds })
  }
  const raised = await raiseErrors(tx, actor, { accountId: delivery.account_id, coveragePeriodId: delivery.coverage_period_id, groupId: delivery.group_id, source: 'file_validation' }, found, now)

  const accepts = model.groups.length > 0 && !model.ta1s.some((ta1) => ta1.status === 'rejected') && (input.status === 'accepted' || input.status === 'accepted_with_errors')
  const resolvedErrorIds = accepts ? await resolveAccepted(tx, input, found, raised, now) : []
  return { raised, resolvedErrorIds }
}

/** Each finding's place in the 834 we sent (null for findings about a whole set, group or file). */
async function locate(tx: Transaction<Database>, ssn: SsnProtection, deliveryId: string, findings: readonly Finding[]): Promise<(LocatedSegment | null)[]> {
  const asked = findings.map((f) => {
    if (!f.at) return null
    const { segment } = f.at
    // A missing segment belongs with the segment before the gap: the one noticed may open the next member's loop.
    const position = MISSING_SEGMENT_CODES.has(segment.error?.code ?? '') && segment.position > 1 ? segment.position - 1 : segment.position
    return { st02: f.at.st02, position }
  })
  if (asked.every((a) => a === null)) return findings.map(() => null)
  const text = await readFileContent(tx, ssn, deliveryId)
  const places = locateFindings(text, asked.map((a) => a ?? { st02: '', position: 0 }))
  return places.map((place, i) => (asked[i] ? place : null))
}

const RESOLVED_FOR_MEMBER = (input: AcknowledgementFindingsInput) =>
  `Resolved automatically: the carrier's 999 (acknowledgement ${input.acknowledgementId}) accepted the 834 file ${input.delivery.file_name}, which carried this member again.`
const RESOLVED_FOR_FILE = (input: AcknowledgementFindingsInput) =>
  `Resolved automatically: the carrier's 999 (acknowledgement ${input.acknowledgementId}) accepted the 834 file ${input.delivery.file_name}.`

/**
 * The open errors acknowledgements raised for deliveries of this coverage period sent no later
 * than this one (the delivery is the dedupe key's sixth part, after ACK_SUBJECT), about members
 * this delivery carried and this acknowledgement has no finding for, or about no member when it
 * has no such finding either: resolved, locked first as resolveLockedErrors asks.
 */
async function resolveAccepted(
  tx: Transaction<Database>,
  input: AcknowledgementFindingsInput,
  found: readonly FoundDiscrepancy[],
  raised: readonly RaisedError[],
  now: Date,
): Promise<string[]> {
  const { delivery } = input
  const stillFound = [...new Set(found.flatMap((f) => (f.memberId ? [f.memberId] : [])))]
  const memberless = !found.some((f) => f.memberId === null)
  const rows = await lockAcceptedErrors(tx, { delivery, subject: ACK_SUBJECT, keptDedupeKeys: raised.map((r) => r.dedupeKey), stillFound, memberless })
  const actor = systemActor(delivery.account_id)
  const resolve = (subset: ErrorRow[], message: string) => resolveLockedErrors(tx, actor, subset, { message, resolvedBy: ACKNOWLEDGEMENT_RESOLVER, automatic: true }, now)
  const forMembers = await resolve(rows.filter((row) => row.member_id !== null), RESOLVED_FOR_MEMBER(input))
  const forFile = await resolve(rows.filter((row) => row.member_id === null), RESOLVED_FOR_FILE(input))
  return [...forMembers, ...forFile].map((row) => row.id)
}
