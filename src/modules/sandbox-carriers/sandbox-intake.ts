import type { Executor } from '../../db/schema.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { answer834, type AcknowledgementInterchange } from '../acknowledgements/index.js'
import { readFileContent } from '../carrier-delivery/index.js'
import { Edi834ParseError, Edi834RosterError } from '../edi-834/edi-834.errors.js'
import type { Edi834Member, FileAction } from '../edi-834/edi-834.model.js'
import { parse834 } from '../edi-834/edi-834.parse.js'
import { Edi834Roster, type RosterApplied } from '../edi-834/edi-834.roster.js'
import { loadRosterMembersById, nextSandboxControlNumber, saveRosterMembers, type ReceivedDelivery, type TakenDelivery } from './sandbox-roster.repo.js'

/**
 * How the sandbox carrier takes one delivery it was sent, as a carrier would: it reads the content
 * as sent (the stored chunks), answers an 834 with a TA1 and a 999 from checking it against the
 * X220A1 rules, loads nothing the acknowledgements reject, and applies the rest to its roster with
 * the roster applier (a full file replaces the roster). An API delivery is a JSON document of the
 * same member records (file-builder.ts), applied the same way and acknowledged by the API call.
 */

export interface Intake extends TakenDelivery {
  /** What applying it did; null when nothing was applied. */
  applied: RosterApplied | null
  /** After a full file, the roster it became (to choose differences from). */
  roster: Edi834Roster | null
}

/** Why an acknowledgement rejects the file, in codes and positions; null when it accepts it (with errors or not). */
function rejection(ta1: AcknowledgementInterchange | null, ack999: AcknowledgementInterchange | null): string | null {
  const note = ta1?.ta1s[0]
  if (!note) return 'no TA1: the interchange has no readable ISA13'
  if (note.status === 'rejected') return `TA1 rejected the interchange (TA1-05 ${note.note.code})`
  if (!ack999 || ack999.groups.length === 0) return 'no 999: the interchange has no functional group to acknowledge'
  for (const group of ack999.groups) {
    const rejectedSet = group.transactionSets.find((set) => set.status.startsWith('rejected'))
    if (group.status === 'rejected' || rejectedSet) {
      const findings = (rejectedSet?.segments ?? [])
        .slice(0, 5)
        .map((s) => `IK3 ${s.segmentId} at ${s.position}${s.loopId ? ` (${s.loopId})` : ''}${s.error ? ` ${s.error.code}` : ''}${s.elements.map((e) => ` IK4 ${e.position} ${e.error.code}`).join('')}`)
      const setErrors = (rejectedSet?.errors ?? []).map((e) => e.code).join(',')
      const groupErrors = group.errors.map((e) => e.code).join(',')
      return [`999 AK9 ${group.status}`, setErrors && `IK5 ${setErrors}`, groupErrors && `AK9 errors ${groupErrors}`, ...findings].filter(Boolean).join('; ')
    }
  }
  return null
}

/**
 * Applies members to the roster the sandbox keeps: a change loads only the members it names,
 * applies, and writes back the members it touched; a full file writes the whole roster anew.
 */
async function applyToRoster(
  tx: Executor,
  ssn: SsnProtection,
  coveragePeriodId: string,
  action: FileAction,
  reference: string,
  members: readonly Edi834Member[],
): Promise<Pick<Intake, 'outcome' | 'detail' | 'applied' | 'roster'>> {
  if (action === 'verify') return { outcome: 'ignored', detail: 'an audit file changes nothing', applied: null, roster: null }
  const held = action === 'replace' ? [] : await loadRosterMembersById(tx, ssn, coveragePeriodId, Edi834Roster.memberIdsOf(members))
  const roster = Edi834Roster.fromMembers(held)
  let applied: RosterApplied
  try {
    applied = roster.applyMembers(action, reference, members)
  } catch (error) {
    // A file that cannot apply to what the carrier holds is not loaded (its messages name member ids and plan codes only).
    if (error instanceof Edi834RosterError) return { outcome: 'not_applicable', detail: `${error.code}: ${error.message}`, applied: null, roster: null }
    // The applier is pure: anything else it throws is about the records (a JSON document's member
    // missing a field), not the database. Not loaded, and not retried forever; its message is
    // left out, as it could quote a value.
    return { outcome: 'unreadable', detail: `the members cannot be applied (${(error as Error).name})`, applied: null, roster: null }
  }
  const touched = applied.memberIds.map((id) => roster.member(id)).filter((m) => m !== undefined)
  await saveRosterMembers(tx, ssn, coveragePeriodId, touched, { replaceAll: action === 'replace' })
  return { outcome: 'applied', detail: null, applied, roster: action === 'replace' ? roster : null }
}

