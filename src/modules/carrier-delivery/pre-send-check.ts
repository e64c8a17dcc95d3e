import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema.js'
import { systemActor } from '../../lib/actor.js'
import { memberSegments } from '../edi-834/edi-834.build.js'
import { findingMessage, parameterOfFinding, type FindingCodes } from '../edi-834/edi-834.findings.js'
import { checkMember, memberFindings } from '../edi-834/edi-834.member-check.js'
import type { Edi834Member } from '../edi-834/edi-834.model.js'
import type { X12Segment } from '../edi-834/x12-segments.js'
import { raiseErrors, resolveLockedErrors, type FoundDiscrepancy } from '../errors/raise-errors.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import * as repo from './held-back-members.repo.js'

type Tx = Transaction<Database>

/**
 * The rule table's check of each member before an 834 is sent (issue 14): a member whose loop
 * would break the file is held back with a `file_validation` error for the partner, naming the
 * field, and the rest of the file goes out. A dependent that fails is held back alone; a
 * subscriber that fails holds back its family (a dependent never goes without its subscriber).
 * Held-back members are recorded in held_back_members; their carrier views are not staged, so the
 * next change file for the family tells them again once their data is corrected. The SQL is in
 * held-back-members.repo.ts.
 */

/** One finding of a held-back member, as stored and as the error is raised: codes, positions, the plan. */
export interface HeldBackFinding extends FindingCodes {
  /** The coverage's plan when the finding lies in a coverage loop (2300, 2310). */
  planId: string | null
}

export interface HeldBackMember {
  memberId: string
  subscriberId: string
  /** Empty for a member held back only because its subscriber failed. */
  findings: HeldBackFinding[]
}

/**
 * Thrown by a full file's build after its pass when members failed: the header's totals were
 * written before the members, so the build rolls back, the held-back members are recorded and the
 * file is built again without them.
 */
export class MembersHeldBack extends Error {
  constructor(readonly members: readonly HeldBackMember[]) {
    super(`${members.length} member(s) held back by the check before sending`)
    this.name = 'MembersHeldBack'
  }
}

/** Members already held back from this delivery (a full file's earlier pass). */
export async function loadHeldBack(tx: Tx, deliveryId: string): Promise<HeldBackMember[]> {
  const rows = await repo.selectHeldBack(tx, deliveryId)
  return rows.map((row) => ({ memberId: row.member_id, subscriberId: row.subscriber_id, findings: JSON.parse(row.problems) as HeldBackFinding[] }))
}

/**
 * At the start of a build job's attempt: members an earlier attempt held back (a crash between
 * passes, or one that gave up after its last pass) are checked again, not left out on findings
 * their data may no longer have. Only the passes of one attempt share what they found.
 */
export async function forgetEarlierAttempts(tx: Tx, deliveryId: string): Promise<void> {
  await repo.deleteHeldBackOfUnbuilt(tx, deliveryId)
}

/** Records held-back members of a delivery; one already recorded keeps its row. */
export async function recordHeldBack(tx: Tx, deliveryId: string, members: readonly HeldBackMember[]): Promise<void> {
  await repo.insertHeldBack(tx, deliveryId, members.map((m) => ({ member_id: m.memberId, subscriber_id: m.subscriberId, problems: JSON.stringify(m.findings) })))
}

/** Where a finding lies within a member, as part of its error's dedupe subject: never a value. */
function fieldOf(finding: HeldBackFinding): string {
  const qualifier = finding.qualifier ? `*${finding.qualifier}` : ''
  const element = finding.elementPosition ? String(finding.elementPosition).padStart(2, '0') : ''
  return `${finding.loopId ?? '-'}:${finding.segmentId}${qualifier}${element ? `:${element}` : ''}`
}

/** The dedupe subject prefix of the errors this check raises (a 999's errors use their own). */
export const PRE_SEND_SUBJECT = 'presend:'

/**
 * One build's check. `known` are the members an earlier pass of the same build attempt held
 * back: they are left out again without a second look (a new attempt forgets them first:
 * forgetEarlierAttempts). `watched` are members with open errors of this
 * check: those found passing are resolved at the end of the build.
 */
export class PreSendCheck {
  /** Members found failing in this pass, with the members held back with them. */
  readonly found: HeldBackMember[] = []
  /** Watched members checked in this pass (passing or not). */
  readonly checked = new Set<string>()
  private readonly heldFamilies = new Set<string>()
  /** Held-back member ids, with their subscriber's. */
  private readonly heldMembers = new Map<string, string>()
  private readonly segments = new Map<Edi834Member, readonly X12Segment[]>()

