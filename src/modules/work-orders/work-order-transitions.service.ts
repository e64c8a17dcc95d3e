import { sql, type Selectable, type Transaction } from 'kysely'
import type { CoveragePeriodState, CoveragePeriodsTable, Database, Db, WorkOrderStatus } from '../../db/schema.js'
import { actorName, type Actor } from '../../lib/actor.js'
import { maskSsnsInText } from '../../lib/free-text-masking.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import type { Carrier } from '../carriers/carriers.schema.js'
import { emitEvent } from '../events/events.js'
import { allowedTransitions, isAllowedTransition } from './work-order-states.js'
import { carrierGroupNumberRequired, transitionNotAllowed, transitionOfExpiredCoveragePeriod, workOrderNotFoundById } from './work-orders.errors.js'
import * as repo from './work-orders.repo.js'
import type { WorkOrder, WorkOrderHistoryEntryT, WorkOrderTransitionInput } from './work-orders.schema.js'
import { presentWorkOrder } from './work-orders.service.js'

export type CoveragePeriodRow = Selectable<CoveragePeriodsTable>

/** What the carrier side needs to act on a work order's move, inside its transaction. */
export interface TransitionContext {
  actor: Actor
  now: Date
  workOrderId: string
  /** The coverage period as it is after the move (state, carrier group number). */
  coveragePeriod: CoveragePeriodRow
  carrier: Carrier | undefined
}

/**
 * The carrier side's part of the installation: sending the group when the order is submitted
 * (an 834 file, an API submission, or nothing for a manual carrier). Kept behind this interface
 * so work orders do not depend on how each carrier is reached.
 */
export interface InstallationHooks {
  submitted(tx: Transaction<Database>, context: TransitionContext): Promise<void>
}

export const NO_INSTALLATION_HOOKS: InstallationHooks = { submitted: async () => {} }

/** Who a history entry names; a sandbox carrier acting passes its own label. */
export interface TransitionOptions {
  by?: string
}