/** An 834: acknowledged, then applied unless rejected. */
async function take834(tx: Executor, ssn: SsnProtection, coveragePeriodId: string, carrierName: string, delivery: ReceivedDelivery, text: string): Promise<Intake> {
  const at = new Date()
  // Both numbers taken up front: the answers come from one reading of the file (answer834).
  const controlNumber = await nextSandboxControlNumber(tx, carrierName)
  const answer = answer834(text, { controlNumber, ack999ControlNumber: await nextSandboxControlNumber(tx, carrierName), at })
  const ta1 = answer?.ta1 ?? null
  const ack999 = answer?.ack999 ?? null
  const answers = { ta1: ta1?.x12 ?? null, ack999: ack999?.x12 ?? null }
  const rejected = rejection(ta1?.acknowledgement ?? null, ack999?.acknowledgement ?? null)
  if (rejected) return { outcome: 'rejected', detail: rejected, ...answers, applied: null, roster: null }
  let parsed: ReturnType<typeof parse834>
  try {
    parsed = parse834(text)
  } catch (error) {
    if (error instanceof Edi834ParseError) return { outcome: 'unreadable', detail: `${error.code}: ${error.message}`, ...answers, applied: null, roster: null }
    throw error
  }
  return { ...answers, ...(await applyToRoster(tx, ssn, coveragePeriodId, parsed.header.action, parsed.header.reference || delivery.id, parsed.members)) }
}

/** What an API delivery's document holds (file-builder.ts writes it). */
function documentOf(text: string): { kind: 'full' | 'change'; members: Edi834Member[] } | string {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return 'the document is not JSON'
  }
  if (typeof doc !== 'object' || doc === null) return 'the document is not an object'
  const { kind, members } = doc as { kind?: unknown; members?: unknown }
  if (kind !== 'full' && kind !== 'change') return 'kind is neither full nor change'
  if (!Array.isArray(members)) return 'members is not an array'
  const memberLike = (m: unknown) => typeof m === 'object' && m !== null && typeof (m as { memberId?: unknown }).memberId === 'string' && Array.isArray((m as { coverages?: unknown }).coverages)
  const malformed = (members as unknown[]).findIndex((m) => !memberLike(m))
  if (malformed >= 0) return `members[${malformed}] has no memberId or coverages`
  // Checked above as far as the applier reads beyond the builder's own records.
  return { kind, members: members as Edi834Member[] }
}

/** Takes one delivery: reads it, acknowledges an 834, applies what it may. */
export async function takeDelivery(tx: Executor, ssn: SsnProtection, coveragePeriodId: string, carrierName: string, delivery: ReceivedDelivery): Promise<Intake> {
  const text = await readFileContent(tx, ssn, delivery.id)
  if (delivery.channel === 'edi') return take834(tx, ssn, coveragePeriodId, carrierName, delivery, text)
  const doc = documentOf(text)
  if (typeof doc === 'string') return { outcome: 'unreadable', detail: doc, ta1: null, ack999: null, applied: null, roster: null }
  const applied = await applyToRoster(tx, ssn, coveragePeriodId, doc.kind === 'full' ? 'replace' : 'change', delivery.id, doc.members)
  return { ...applied, ta1: null, ack999: null }
}
