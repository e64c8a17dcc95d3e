import { createHash } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import { turnOfEventLoop } from '../../lib/event-loop.js'
import { loadFamilies, plansOfPeriod, type LoadedFamily, type LoadWindow } from '../members/index.js'
import type { DiscrepancyParameter } from '../errors/discrepancy-messages.js'
import type { FoundDiscrepancy } from '../errors/raise-errors.js'
import { refreshFamilyStatuses, type LearntCarrierMemberId } from '../member-management/family-status.js'
import type { BatchWrites } from './batch-writes.js'
import { censusMembers, platformMembers, type CensusSide, type PlanResolver } from './census-members.js'
import * as matching from './census-matching.repo.js'
import type { SubscriberPairRow } from './census-matching.repo.js'
import type { CensusSource } from './census-source.js'
import type { CensusSubscriberInputT } from './census-input.schema.js'
import { stringifyMaskedCensus } from './census-ssn.js'
import * as repo from './census.repo.js'
import { byMemberParameterPlan, compareMembers } from './compare.js'
import { completeMatch, type MemberPair } from './match.js'
import type { ComparableMember, FoundMemberDiscrepancy, MemberMatch, ReconcileOptions } from './reconcile.model.js'

/**
 * The census's second reading, once its subscribers are paired (census-pairing.ts): a batch of
 * census families beside the platform families paired with them, then the platform families no
 * census subscriber paired. Each batch is compared and written (its census subscribers, the
 * carrier ids learnt, its families' transactions settled) as it goes; only what was found is
 * kept, for the errors raised at the end.
 */

/** How a carrier-only member is told apart from another: the carrier's id, else its name and birth date. */
function subjectOf(member: ComparableMember | undefined): string | undefined {
  if (!member) return undefined
  const identity = member.carrierMemberId ?? `${member.firstName}|${member.lastName}|${member.birthDate ?? ''}`.toLowerCase()
  return createHash('sha256').update(identity).digest('hex').slice(0, 16)
}

/**
 * Census subscribers compared between two turns of the event loop: about a millisecond of work,
 * so the transaction's connection waits at most about that long to send its next statement.
 */
const COMPARISON_SLICE = 50

/** Batches whose subscriber pairs are read in one statement, not one each. */
const PAIR_READ_BATCHES = 8

/**
 * The subscriber pairs, read ahead several batches at a time: a batch's platform families are
 * then read without first waiting for a statement of their own behind the batch's writes.
 */
class PairReader {
  private readAhead: { to: number; rows: SubscriberPairRow[] } | null = null

  constructor(
    private readonly tx: Executor,
    private readonly batchSize: number,
  ) {}

  /** The pairs of census positions [from, to), in position order; `from` never goes back. */
  async between(from: number, to: number): Promise<SubscriberPairRow[]> {
    if (this.readAhead === null || to > this.readAhead.to) {
      const end = Math.max(to, from + this.batchSize * PAIR_READ_BATCHES)
      this.readAhead = { to: end, rows: await matching.pairsBetween(this.tx, from, end) }
    }
    return this.readAhead.rows.filter((p) => p.position >= from && p.position < to)
  }
}

/** A discrepancy found, with what raising it needs, kept until every family has been compared. */
interface Found {
  discrepancy: FoundMemberDiscrepancy
  /** The platform family it is about (its subscriber's id), if any. */
  family: string | undefined
  raise: FoundDiscrepancy
}

export interface ComparisonContext {
  tx: Executor
  coveragePeriodId: string
  window: LoadWindow
  censusRequestId: string
  compareOptions: ReconcileOptions
  resolvePlan: PlanResolver
  hashSsn: (digits: string) => string
  writes: BatchWrites
  batchSize: number
  now: Date
}

export class CensusComparison {
  private readonly found: Found[] = []
  /** Open errors about each member: one a matched member's census record does not speak about stays open. */
  private readonly openByMember = new Map<string, { dedupeKey: string; parameter: DiscrepancyParameter }[]>()
  /** Dedupe keys of open errors the census says nothing about (see census-members.ts): kept open. */
  readonly uncompared: string[] = []
  /** The submitted transactions the census turned to errors, by family: the family's errors point at them. */
  private readonly errorTransactionsOf = new Map<string, string[]>()
  memberCount = 0
  matchedCount = 0
  private loadBatch: (ids: readonly string[]) => Promise<LoadedFamily[]> = async () => []
  private readonly pairs: PairReader

  constructor(private readonly c: ComparisonContext) {
    this.pairs = new PairReader(c.tx, c.batchSize)
  }

