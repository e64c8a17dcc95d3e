import { createHash } from 'node:crypto'
import type { Db } from '../../db/schema.js'
import { actorName, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { loadAllFamilies, windowOf } from '../members/index.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { Edi834ParseError } from '../edi-834/edi-834.errors.js'
import { parse834 } from '../edi-834/edi-834.parse.js'
import { tokenizeX12 } from '../edi-834/x12-tokenize.js'
import type { DiscrepancyParameter } from '../errors/discrepancy-messages.js'
import { autoResolveErrors, raiseErrors, type FoundDiscrepancy } from '../errors/raise-errors.js'
import { emitEvent } from '../events/events.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { censusSubscribersFrom834 } from './census-from-834.js'
import type { CensusSubscriberInputT, CreateCensusRequestInput } from './census-input.schema.js'
import { censusMembers, platformMembers } from './census-members.js'
import { maskCensusSsns } from './census-ssn.js'
import { censusInputInvalid } from './census.errors.js'
import { findCensusRequest } from './census-read.repo.js'
import * as repo from './census.repo.js'
import type { CensusRequest } from './census.schema.js'
import { reconcile } from './reconcile.js'
import type { ComparableMember, FoundMemberDiscrepancy } from './reconcile.model.js'

export const RECONCILIATION_RESOLUTION = 'Resolved automatically: the latest census from the carrier no longer shows this discrepancy.'

/** How a carrier-only member is told apart from another: the carrier's id, else its name and birth date. */
function subjectOf(member: ComparableMember | undefined): string | undefined {
  if (!member) return undefined
  const identity = member.carrierMemberId ?? `${member.firstName}|${member.lastName}|${member.birthDate ?? ''}`.toLowerCase()
  return createHash('sha256').update(identity).digest('hex').slice(0, 16)
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Whether an 834's transaction set is closed by its SE. parse834 reads members up to SE or the
 * end of the text, so a file cut short in transit would otherwise read as a carrier lacking every
 * member after the cut: errors raised for each of them, their open errors resolved. Only the ISA
 * is tokenized here (for the separators); the rest is one search, not a second parse.
 */
function transactionSetClosed(text: string): boolean {
  const { separators } = tokenizeX12(text.slice(0, text.indexOf('ISA') + 1024))
  return new RegExp(`${escapeRegExp(separators.segment)}\\s*SE${escapeRegExp(separators.element)}`).test(text)
}

export interface CensusResult {
  created: boolean
  censusRequest: CensusRequest
}

export function createCensusService(deps: { db: Db; ssn: SsnProtection; carriers: CarrierCatalog }) {
  const { db } = deps

  /** The census as subscribers, whatever its format; an unreadable 834 is a 422 naming the segment. */
  function readCensus(input: CreateCensusRequestInput): { format: 'json' | 'x12_834'; subscribers: CensusSubscriberInputT[]; text: string } {
    if ((input.subscribers === undefined) === (input.x12_834 === undefined)) {
      throw censusInputInvalid('Send exactly one of census_request.subscribers (JSON) or census_request.x12_834 (an 834 audit file).', '/census_request')
    }
    if (input.subscribers) return { format: 'json', subscribers: input.subscribers, text: JSON.stringify(input.subscribers) }
    try {
      const parsed = parse834(input.x12_834!)
      if (!transactionSetClosed(input.x12_834!)) {
        throw censusInputInvalid('The 834 file cannot be read: its transaction set has no SE trailer (the file is cut short).', '/census_request/x12_834')
      }
      return { format: 'x12_834', subscribers: censusSubscribersFrom834(parsed.members), text: input.x12_834! }
    } catch (error) {
      if (error instanceof Edi834ParseError) throw censusInputInvalid(`The 834 file cannot be read: ${error.message}`, '/census_request/x12_834')
      throw error
    }
  }

  /**
   * Posts a census and reconciles it with the platform's data in one transaction: every
   * discrepancy raises (or updates, or reopens) an error of source reconciliation linked to the
   * census request; reconciliation errors it no longer finds are resolved; the submitted
   * transactions of the families it covers become synced, or errors where discrepancies remain.
   * The same census posted again (same content as the coverage period's latest) changes nothing.
   */
  async function submitCensus(actor: Actor, coveragePeriodId: string, input: CreateCensusRequestInput, options: { submittedBy?: string } = {}): Promise<CensusResult> {
    const cp = await repo.findCoveragePeriod(db, coveragePeriodId)
    if (!cp) throw coveragePeriodNotFound()
    const census = readCensus(input)
    const asOf = input.as_of ?? new Date().toISOString().slice(0, 10)
    const contentSha256 = createHash('sha256').update(census.format).update('\n').update(census.text).digest('hex')
    const latest = await repo.latestCensusRequest(db, cp.id)
    if (latest && latest.content_sha256 === contentSha256) {
      return { created: false, censusRequest: (await findCensusRequest(db, undefined, latest.id))! }
    }

    const plans = await repo.planReferences(db, cp.id)
    const planByReference = new Map<string, string>()
    for (const plan of plans) {
      planByReference.set(plan.id, plan.id)
      planByReference.set(plan.external_identifier.toLowerCase(), plan.id)
    }
    const carrierSide = censusMembers(census.subscribers, (reference) => planByReference.get(reference.toLowerCase()) ?? null, (digits) => deps.ssn.hash(digits))
    const families = await loadAllFamilies(db, windowOf(cp))
    const platform = platformMembers(families)
    const carrier = deps.carriers.find(cp.carrier_name)
    const result = reconcile(platform, carrierSide.members, carrier?.gender_mapping ? { genderMapping: carrier.gender_mapping } : {})
    // A field the census does not carry at all says nothing about the member (see census-members.ts).
    const found = result.discrepancies.filter(
      (d) => d.kind !== 'carrier_missing' || d.censusKey === null || (carrierSide.carried.get(d.censusKey)?.has(d.parameter) ?? true),
    )
    const problems = [...new Set(result.discrepancies.filter((d) => d.parameter === 'plan_id').map((d) => `Unknown plan ${JSON.stringify(d.carrier)}: no plan of the coverage period has this id or external identifier.`))]

    const subscriberOfMember = new Map<string, string>()
    for (const family of families) for (const m of [family.subscriber, ...family.dependents]) subscriberOfMember.set(m.id, family.subscriber.id)
    const censusByKey = new Map(carrierSide.members.map((m) => [m.key, m]))
    const now = new Date()
    const censusRequestId = uuidv7()

    await db.transaction().execute(async (tx) => {
      // Written completed, before any error links it: the errors' rendered copy stays true.
      await repo.insertCensusRequest(tx, {
        id: censusRequestId,
        account_id: cp.account_id,
        coverage_period_id: cp.id,
        group_id: cp.group_id,
        format: census.format,
        submitted_by: options.submittedBy ?? actorName(actor),
        as_of: asOf,
        status: 'completed',
        content_sha256: contentSha256,
        errors: JSON.stringify(problems),
        created_at: now,
        completed_at: now,
      })
      const matchedSubscriber = new Map(result.match.pairs.filter((p) => p.carrier.kind === 'subscriber').map((p) => [p.carrier.key, p.platform.key]))
      await repo.insertCensusSubscribers(tx, censusRequestId, census.subscribers, (subscriber, position) => ({
        matched_subscriber_id: matchedSubscriber.get(String(position)) ?? null,
        // Kept for reading back only, so the carrier's SSNs are kept masked.
        data: JSON.stringify(maskCensusSsns(subscriber)),
      }))
      // The carrier's member ids, learnt from this census: the first matching rule next time.
      const learnt = result.match.pairs.flatMap((p) =>
        p.carrier.carrierMemberId && p.carrier.carrierMemberId !== p.platform.carrierMemberId ? [{ memberId: p.platform.key, carrierMemberId: p.carrier.carrierMemberId }] : [],
      )
      await repo.setCarrierMemberIds(tx, learnt)

      // Families with transactions awaiting the carrier: the census settles them.
      const submitted = await repo.submittedTransactions(tx, cp.id)
      const transactionsOf = new Map<string, string[]>()
      for (const t of submitted) transactionsOf.set(t.subscriber_id, [...(transactionsOf.get(t.subscriber_id) ?? []), t.id])
      const familyOf = (d: FoundMemberDiscrepancy) => (d.memberId ? subscriberOfMember.get(d.memberId) : undefined)

      const raised = await raiseErrors(
        tx,
        actor,
        { accountId: cp.account_id, coveragePeriodId: cp.id, groupId: cp.group_id, source: 'reconciliation', censusRequestId },
        found.map((d): FoundDiscrepancy => {
          const family = familyOf(d)
          const carrierOnly = d.kind === 'platform_missing' && (d.parameter === 'subscriber' || d.parameter === 'dependent')
          const subject = carrierOnly || d.parameter === 'plan_id' ? subjectOf(d.censusKey ? censusByKey.get(d.censusKey) : undefined) : undefined
          return {
            memberId: d.memberId,
            planId: d.planId,
            parameter: d.parameter,
            kind: d.kind,
            carrier: d.carrier,
            platform: d.platform,
            ...(family && transactionsOf.has(family) ? { transactionIds: transactionsOf.get(family)! } : {}),
            ...(subject ? { subject: d.parameter === 'plan_id' ? `${subject}:${String(d.carrier)}` : subject } : {}),
          }
        }),
        now,
      )
      // An open error about an item a matched member's census record does not carry stays open:
      // the census says nothing about it (see census-members.ts), so it cannot show it is gone.
      const carriedOf = new Map(result.match.pairs.map((p) => [p.platform.key, carrierSide.carried.get(p.carrier.key)]))
      const open = await repo.openReconciliationErrors(tx, cp.id)
      const uncompared = open
        .filter((e) => carriedOf.get(e.member_id!)?.has(e.discrepancy_parameter as DiscrepancyParameter) === false)
        .map((e) => e.dedupe_key!)
      const resolved = await autoResolveErrors(
        tx,
        actor,
        { coveragePeriodId: cp.id, source: 'reconciliation', keepDedupeKeys: [...raised.map((r) => r.dedupeKey), ...uncompared] },
        { message: RECONCILIATION_RESOLUTION, resolvedBy: 'reconciliation' },
        now,
      )
      await repo.linkErrorsToCensus(tx, resolved, censusRequestId)

      const withErrors = new Set(found.map(familyOf).filter((id): id is string => id !== undefined))
      const settled = submitted.filter((t) => subscriberOfMember.has(t.subscriber_id))
      const toSynced = settled.filter((t) => !withErrors.has(t.subscriber_id)).map((t) => t.id)
      const toErrors = settled.filter((t) => withErrors.has(t.subscriber_id)).map((t) => t.id)
      await repo.completeTransactions(tx, toSynced, 'synced', now)
      await repo.completeTransactions(tx, toErrors, 'errors', now)
      await refreshFamilyStatuses(tx, settled.map((t) => ({ subscriberId: t.subscriber_id, coveragePeriodId: cp.id })), now)

      const counts: repo.CensusCounts = {
        subscriber_count: census.subscribers.length,
        member_count: carrierSide.members.length,
        matched_count: result.match.pairs.length,
        discrepancy_count: found.length,
        errors_created: raised.filter((r) => r.outcome === 'created').length,
        errors_reopened: raised.filter((r) => r.outcome === 'reopened').length,
        errors_resolved: resolved.length,
      }
      await repo.recordCensusCounts(tx, censusRequestId, counts)
      await recordAuditEvent(tx, actor, { accountId: cp.account_id, action: 'census_request.created', resourceType: 'census_request', resourceId: censusRequestId })
      await emitEvent(
        tx,
        {
          type: 'census_request.completed',
          accountId: cp.account_id,
          coveragePeriodId: cp.id,
          groupId: cp.group_id,
          data: { census_request_id: censusRequestId, coverage_period_id: cp.id, group_id: cp.group_id, status: 'completed', ...counts },
        },
        now,
      )
    })
    return { created: true, censusRequest: (await findCensusRequest(db, undefined, censusRequestId))! }
  }

  return { submitCensus }
}

export type CensusService = ReturnType<typeof createCensusService>
