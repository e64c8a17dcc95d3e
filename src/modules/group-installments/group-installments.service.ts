import type { Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import type { Db, Executor } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { findGroupsByIds } from '../groups/groups.repo.js'
import { accountScopeOf } from '../../lib/actor.js'
import { assertValidNewGroup, insertNewGroup, presentGroups } from '../groups/groups.service.js'
import { groupInstallmentNotFound } from './group-installments.errors.js'
import * as repo from './group-installments.repo.js'
import { STEP_NAMES, type GroupInstallment, type NewInstallmentGroupT, type ProgressStepT } from './group-installments.schema.js'

/** The seven steps of service-interface.md section 1, each done, pending or (step 4) optional. */
export function progressFrom(facts: repo.ProgressFacts): ProgressStepT[] {
  const done: Record<(typeof STEP_NAMES)[number], boolean> = {
    group: true,
    coverage_period: facts.coverage_period_id !== null,
    plans: facts.has_plans,
    employment_classifications: facts.has_classifications,
    subscribers: facts.has_subscribers,
    qualifying_life_events: facts.has_life_events,
    complete_setup: facts.setup_completed_at !== null,
  }
  return STEP_NAMES.map((name, n) => ({
    step: n + 1,
    name,
    status: done[name] ? 'done' : name === 'employment_classifications' ? 'optional' : 'pending',
  }))
}

/**
 * The stored status moves forward with the coverage period even if the step that completes setup
 * or installation has not updated it: what the client sees follows the data.
 */
function statusOf(row: repo.InstallmentRow, facts: repo.ProgressFacts): GroupInstallment['status'] {
  if (row.status === 'cancelled' || row.status === 'installed') return row.status
  if (facts.installed_at) return 'installed'
  if (facts.setup_completed_at) return 'setup_completed'
  return row.status
}

async function presentInstallments(db: Executor, rows: readonly repo.InstallmentRow[]): Promise<GroupInstallment[]> {
  const [facts, groupRows] = await Promise.all([
    repo.progressFacts(
      db,
      rows.map((row) => row.id),
    ),
    findGroupsByIds(
      db,
      rows.map((row) => row.group_id),
    ),
  ])
  const groups = await presentGroups(db, groupRows)
  return rows.map((row) => {
    const fact = facts.find((f) => f.installment_id === row.id)!
    return {
      id: row.id,
      status: statusOf(row, fact),
      carrier_name: row.carrier_name,
      group: groups.find((g) => g.id === row.group_id)!,
      coverage_period_id: fact.coverage_period_id,
      work_order_id: fact.work_order_id,
      progress: progressFrom(fact),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    }
  })
}

export function createGroupInstallmentsService({ db, carriers }: { db: Db; carriers: CarrierCatalog }) {
  return {
    /** Step 1: the group, its locations and producers, and the installment, in one transaction. */
    async createInstallment(actor: Actor, input: NewInstallmentGroupT): Promise<GroupInstallment> {
      const { group_setup: setup, ...group } = input
      const carrierProblems: FieldProblem[] = carriers.find(setup.carrier_name)
        ? []
        : [{ pointer: '/group/group_setup/carrier_name', detail: 'is not a carrier of this deployment; see GET /carriers for the accepted names', code: 'unknown_carrier' }]
      assertValidNewGroup(group, '/group', carrierProblems)
      return db.transaction().execute(async (tx) => {
        const groupRow = await insertNewGroup(tx, actor, group, '/group')
        const row = await repo.insertInstallment(tx, { id: uuidv7(), account_id: actor.accountId, group_id: groupRow.id, carrier_name: setup.carrier_name })
        await recordAuditEvent(tx, actor, { accountId: actor.accountId, action: 'group_installment.created', resourceType: 'group_installment', resourceId: row.id })
        return (await presentInstallments(tx, [row]))[0]!
      })
    },

    async getInstallment(actor: Actor, id: string): Promise<GroupInstallment> {
      const row = await repo.findInstallment(db, accountScopeOf(actor), id)
      if (!row) throw groupInstallmentNotFound()
      return (await presentInstallments(db, [row]))[0]!
    },

    async listInstallments(actor: Actor, pageReq: PageRequest) {
      const { items, total } = await repo.listInstallments(db, accountScopeOf(actor), pageReq)
      return { items: await presentInstallments(db, items), total }
    },
  }
}

export type GroupInstallmentsService = ReturnType<typeof createGroupInstallmentsService>