  async compare(source: CensusSource): Promise<void> {
    const { tx, coveragePeriodId, window } = this.c
    const plans = await plansOfPeriod(tx, coveragePeriodId)
    this.loadBatch = (ids) => loadFamilies(tx, window, ids, { withCoverages: true, withDigests: false, plans })
    for (const e of await repo.openReconciliationErrors(tx, coveragePeriodId)) {
      const list = this.openByMember.get(e.member_id!) ?? []
      list.push({ dedupeKey: e.dedupe_key!, parameter: e.discrepancy_parameter as DiscrepancyParameter })
      this.openByMember.set(e.member_id!, list)
    }
    await this.compareCensusFamilies(source)
    await this.compareUnpairedFamilies()
    await this.c.writes.done()
  }

  /** What was found, in the order the in-memory reconciliation gave it, ready for raiseErrors. */
  discrepancies(): { sorted: FoundMemberDiscrepancy[]; toRaise: FoundDiscrepancy[] } {
    this.found.sort((a, b) => byMemberParameterPlan(a.discrepancy, b.discrepancy))
    return {
      sorted: this.found.map((f) => f.discrepancy),
      toRaise: this.found.map((f) => {
        const transactionIds = f.family === undefined ? undefined : this.errorTransactionsOf.get(f.family)
        return transactionIds ? { ...f.raise, transactionIds } : f.raise
      }),
    }
  }

  /**
   * The census's families a batch at a time; the next batch's platform families are read while
   * this one is compared. A batch is compared in slices of families, with a turn of the event
   * loop between them (lib/event-loop.ts): the transaction's one connection runs several
   * statements per batch, each sent only once this process reads the last one's answer, so a
   * batch compared in one stretch left it waiting, and the census waited for it.
   */
  private async compareCensusFamilies(source: CensusSource): Promise<void> {
    const { batchSize } = this.c
    const loadPaired = async (from: number, to: number) => {
      const pairRows = await this.pairs.between(from, to)
      return { pairRows, families: await this.loadBatch(pairRows.map((p) => p.memberId)) }
    }
    let position = 0
    let next = loadPaired(0, batchSize)
    try {
      for await (const batch of source.batches(batchSize)) {
        const first = position
        position += batch.length
        // Batches hold batchSize subscribers but the last: the next one starts at `position`.
        const { pairRows, families } = await next
        next = loadPaired(position, position + batchSize)
        next.catch(() => undefined) // awaited on the next turn or after the loop
        const familyOf = new Map(families.map((family) => [family.subscriber.id, family]))
        const withErrors: string[] = []
        const learnt: LearntCarrierMemberId[] = []
        const rows: repo.CensusSubscriberValues[] = []
        for (let start = 0; start < batch.length; start += COMPARISON_SLICE) {
          await turnOfEventLoop()
          const slice = batch.slice(start, start + COMPARISON_SLICE)
          const sliceFirst = first + start
          const slicePairs = pairRows.filter((p) => p.position >= sliceFirst && p.position < sliceFirst + slice.length)
          this.compareSlice(slice, sliceFirst, slicePairs, familyOf, { withErrors, learnt, rows })
        }
        await this.c.writes.start(this.settleFamilies(families, withErrors, learnt, { censusRequestId: this.c.censusRequestId, rows, firstPosition: first }))
      }
    } catch (error) {
      // The next batch's read may still be running: it too ends before the transaction rolls back.
      await next.catch(() => undefined)
      throw error
    }
    await next
  }

  /**
   * Census subscribers from `first` on, beside the platform families paired with them: compared,
   * with what the batch's writes need added to `out` (the families left with a discrepancy, the
   * carrier ids learnt, the census subscribers' rows to store).
   */
  private compareSlice(
    slice: readonly CensusSubscriberInputT[],
    first: number,
    pairRows: readonly SubscriberPairRow[],
    familyOf: ReadonlyMap<string, LoadedFamily>,
    out: { withErrors: string[]; learnt: LearntCarrierMemberId[]; rows: repo.CensusSubscriberValues[] },
  ): void {
    const families = pairRows.map((p) => familyOf.get(p.memberId)!)
    const census = censusMembers(slice, this.c.resolvePlan, this.c.hashSsn, first)
    const platform = platformMembers(families)
    const platformByKey = new Map(platform.map((m) => [m.key, m]))
    const censusByKey = new Map(census.members.map((m) => [m.key, m]))
    const subscriberPairs: MemberPair[] = pairRows.map((p) => ({ platform: platformByKey.get(p.memberId)!, carrier: censusByKey.get(String(p.position))!, matchedBy: p.matchedBy }))
    const match = completeMatch(platform, census.members, subscriberPairs)
    this.memberCount += census.members.length
    // The carrier's member ids, learnt from this census: the first matching rule next time.
    for (const p of match.pairs) if (p.carrier.carrierMemberId && p.carrier.carrierMemberId !== p.platform.carrierMemberId) out.learnt.push({ memberId: p.platform.key, carrierMemberId: p.carrier.carrierMemberId })
    out.withErrors.push(...this.compareFamilies(families, match, census))
    const matchedSubscriber = new Map(pairRows.map((p) => [p.position, p.memberId]))
    // The rows made now, not when the writes run: the batch's parsed census and its families
    // then die young instead of waiting for the writes (and being promoted to the old generation).
    slice.forEach((subscriber, offset) =>
      out.rows.push({
        matched_subscriber_id: matchedSubscriber.get(first + offset) ?? null,
        // Kept for reading back only, so the carrier's SSNs are kept masked.
        data: stringifyMaskedCensus(subscriber),
      }),
    )
  }