export function createWorkOrderTransitionsService(deps: { db: Db; carriers: CarrierCatalog; hooks?: InstallationHooks }) {
  const { db, carriers } = deps
  const hooks = deps.hooks ?? NO_INSTALLATION_HOOKS

  async function moveCoveragePeriodState(tx: Transaction<Database>, actor: Actor, cp: CoveragePeriodRow, to: CoveragePeriodState, now: Date, extra: { installed_at?: Date; carrier_group_number?: string } = {}) {
    const updated = await tx
      .updateTable('coverage_periods')
      .set({ state: to, updated_at: now, ...extra })
      .where('id', '=', cp.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    await recordAuditEvent(tx, actor, { accountId: cp.account_id, action: `coverage_period.${to}`, resourceType: 'coverage_period', resourceId: cp.id })
    if (cp.state !== to) {
      await emitEvent(
        tx,
        {
          type: 'coverage_period.state_changed',
          accountId: cp.account_id,
          coveragePeriodId: cp.id,
          groupId: cp.group_id,
          data: { coverage_period_id: cp.id, group_id: cp.group_id, previous_state: cp.state, state: to },
        },
        now,
      )
    }
    return updated
  }

  /** submitted: the coverage period goes to test (sent to the carrier) unless it is further on. */
  async function onSubmitted(tx: Transaction<Database>, actor: Actor, cp: CoveragePeriodRow, now: Date): Promise<CoveragePeriodRow> {
    if (cp.state !== 'initial' && cp.state !== 'configuration') return cp
    return moveCoveragePeriodState(tx, actor, cp, 'test', now)
  }

  /**
   * completed: production, installed_at and the carrier's group number; the installment is
   * installed; a carrier connection with member management moves the group into that phase.
   */
  async function onCompleted(tx: Transaction<Database>, actor: Actor, cp: CoveragePeriodRow, carrier: Carrier | undefined, groupNumber: string, now: Date) {
    const updated = await moveCoveragePeriodState(tx, actor, cp, 'production', now, { installed_at: now, carrier_group_number: groupNumber })
    const installments = await tx
      .updateTable('group_installments')
      .set({ status: 'installed', updated_at: now })
      .where('coverage_period_id', '=', cp.id)
      .where('status', '<>', 'installed')
      .returning('id')
      .execute()
    for (const installment of installments) {
      await recordAuditEvent(tx, actor, { accountId: cp.account_id, action: 'group_installment.installed', resourceType: 'group_installment', resourceId: installment.id })
    }
    if (carrier?.member_management) {
      const moved = await tx
        .updateTable('groups')
        .set({ phase: 'member_management', updated_at: now })
        .where('id', '=', cp.group_id)
        .where('phase', '=', 'installation')
        .returning('id')
        .execute()
      if (moved.length > 0) {
        await recordAuditEvent(tx, actor, { accountId: cp.account_id, action: 'group.member_management_started', resourceType: 'group', resourceId: cp.group_id })
      }
    }
    return updated
  }

  async function transition(actor: Actor, workOrderId: string, input: WorkOrderTransitionInput, options: TransitionOptions = {}): Promise<WorkOrder> {
    return db.transaction().execute(async (tx) => {
      const workOrder = await repo.lockWorkOrder(tx, workOrderId)
      if (!workOrder) throw workOrderNotFoundById()
      const from = workOrder.status as WorkOrderStatus
      if (!isAllowedTransition(from, input.status)) throw transitionNotAllowed(from, input.status, allowedTransitions(from))
      const cp = await tx.selectFrom('coverage_periods').selectAll().where('id', '=', workOrder.coverage_period_id).forUpdate().executeTakeFirstOrThrow()
      if (cp.state === 'expired' && (input.status === 'submitted' || input.status === 'completed')) throw transitionOfExpiredCoveragePeriod(input.status)
      const groupNumber = input.carrier_group_number ?? cp.carrier_group_number
      if (input.status === 'completed' && !groupNumber) throw carrierGroupNumberRequired()

      const now = new Date()
      const entry: WorkOrderHistoryEntryT = { status: input.status, at: now.toISOString(), by: options.by ?? actorName(actor), message: maskSsnsInText(input.message) }
      await tx
        .updateTable('work_orders')
        .set({ status: input.status, history: sql`history || ${JSON.stringify([entry])}::jsonb`, status_changed_at: now, updated_at: now })
        .where('id', '=', workOrder.id)
        .execute()
      await recordAuditEvent(tx, actor, { accountId: workOrder.account_id, action: `work_order.${input.status}`, resourceType: 'work_order', resourceId: workOrder.id })
      await emitEvent(
        tx,
        {
          type: 'work_order.status_changed',
          accountId: workOrder.account_id,
          coveragePeriodId: cp.id,
          groupId: cp.group_id,
          data: { work_order_id: workOrder.id, coverage_period_id: cp.id, group_id: cp.group_id, previous_status: from, status: input.status },
        },
        now,
      )

      const carrier = carriers.find(cp.carrier_name)
      const context = (coveragePeriod: CoveragePeriodRow): TransitionContext => ({ actor, now, workOrderId: workOrder.id, coveragePeriod, carrier })
      if (input.status === 'submitted') {
        await hooks.submitted(tx, context(await onSubmitted(tx, actor, cp, now)))
      } else if (input.status === 'completed') {
        await onCompleted(tx, actor, cp, carrier, groupNumber!, now)
      } else if (input.status === 'cancelled') {
        await tx
          .updateTable('group_installments')
          .set({ status: 'cancelled', updated_at: now })
          .where('coverage_period_id', '=', cp.id)
          .where('status', '<>', 'installed')
          .execute()
      }
      return presentWorkOrder((await repo.findWorkOrder(tx, workOrder.id))!)
    })
  }

  return { transition }
}

export type WorkOrderTransitionsService = ReturnType<typeof createWorkOrderTransitionsService>
