import { createHash } from 'node:crypto'
import type { Db } from '../../db/schema.js'
import { actorName, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { enrolledSubscriberIds, loadFamilies, plansOfPeriod, windowOf, type LoadedFamily } from '../members/index.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import type { DiscrepancyParameter } from '../errors/discrepancy-messages.js'
import { autoResolveErrors, raiseErrors, type FoundDiscrepancy } from '../errors/raise-errors.js'
import { emitEvent } from '../events/events.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import type { CreateCensusRequestInput } from './census-input.schema.js'
import { censusMembers, censusSubscriberIdentity, platformMembers } from './census-members.js'
import * as matching from './census-matching.repo.js'
import { censusFromInput, type CensusSource } from './census-source.js'
import { maskCensusSsns } from './census-ssn.js'
import { findCensusRequest } from './census-read.repo.js'
import * as repo from './census.repo.js'
import type { CensusRequest } from './census.schema.js'
import { byMemberParameterPlan, compareMembers } from './compare.js'
import { completeMatch, ruleKeys, type MemberPair } from './match.js'
import type { ComparableMember, FoundMemberDiscrepancy, MemberMatch, ReconcileOptions } from './reconcile.model.js'

export const RECONCILIATION_RESOLUTION = 'Resolved automatically: the latest census from the carrier no longer shows this discrepancy.'

/**
 * Census subscribers (and platform families) handled together: enough for few statements per
 * family, few enough that memory does not grow with the census (a batch of families with their
 * coverages is a few megabytes).
 */
const FAMILY_BATCH = 250

/** How a carrier-only member is told apart from another: the carrier's id, else its name and birth date. */
function subjectOf(member: ComparableMember | undefined): string | undefined {
  if (!member) return undefined
  const identity = member.carrierMemberId ?? `${member.firstName}|${member.lastName}|${member.birthDate ?? ''}`.toLowerCase()
  return createHash('sha256').update(identity).digest('hex').slice(0, 16)
}

export interface CensusResult {
  created: boolean
  censusRequest: CensusRequest
}

/** Thrown inside the census's transaction to roll it back: the census is the latest one again. */
class SameCensusAgain extends Error {
  constructor(readonly censusRequestId: string) {
    super('the same census again')
  }
}

/** A discrepancy found, with what raising it needs, kept until every family has been compared. */
interface Found {
  discrepancy: FoundMemberDiscrepancy
  /** The platform family it is about (its subscriber's id), if any. */
  family: string | undefined
  raise: FoundDiscrepancy
}

export function createCensusService(deps: { db: Db; ssn: SsnProtection; carriers: CarrierCatalog }) {
  const { db } = deps

  /** A census already in memory (the sandbox carriers', tests): see submitCensusSource. */
  async function submitCensus(actor: Actor, coveragePeriodId: string, input: CreateCensusRequestInput, options: { submittedBy?: string } = {}): Promise<CensusResult> {
    const cp = await repo.findCoveragePeriod(db, coveragePeriodId)
    if (!cp) throw coveragePeriodNotFound()
    return submitCensusSource(actor, coveragePeriodId, censusFromInput(input), options)
  }

  /**
   * Posts a census and reconciles it with the platform's data in one transaction: every
   * discrepancy raises (or updates, or reopens) an error of source reconciliation linked to the
   * census request; reconciliation errors it no longer finds are resolved; the submitted
   * transactions of the families it covers become synced, or errors where discrepancies remain.
   * The same census posted again (same content as the coverage period's latest) changes nothing.
   *
   * It streams: the census is read twice, a batch of families at a time, and never held whole,
   * nor is the platform's side. The first reading stores each census subscriber's match keys, the
   * platform's subscribers' keys join them, and SQL pairs them over everyone (census-matching.repo.ts);
   * the second reading loads the paired families a batch at a time and compares them; the platform
   * families no census subscriber paired are read last. Only what was found is kept to the end,
   * where the errors are raised in one sorted pass, as before streaming.
   */
  async function submitCensusSource(actor: Actor, coveragePeriodId: string, source: CensusSource, options: { submittedBy?: string } = {}): Promise<CensusResult> {
    const cp = await repo.findCoveragePeriod(db, coveragePeriodId)
    if (!cp) throw coveragePeriodNotFound()
    const asOf = source.asOf ?? new Date().toISOString().slice(0, 10)
    const window = windowOf(cp)
    const carrier = deps.carriers.find(cp.carrier_name)
    const compareOptions: ReconcileOptions = carrier?.gender_mapping ? { genderMapping: carrier.gender_mapping } : {}
    const planByReference = new Map<string, string>()
    for (const plan of await repo.planReferences(db, cp.id)) {
      planByReference.set(plan.id, plan.id)
      planByReference.set(plan.external_identifier.toLowerCase(), plan.id)
    }
    const resolvePlan = (reference: string) => planByReference.get(reference.toLowerCase()) ?? null
    const hashSsn = (digits: string) => deps.ssn.hash(digits)
    const now = new Date()
    const censusRequestId = uuidv7()

    try {
      await db.transaction().execute(async (tx) => {
        await repo.lockCoveragePeriodCensus(tx, cp.id)
        await matching.createMatchingTables(tx)
        // This process's work and the database's overlap: a batch's writes run while the next
        // batch is parsed, and the next batch's families are read while this one is compared.
        // Every statement still goes through the transaction's one connection, in the order
        // issued; batches concern different families, so their writes need no order between them.
        // At most one batch's writes are in flight: a census parsed faster than it is written
        // would otherwise queue all of its rows in memory.
        let writing: Promise<unknown> = Promise.resolve()
        const write = async (work: () => Promise<unknown>) => {
          await writing
          writing = work()
          writing.catch(() => undefined) // awaited by the next write or below, before anything depends on it
        }

        // First reading: each census subscriber's match keys, and the census's content digest:
        // an 834's text, or the subscribers as JSON (what JSON.stringify of the array gives).
        const digest = createHash('sha256').update(source.format).update('\n')
        const digestSubscribers = source.text === undefined && source.contentSha256 === undefined
        if (source.text !== undefined) digest.update(source.text)
        if (digestSubscribers) digest.update('[')
        let subscriberCount = 0
        for await (const batch of source.batches(FAMILY_BATCH)) {
          const first = subscriberCount
          subscriberCount += batch.length
          if (digestSubscribers) batch.forEach((subscriber, offset) => digest.update(`${first + offset === 0 ? '' : ','}${JSON.stringify(subscriber)}`))
          const keys = batch.map((subscriber, offset) => ({ position: first + offset, keys: ruleKeys(censusSubscriberIdentity(subscriber, hashSsn)) }))
          await write(() => matching.insertCarrierKeys(tx, keys))
        }
        await writing
        if (digestSubscribers) digest.update(']')
        const contentSha256 = source.contentSha256 ?? digest.digest('hex')
        const latest = await repo.latestCensusRequest(tx, cp.id)
        if (latest && latest.content_sha256 === contentSha256) throw new SameCensusAgain(latest.id)

        // The platform's subscribers, in id order (the order loadAllFamilies gave them).
        let ord = 0
        let page: string[] = []
        const flushPlatformPage = async () => {
          const identities = await repo.subscriberIdentities(tx, page)
          const keys = identities.map((row) => ({
            ord: ord++,
            memberId: row.id,
            keys: ruleKeys({ kind: 'subscriber', relationship: null, carrierMemberId: row.carrier_member_id, ssnHash: row.ssn_hash, firstName: row.first_name, lastName: row.last_name, birthDate: row.birth_date }),
          }))
          await write(() => matching.insertPlatformKeys(tx, keys))
          page = []
        }
        for await (const id of enrolledSubscriberIds(tx, cp.id)) {
          page.push(id)
          if (page.length === FAMILY_BATCH) await flushPlatformPage()
        }
        await flushPlatformPage()
        await writing
        await matching.pairSubscribers(tx)

        // Written completed, before any error links it: the errors' rendered copy stays true.
        await repo.insertCensusRequest(tx, {
          id: censusRequestId,
          account_id: cp.account_id,
          coverage_period_id: cp.id,
          group_id: cp.group_id,
          format: source.format,
          submitted_by: options.submittedBy ?? actorName(actor),
          as_of: asOf,
          status: 'completed',
          content_sha256: contentSha256,
          errors: '[]',
          created_at: now,
          completed_at: now,
        })

        const plans = await plansOfPeriod(tx, cp.id)
        const loadBatch = (ids: readonly string[]) => loadFamilies(tx, window, ids, { withCoverages: true, withDigests: false, plans })
        // Open errors about a member, by member: one a matched member's census record does not
        // speak about stays open (see census-members.ts), so it cannot show it is gone.
        const openByMember = new Map<string, { dedupeKey: string; parameter: DiscrepancyParameter }[]>()
        for (const e of await repo.openReconciliationErrors(tx, cp.id)) {
          const list = openByMember.get(e.member_id!) ?? []
          list.push({ dedupeKey: e.dedupe_key!, parameter: e.discrepancy_parameter as DiscrepancyParameter })
          openByMember.set(e.member_id!, list)
        }
        const found: Found[] = []
        /** The submitted transactions the census turned to errors, by family: the family's errors point at them. */
        const errorTransactionsOf = new Map<string, string[]>()
        const uncompared: string[] = []
        const counts = { member_count: 0, matched_count: 0 }

        /** Compares a batch of families and keeps what it found; answers the writes that settle the families' transactions. */
        const compareBatch = async (families: readonly LoadedFamily[], match: MemberMatch, census: ReturnType<typeof censusMembers> | null) => {
          const subscriberOfMember = new Map<string, string>()
          for (const family of families) for (const m of [family.subscriber, ...family.dependents]) subscriberOfMember.set(m.id, family.subscriber.id)
          const discrepancies = compareMembers(match, compareOptions)
          // A field the census does not carry at all says nothing about the member (see census-members.ts).
          const kept = discrepancies.filter((d) => d.kind !== 'carrier_missing' || d.censusKey === null || (census?.carried.get(d.censusKey)?.has(d.parameter) ?? true))
          for (const pair of match.pairs) {
            const carried = census?.carried.get(pair.carrier.key)
            for (const open of openByMember.get(pair.platform.key) ?? []) if (carried?.has(open.parameter) === false) uncompared.push(open.dedupeKey)
          }
          counts.matched_count += match.pairs.length

          const familyOf = (d: FoundMemberDiscrepancy) => (d.memberId ? subscriberOfMember.get(d.memberId) : undefined)
          const censusByKey = census ? new Map(census.members.map((m) => [m.key, m])) : new Map<string, ComparableMember>()
          for (const d of kept) {
            const carrierOnly = d.kind === 'platform_missing' && (d.parameter === 'subscriber' || d.parameter === 'dependent')
            const subject = carrierOnly || d.parameter === 'plan_id' ? subjectOf(d.censusKey ? censusByKey.get(d.censusKey) : undefined) : undefined
            found.push({
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
          // The census settles the families' submitted transactions: errors where a discrepancy
          // remains, and those are what the family's errors point at (transaction_ids).
          const withErrors = [...new Set(kept.map(familyOf).filter((id): id is string => id !== undefined))]
          return async () => {
            const settled = await repo.settleTransactions(tx, cp.id, families.map((f) => f.subscriber.id), withErrors, now)
            for (const t of settled) if (t.status === 'errors') errorTransactionsOf.set(t.subscriber_id, [...(errorTransactionsOf.get(t.subscriber_id) ?? []), t.id])
            await refreshFamilyStatuses(tx, settled.map((t) => ({ subscriberId: t.subscriber_id, coveragePeriodId: cp.id })), now)
          }
        }

        // Second reading: the census's families beside the platform families paired with them.
        const loadPaired = async (from: number, to: number) => {
          const pairRows = await matching.pairsBetween(tx, from, to)
          return { pairRows, families: await loadBatch(pairRows.map((p) => p.memberId)) }
        }
        let position = 0
        let next = loadPaired(0, FAMILY_BATCH)
        for await (const batch of source.batches(FAMILY_BATCH)) {
          const first = position
          position += batch.length
          // Batches hold FAMILY_BATCH subscribers but the last: the next one starts at `position`.
          const { pairRows, families } = await next
          next = loadPaired(position, position + FAMILY_BATCH)
          next.catch(() => undefined) // awaited on the next turn or after the loop
          const census = censusMembers(batch, resolvePlan, hashSsn, first)
          const platform = platformMembers(families)
          const platformByKey = new Map(platform.map((m) => [m.key, m]))
          const censusByKey = new Map(census.members.map((m) => [m.key, m]))
          const subscriberPairs: MemberPair[] = pairRows.map((p) => ({ platform: platformByKey.get(p.memberId)!, carrier: censusByKey.get(String(p.position))!, matchedBy: p.matchedBy }))
          const match = completeMatch(platform, census.members, subscriberPairs)
          counts.member_count += census.members.length

          const matchedSubscriber = new Map(pairRows.map((p) => [p.position, p.memberId]))
          // The carrier's member ids, learnt from this census: the first matching rule next time.
          const learnt = match.pairs.flatMap((p) => (p.carrier.carrierMemberId && p.carrier.carrierMemberId !== p.platform.carrierMemberId ? [{ memberId: p.platform.key, carrierMemberId: p.carrier.carrierMemberId }] : []))
          const settle = await compareBatch(families, match, census)
          await write(async () => {
            await repo.insertCensusSubscribers(tx, censusRequestId, batch, (subscriber, offset) => ({
              matched_subscriber_id: matchedSubscriber.get(first + offset) ?? null,
              // Kept for reading back only, so the carrier's SSNs are kept masked.
              data: JSON.stringify(maskCensusSsns(subscriber)),
            }), first)
            await repo.setCarrierMemberIds(tx, learnt)
            await settle()
          })
        }
        await next

        // The platform's families no census subscriber paired: the carrier lacks every member.
        for (let after = -1; ; ) {
          const unpaired = await matching.unpairedPlatformSubscribers(tx, after, FAMILY_BATCH)
          if (unpaired.length === 0) break
          after = unpaired[unpaired.length - 1]!.ord
          const families = await loadBatch(unpaired.map((u) => u.memberId))
          await write(await compareBatch(families, { pairs: [], platformOnly: platformMembers(families), carrierOnly: [] }, null))
        }

        await writing
        found.sort((a, b) => byMemberParameterPlan(a.discrepancy, b.discrepancy))
        // Before any error links the census request: their rendered copy of it shows these.
        const unknownPlans = found.filter((f) => f.discrepancy.parameter === 'plan_id').map((f) => `Unknown plan ${JSON.stringify(f.discrepancy.carrier)}: no plan of the coverage period has this id or external identifier.`)
        await repo.recordCensusProblems(tx, censusRequestId, [...new Set(unknownPlans)])
        const raised = await raiseErrors(
          tx,
          actor,
          { accountId: cp.account_id, coveragePeriodId: cp.id, groupId: cp.group_id, source: 'reconciliation', censusRequestId },
          found.map((f) => {
            const transactionIds = f.family === undefined ? undefined : errorTransactionsOf.get(f.family)
            return transactionIds ? { ...f.raise, transactionIds } : f.raise
          }),
          now,
        )
        const resolved = await autoResolveErrors(
          tx,
          actor,
          { coveragePeriodId: cp.id, source: 'reconciliation', keepDedupeKeys: [...raised.map((r) => r.dedupeKey), ...uncompared] },
          { message: RECONCILIATION_RESOLUTION, resolvedBy: 'reconciliation' },
          now,
        )
        await repo.linkErrorsToCensus(tx, resolved, censusRequestId)

        const totals: repo.CensusCounts = {
          subscriber_count: subscriberCount,
          member_count: counts.member_count,
          matched_count: counts.matched_count,
          discrepancy_count: found.length,
          errors_created: raised.filter((r) => r.outcome === 'created').length,
          errors_reopened: raised.filter((r) => r.outcome === 'reopened').length,
          errors_resolved: resolved.length,
        }
        await repo.recordCensusCounts(tx, censusRequestId, totals)
        await recordAuditEvent(tx, actor, { accountId: cp.account_id, action: 'census_request.created', resourceType: 'census_request', resourceId: censusRequestId })
        await emitEvent(
          tx,
          {
            type: 'census_request.completed',
            accountId: cp.account_id,
            coveragePeriodId: cp.id,
            groupId: cp.group_id,
            data: { census_request_id: censusRequestId, coverage_period_id: cp.id, group_id: cp.group_id, status: 'completed', ...totals },
          },
          now,
        )
      })
    } catch (error) {
      if (error instanceof SameCensusAgain) return { created: false, censusRequest: (await findCensusRequest(db, undefined, error.censusRequestId))! }
      throw error
    }
    return { created: true, censusRequest: (await findCensusRequest(db, undefined, censusRequestId))! }
  }

  return { submitCensus, submitCensusSource }
}

export type CensusService = ReturnType<typeof createCensusService>
