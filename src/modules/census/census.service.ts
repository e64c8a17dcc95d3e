import type { Db } from '../../db/schema.js'
import { actorName, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { withBoundedHeapGrowth } from '../../lib/heap-growth.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { windowOf } from '../members/index.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { autoResolveErrors, raiseErrors } from '../errors/raise-errors.js'
import { emitEvent } from '../events/events.js'
import { BatchWrites, settlingOnFailure } from './batch-writes.js'
import { CensusComparison } from './census-comparison.js'
import type { CreateCensusRequestInput } from './census-input.schema.js'
import * as matching from './census-matching.repo.js'
import { readCensusKeys, readPlatformKeys } from './census-pairing.js'
import { censusFromInput, type CensusSource } from './census-source.js'
import { findCensusRequest } from './census-read.repo.js'
import * as repo from './census.repo.js'
import type { CensusRequest } from './census.schema.js'
import type { ReconcileOptions } from './reconcile.model.js'

export const RECONCILIATION_RESOLUTION = 'Resolved automatically: the latest census from the carrier no longer shows this discrepancy.'

/**
 * Census subscribers (and platform families) handled together: enough for few statements per
 * family, few enough that memory does not grow with the census (a batch of families with their
 * coverages is a few megabytes).
 */
const FAMILY_BATCH = 250

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

export function createCensusService(deps: { db: Db; ssn: SsnProtection; carriers: CarrierCatalog; heapGrowingPercent?: number }) {
  const { db } = deps
  // V8's own policy unless told (CENSUS_HEAP_GROWING_PERCENT, carrier-settings.ts, sets it for the service).
  const heapGrowingPercent = deps.heapGrowingPercent ?? 0

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
   * platform's subscribers' keys join them, and SQL pairs them over everyone (census-pairing.ts);
   * the second reading loads the paired families a batch at a time and compares them, then the
   * platform families no census subscriber paired (census-comparison.ts). Only what was found is
   * kept to the end, where the errors are raised in one sorted pass, as before streaming.
   */
  async function submitCensusSource(actor: Actor, coveragePeriodId: string, source: CensusSource, options: { submittedBy?: string } = {}): Promise<CensusResult> {
    return withBoundedHeapGrowth(heapGrowingPercent, () => reconcileCensus(actor, coveragePeriodId, source, options), { collectFirst: true })
  }

  /** submitCensusSource's work, with the heap's growth bounded around it. */
  async function reconcileCensus(actor: Actor, coveragePeriodId: string, source: CensusSource, options: { submittedBy?: string }): Promise<CensusResult> {
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
        const writes = new BatchWrites()
        const platformWrites = new BatchWrites()
        // Both sides' keys at once, each with its own writes in flight: the census's reading is
        // this process's work, the platform's mostly the database's.
        // Both, and their writes, are waited for even when one fails: nothing may still use the
        // transaction once it rolls back (batch-writes.ts).
        const { subscriberCount, contentSha256 } = await settlingOnFailure([writes, platformWrites], async () => {
          const [censusKeys, platformKeys] = await Promise.allSettled([
            readCensusKeys(tx, source, hashSsn, writes, FAMILY_BATCH),
            readPlatformKeys(tx, cp.id, platformWrites, FAMILY_BATCH),
          ])
          if (censusKeys.status === 'rejected') throw censusKeys.reason
          if (platformKeys.status === 'rejected') throw platformKeys.reason
          return censusKeys.value
        })
        const latest = await repo.latestCensusRequest(tx, cp.id)
        if (latest && latest.content_sha256 === contentSha256) throw new SameCensusAgain(latest.id)
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
        const comparison = new CensusComparison({ tx, coveragePeriodId: cp.id, window, censusRequestId, compareOptions, resolvePlan, hashSsn, writes, batchSize: FAMILY_BATCH, now })
        await settlingOnFailure([writes], () => comparison.compare(source))
        const found = comparison.discrepancies()

        // Before any error links the census request: their rendered copy of it shows these.
        const unknownPlans = found.sorted.filter((d) => d.parameter === 'plan_id').map((d) => `Unknown plan ${JSON.stringify(d.carrier)}: no plan of the coverage period has this id or external identifier.`)
        await repo.recordCensusProblems(tx, censusRequestId, [...new Set(unknownPlans)])
        const raised = await raiseErrors(
          tx,
          actor,
          { accountId: cp.account_id, coveragePeriodId: cp.id, groupId: cp.group_id, source: 'reconciliation', censusRequestId },
          found.toRaise,
          now,
        )
        const resolved = await autoResolveErrors(
          tx,
          actor,
          { coveragePeriodId: cp.id, source: 'reconciliation', keepDedupeKeys: [...raised.map((r) => r.dedupeKey), ...comparison.uncompared] },
          { message: RECONCILIATION_RESOLUTION, resolvedBy: 'reconciliation' },
          now,
        )
        await repo.linkErrorsToCensus(tx, resolved, censusRequestId)

        const totals: repo.CensusCounts = {
          subscriber_count: subscriberCount,
          member_count: comparison.memberCount,
          matched_count: comparison.matchedCount,
          discrepancy_count: found.sorted.length,
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