  /** The platform's families no census subscriber paired: the carrier lacks every member. */
  private async compareUnpairedFamilies(): Promise<void> {
    for (let after = -1; ; ) {
      const unpaired = await matching.unpairedPlatformSubscribers(this.c.tx, after, this.c.batchSize)
      if (unpaired.length === 0) return
      after = unpaired[unpaired.length - 1]!.ord
      const families = await this.loadBatch(unpaired.map((u) => u.memberId))
      const withErrors = this.compareFamilies(families, { pairs: [], platformOnly: platformMembers(families), carrierOnly: [] }, null)
      await this.c.writes.start(this.settleFamilies(families, withErrors))
    }
  }

  /**
   * Compares families (with their census members, if any) and keeps what it found; answers the
   * families left with a discrepancy (their subscribers' ids), whose transactions become errors.
   */
  private compareFamilies(families: readonly LoadedFamily[], match: MemberMatch, census: CensusSide | null): string[] {
    const subscriberOfMember = new Map<string, string>()
    for (const family of families) for (const m of [family.subscriber, ...family.dependents]) subscriberOfMember.set(m.id, family.subscriber.id)
    const discrepancies = compareMembers(match, this.c.compareOptions)
    // A field the census does not carry at all says nothing about the member (see census-members.ts).
    const kept = discrepancies.filter((d) => d.kind !== 'carrier_missing' || d.censusKey === null || (census?.carried.get(d.censusKey)?.has(d.parameter) ?? true))
    for (const pair of match.pairs) {
      const carried = census?.carried.get(pair.carrier.key)
      for (const open of this.openByMember.get(pair.platform.key) ?? []) if (carried?.has(open.parameter) === false) this.uncompared.push(open.dedupeKey)
    }
    this.matchedCount += match.pairs.length

    const familyOf = (d: FoundMemberDiscrepancy) => (d.memberId ? subscriberOfMember.get(d.memberId) : undefined)
    const censusByKey = new Map((census?.members ?? []).map((m) => [m.key, m]))
    for (const d of kept) {
      const carrierOnly = d.kind === 'platform_missing' && (d.parameter === 'subscriber' || d.parameter === 'dependent')
      const subject = carrierOnly || d.parameter === 'plan_id' ? subjectOf(d.censusKey ? censusByKey.get(d.censusKey) : undefined) : undefined
      this.found.push({
        discrepancy: d,
        family: familyOf(d),
        raise: {
          memberId: d.memberId,
          planId: d.planId,
          parameter: d.parameter,
          kind: d.kind,
          carrier: d.carrier,
          platform: d.platform,
          ...(subject ? { subject: d.parameter === 'plan_id' ? `${subject}:${String(d.carrier)}` : subject } : {}),
        },
      })
    }
    return [...new Set(kept.map(familyOf).filter((id): id is string => id !== undefined))]
  }

  /**
   * The writes that settle the families' submitted transactions (errors where a discrepancy
   * remains, `withErrors`; those are what the family's errors point at, transaction_ids) and
   * store the carrier ids learnt (`learnt`) with the new statuses; with the census subscribers
   * compared (`stored`), they are stored by the settling's statement.
   */
  private settleFamilies(
    families: readonly LoadedFamily[],
    withErrors: readonly string[],
    learnt: readonly LearntCarrierMemberId[] = [],
    stored: repo.CensusSubscriberBatch | null = null,
  ): () => Promise<void> {
    const { tx, coveragePeriodId, now } = this.c
    // Only the ids wait for the writes, not the loaded families.
    const familyIds = families.map((f) => f.subscriber.id)
    return async () => {
      const settled = stored
        ? await repo.storeAndSettle(tx, stored, coveragePeriodId, familyIds, withErrors, now)
        : await repo.settleTransactions(tx, coveragePeriodId, familyIds, withErrors, now)
      for (const t of settled) if (t.status === 'errors') this.errorTransactionsOf.set(t.subscriber_id, [...(this.errorTransactionsOf.get(t.subscriber_id) ?? []), t.id])
      await refreshFamilyStatuses(tx, settled.map((t) => ({ subscriberId: t.subscriber_id, coveragePeriodId })), now, { carrierMemberIds: learnt })
    }
  }
}
