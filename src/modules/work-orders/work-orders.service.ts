import type { Actor } from '../../lib/actor.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { uuidv7 } from '../../lib/ids.js'
import { sql, type Transaction } from 'kysely'
import type { CoveragePeriodState, Database, Db } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { autoResolveErrors, raiseErrors } from '../errors/raise-errors.js'
import { emitEvent } from '../events/events.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { findCoveragePeriod } from '../coverage-periods/coverage-periods.repo.js'
import { accountScopeOf, actorName } from '../../lib/actor.js'
import { groupInstallmentNotFound } from '../group-installments/group-installments.errors.js'
import { findInstallment } from '../group-installments/group-installments.repo.js'
import { setupIncomplete, workOrderNotFound } from './work-orders.errors.js'
import { allowedTransitions } from './work-order-states.js'
import * as repo from './work-orders.repo.js'
import type { WorkOrder, WorkOrderHistoryEntryT } from './work-orders.schema.js'

/** Why the PCP check resolves an error it raised before. */
const PCP_CHECK_RESOLUTION = 'Resolved automatically: the primary care provider check no longer finds this enrollment without a selection.'
export const WORK_ORDER_OPENED_MESSAGE = 'Setup completed; work order opened for the operations team.'

export function presentWorkOrder(row: repo.WorkOrderRow): WorkOrder {
  return {
    id: row.id,
    account_id: row.account_id,
    account_name: row.account_name,
    coverage_period_id: row.coverage_period_id,
    group_id: row.group_id,
    group_name: row.group_name,
    group_external_identifier: row.group_external_identifier,
    employer_name: row.group_name,
    coverage_period_external_identifier: row.coverage_period_external_identifier,
    carrier_name: row.carrier_name,
    status: row.status,
    status_changed_at: row.status_changed_at.toISOString(),
    age_seconds: row.age_seconds,
    // The foreign key keeps the user there whenever the id is set.
    assigned_user: row.assigned_user_id === null || row.assigned_user_email === null ? null : { id: row.assigned_user_id, email: row.assigned_user_email },
    allowed_transitions: [...allowedTransitions(row.status)],
    history: row.history as WorkOrderHistoryEntryT[],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

/**
 * The gaps of complete setup, all at once; an empty list means the setup can be completed. A
 * renewal (the group has an installed coverage period) may complete its setup before any life
 * event: its members' elections for the new year come as open_enrollment events afterwards, so
 * only the first installation needs an enrolled subscriber.
 */
export function setupGaps(facts: repo.Completeness & { expired?: boolean }): FieldProblem[] {
  const gaps: FieldProblem[] = []
  if (facts.expired) {
    gaps.push({ code: 'coverage_period_expired', detail: 'The coverage period is expired (its coverage_end_date has passed): its setup can no longer be completed.' })
  }
  if (!facts.has_plans) {
    gaps.push({ code: 'no_plans', detail: 'The coverage period has no plan: add one with POST /coverage_periods/{id}/plans (step 3).' })
  }
  if (!facts.has_enrolled_subscribers && !facts.is_renewal) {
    gaps.push({
      code: 'no_enrolled_subscribers',
      detail: 'No subscriber of the group has a qualifying life event on this coverage period: add one with POST /subscribers/{id}/qualifying_life_events (step 6).',
    })
  }
  if (facts.producer_count > 0 && (facts.split_total === null || Number(facts.split_total) !== 100)) {
    gaps.push({
      code: 'invalid_commission_splits',
      detail: "The commission splits of the group's producers of record must sum to exactly 100: correct them with PUT /groups/{id}.",
    })
  }
  return gaps
}

export interface SetupResult {
  created: boolean
  workOrder: WorkOrder
}

export function createWorkOrdersService({ db, carriers }: { db: Db; carriers: CarrierCatalog }) {
  /**
   * One transaction holding the coverage period's row lock: a second call waits, then finds the
   * work order and changes nothing. The unique index on work_orders.coverage_period_id backs it.
   */
  async function completeSetupOnce(actor: Actor, coveragePeriodId: string): Promise<SetupResult> {
    return db.transaction().execute(async (tx) => {
      const cp = await repo.lockCoveragePeriod(tx, accountScopeOf(actor), coveragePeriodId)
      if (!cp) throw coveragePeriodNotFound()
      const existing = await repo.findWorkOrderOfCoveragePeriod(tx, cp.id)
      if (existing) return { created: false, workOrder: presentWorkOrder(existing) }

      const gaps = setupGaps({ ...(await repo.completeness(tx, cp)), expired: cp.state === 'expired' })
      if (gaps.length > 0) throw setupIncomplete(gaps)

      const now = new Date()
      const history: WorkOrderHistoryEntryT[] = [{ status: 'open', at: now.toISOString(), by: actorName(actor), message: WORK_ORDER_OPENED_MESSAGE }]
      const audit = { accountId: cp.account_id }
      const workOrderId = uuidv7()
      await tx
        .insertInto('work_orders')
        .values({ id: workOrderId, account_id: cp.account_id, coverage_period_id: cp.id, status: 'open', history: JSON.stringify(history), status_changed_at: now, created_at: now, updated_at: now })
        .execute()
      await recordAuditEvent(tx, actor, { ...audit, action: 'work_order.created', resourceType: 'work_order', resourceId: workOrderId })
      const scope = { accountId: cp.account_id, coveragePeriodId: cp.id, groupId: cp.group_id }
      await emitEvent(
        tx,
        { ...scope, type: 'work_order.status_changed', data: { work_order_id: workOrderId, coverage_period_id: cp.id, group_id: cp.group_id, previous_status: null, status: 'open' } },
        now,
      )

      // An operator may already have moved the state on; only `initial` becomes `configuration`.
      await tx
        .updateTable('coverage_periods')
        .set({
          state: sql<CoveragePeriodState>`case when state = 'initial' then 'configuration' else state end`,
          setup_completed_at: sql<Date>`coalesce(setup_completed_at, ${now})`,
          updated_at: now,
        })
        .where('id', '=', cp.id)
        .execute()
      await recordAuditEvent(tx, actor, { ...audit, action: 'coverage_period.setup_completed', resourceType: 'coverage_period', resourceId: cp.id })
      if (cp.state === 'initial') {
        await emitEvent(
          tx,
          { ...scope, type: 'coverage_period.state_changed', data: { coverage_period_id: cp.id, group_id: cp.group_id, previous_state: 'initial', state: 'configuration' } },
          now,
        )
      }

      const installments = await tx
        .updateTable('group_installments')
        .set({ status: 'setup_completed', updated_at: now })
        .where('coverage_period_id', '=', cp.id)
        .where('status', '=', 'in_progress')
        .returning('id')
        .execute()
      for (const installment of installments) {
        await recordAuditEvent(tx, actor, { ...audit, action: 'group_installment.setup_completed', resourceType: 'group_installment', resourceId: installment.id })
      }

      await checkPcpSelections(tx, actor, cp, now)

      const row = await repo.findWorkOrderOfCoveragePeriod(tx, cp.id)
      return { created: true, workOrder: presentWorkOrder(row!) }
    })
  }

  /**
   * The PCP check: an error per member elected into an HMO medical plan without a provider
   * selection, when the carrier requires one. Raised through the shared check function, so a
   * later run updates or reopens these errors and resolves the ones no longer found.
   */
  async function checkPcpSelections(tx: Transaction<Database>, actor: Actor, cp: { id: string; account_id: string; group_id: string; carrier_name: string }, now: Date) {
    if (!carriers.find(cp.carrier_name)?.requires_pcp_for_hmo) return
    const missing = await repo.membersMissingPcp(tx, cp.id)
    const context = { accountId: cp.account_id, coveragePeriodId: cp.id, groupId: cp.group_id, source: 'api' as const }
    const raised = await raiseErrors(
      tx,
      actor,
      context,
      missing.map((m) => ({ memberId: m.member_id, planId: m.plan_id, parameter: 'primary_care_provider' as const, kind: 'platform_missing' as const })),
      now,
    )
    await autoResolveErrors(
      tx,
      actor,
      { coveragePeriodId: cp.id, source: 'api', parameters: ['primary_care_provider'], keepDedupeKeys: raised.map((r) => r.dedupeKey) },
      { message: PCP_CHECK_RESOLUTION, resolvedBy: actorName(actor) },
      now,
    )
  }

  async function completeSetup(actor: Actor, coveragePeriodId: string): Promise<SetupResult> {
    try {
      return await completeSetupOnce(actor, coveragePeriodId)
    } catch (error) {
      // Only reachable if the lock were bypassed: the other call's work order stands.
      if (isUniqueViolation(error, 'work_orders_coverage_period_id_key')) return completeSetupOnce(actor, coveragePeriodId)
      throw error
    }
  }

  return {
    /** Step 7: 201 (created) the first time, 200 with the same work order after. */
    completeSetup,

    /** Step 7 through the installment: its linked coverage period; 422 while it has none. */
    async completeInstallmentSetup(actor: Actor, installmentId: string): Promise<SetupResult> {
      const installment = await findInstallment(db, accountScopeOf(actor), installmentId)
      if (!installment) throw groupInstallmentNotFound()
      if (!installment.coverage_period_id) {
        throw setupIncomplete([
          { code: 'no_coverage_period', detail: 'The installment has no coverage period: add one with POST /groups/{id}/coverage_periods (step 2).' },
        ])
      }
      return completeSetup(actor, installment.coverage_period_id)
    },

    async getWorkOrder(actor: Actor, coveragePeriodId: string): Promise<WorkOrder> {
      const cp = await findCoveragePeriod(db, accountScopeOf(actor), coveragePeriodId)
      if (!cp) throw coveragePeriodNotFound()
      const row = await repo.findWorkOrderOfCoveragePeriod(db, cp.id)
      if (!row) throw workOrderNotFound()
      return presentWorkOrder(row)
    },
  }
}

export type WorkOrdersService = ReturnType<typeof createWorkOrdersService>