  constructor(
    known: readonly HeldBackMember[],
    private readonly planIdOf: ReadonlyMap<string, string>,
    private readonly watched: ReadonlySet<string>,
  ) {
    for (const member of known) {
      if (member.memberId === member.subscriberId) this.heldFamilies.add(member.subscriberId)
      this.heldMembers.set(member.memberId, member.subscriberId)
    }
  }

  /** What countEnrolled leaves out: held families and dependents held alone. */
  get excluded(): { families: string[]; dependents: string[] } {
    const dependents = [...this.heldMembers].filter(([id, subscriberId]) => id !== subscriberId && !this.heldFamilies.has(subscriberId)).map(([id]) => id)
    return { families: [...this.heldFamilies], dependents }
  }

  /**
   * The loops of one family that may be written, in order; the others are held back (recorded in
   * `found` when newly failing). A member may have more than one loop (a COBRA split): one failing
   * loop holds the member back.
   */
  family(subscriberId: string, members: readonly Edi834Member[]): readonly Edi834Member[] {
    if (this.heldFamilies.has(subscriberId)) return []
    let failing: Map<string, HeldBackFinding[]> | null = null
    let subscriberFails = false
    for (const member of members) {
      if (this.heldMembers.has(member.memberId)) continue
      const check = checkMember(member)
      if (this.watched.has(member.memberId)) this.checked.add(member.memberId)
      if (check.problems.length === 0) {
        this.segments.set(member, check.segments)
        continue
      }
      failing ??= new Map()
      const findings = memberFindings(check).map(({ position: _position, coverageIndex, ...codes }): HeldBackFinding => {
        const coverage = coverageIndex === null ? undefined : member.coverages[coverageIndex]
        return { ...codes, planId: coverage ? (this.planIdOf.get(coverage.planExternalIdentifier) ?? null) : null }
      })
      failing.set(member.memberId, [...(failing.get(member.memberId) ?? []), ...findings])
      if (member.subscriber) subscriberFails = true
    }
    if (!failing) {
      if (this.heldMembers.size === 0) return members
      return members.filter((m) => !this.heldMembers.has(m.memberId))
    }
    const holds = (m: Edi834Member) => subscriberFails || failing.has(m.memberId) || this.heldMembers.has(m.memberId)
    const newlyHeld = new Set<string>()
    for (const member of members) {
      if (!holds(member) || this.heldMembers.has(member.memberId) || newlyHeld.has(member.memberId)) continue
      newlyHeld.add(member.memberId)
      this.found.push({ memberId: member.memberId, subscriberId, findings: failing.get(member.memberId) ?? [] })
    }
    for (const id of newlyHeld) this.heldMembers.set(id, subscriberId)
    if (subscriberFails) this.heldFamilies.add(subscriberId)
    const kept = members.filter((m) => !holds(m))
    for (const member of members) if (holds(member)) this.segments.delete(member)
    return kept
  }

  /** For the writer: the segments the check built (each taken once), else built now. */
  readonly segmentsOf = (member: Edi834Member): readonly X12Segment[] => {
    const built = this.segments.get(member)
    if (built === undefined) return memberSegments(member)
    this.segments.delete(member)
    return built
  }
}

export const PRE_SEND_RESOLUTION = 'Resolved automatically: the member now passes the X220A1 rule table checked before each 834 is sent.'

/** What the build tells the error queue: the held-back members' errors raised, the fixed ones resolved. */
export interface PreSendOutcome {
  accountId: string
  coveragePeriodId: string
  groupId: string
  held: readonly HeldBackMember[]
  /** The family's transactions in the delivery, by subscriber id. */
  transactionsOf: ReadonlyMap<string, readonly string[]>
  /** Open errors of this check (loaded before the pass) and the members the pass checked. */
  open: readonly OpenPreSendError[]
  checked: ReadonlySet<string>
}

export type OpenPreSendError = repo.OpenPreSendError

/** Open errors this check raised in a coverage period: few, read before the pass. */
export async function openPreSendErrors(tx: Tx, coveragePeriodId: string): Promise<OpenPreSendError[]> {
  return repo.openFileValidationErrors(tx, coveragePeriodId, PRE_SEND_SUBJECT)
}

/**
 * One error per held-back member and field (source file_validation, assignee partner, the field
 * in `discrepancy.parameter`, or the member's record when the rule names none), raised in the
 * build's transaction; then the open errors of members this build found passing are resolved.
 */
export async function settlePreSendErrors(tx: Tx, outcome: PreSendOutcome, now: Date): Promise<void> {
  const actor = systemActor(outcome.accountId)
  const discrepancies: FoundDiscrepancy[] = []
  for (const member of outcome.held) {
    const subscriber = member.memberId === member.subscriberId
    for (const finding of member.findings) {
      discrepancies.push({
        memberId: member.memberId,
        planId: finding.planId,
        parameter: parameterOfFinding(finding) ?? (subscriber ? 'subscriber' : 'dependent'),
        kind: 'value_invalid',
        assignee: 'partner',
        message: findingMessage('pre_send', finding),
        transactionIds: outcome.transactionsOf.get(member.subscriberId) ?? [],
        subject: `${PRE_SEND_SUBJECT}${fieldOf(finding)}`,
      })
    }
  }
  const raised =
    discrepancies.length === 0
      ? []
      : await raiseErrors(tx, actor, { accountId: outcome.accountId, coveragePeriodId: outcome.coveragePeriodId, groupId: outcome.groupId, source: 'file_validation' }, discrepancies, now)
  const kept = new Set(raised.map((r) => r.dedupeKey))
  const fixed = outcome.open.filter((e) => e.member_id !== null && outcome.checked.has(e.member_id) && !kept.has(e.dedupe_key ?? ''))
  if (fixed.length === 0) return
  const locked = await repo.lockUnresolvedErrors(tx, fixed.map((e) => e.id))
  await resolveLockedErrors(tx, actor, locked, { message: PRE_SEND_RESOLUTION, resolvedBy: 'file_validation', automatic: true }, now)
}

/**
 * A change file's families held back whole (nothing of them in the file): their transactions in
 * it end in `errors`, where gathering never takes them again, so a family whose data stays wrong
 * does not come back in delivery after delivery. The partner's correction makes a new transaction,
 * and the change file it goes in tells the family's whole difference. Answers how many.
 */
export async function holdBackChangeFamilies(tx: Tx, coveragePeriodId: string, subscriberIds: readonly string[], transactionsOf: ReadonlyMap<string, readonly string[]>, now: Date): Promise<number> {
  const ids = subscriberIds.flatMap((id) => transactionsOf.get(id) ?? [])
  if (ids.length === 0) return 0
  await repo.markTransactionsErrors(tx, ids, now)
  await refreshFamilyStatuses(tx, subscriberIds.map((subscriberId) => ({ subscriberId, coveragePeriodId })), now)
  return ids.length
}

/**
 * A full file's families held back whole get their installation transaction now, in `errors` (the
 * families it carries get theirs, submitted, once it is sent: carrier-delivery.service.ts, settle), so their status
 * says what happened and their errors link to it.
 */
export async function holdBackFullFamilies(
  tx: Tx,
  delivery: { id: string; account_id: string; coverage_period_id: string; group_id: string; created_at: Date },
  held: readonly HeldBackMember[],
  transactionsOf: Map<string, string[]>,
  now: Date,
): Promise<void> {
  const families = held.filter((m) => m.memberId === m.subscriberId).map((m) => m.subscriberId)
  if (families.length === 0) return
  const rows = await repo.insertHeldBackInstallations(tx, delivery, families, now)
  for (const row of rows) transactionsOf.set(row.subscriber_id, [row.id])
  await refreshFamilyStatuses(tx, families.map((subscriberId) => ({ subscriberId, coveragePeriodId: delivery.coverage_period_id })), now)
}

/**
 * The life events of changes a family was held back with, or sent in a file the carrier rejected,
 * and that never reached the carrier since (transactions in `errors`, with no transaction the
 * carrier took after them), oldest first, by subscriber: the change file that carries the family
 * at last names its loops by them too (a newborn held back still goes as a birth once its name is
 * corrected; a rejected divorce is still a divorce in the family's next file).
 */
export async function heldBackEvents(tx: Tx, coveragePeriodId: string, deliveryId: string, subscriberIds: readonly string[]): Promise<Map<string, string[]>> {
  const events = new Map<string, string[]>()
  if (subscriberIds.length === 0) return events
  for (const row of await repo.heldBackEventRows(tx, coveragePeriodId, deliveryId, subscriberIds)) {
    const list = events.get(row.subscriber_id) ?? []
    if (!list.includes(row.qualifying_life_event_id)) list.push(row.qualifying_life_event_id)
    events.set(row.subscriber_id, list)
  }
  return events
}
