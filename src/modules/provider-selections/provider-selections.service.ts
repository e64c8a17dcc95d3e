import type { Db } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { isNpi } from '../../lib/identifiers.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { resolvePcpErrorsForSelection } from '../errors/raise-errors.js'
import { memberNotFound, findMember, unstorableTextProblems } from '../members/index.js'
import { duplicateProviderSelection, providerSelectionValidationFailed } from './provider-selections.errors.js'
import * as repo from './provider-selections.repo.js'
import type { ProviderSelection, ProviderSelectionInput } from './provider-selections.schema.js'


export function presentProviderSelection(row: repo.ProviderSelectionRow): ProviderSelection {
  return {
    id: row.id,
    member_id: row.member_id,
    plan_id: row.plan_id,
    npi: row.npi,
    first_name: row.first_name,
    last_name: row.last_name,
    organization_name: row.organization_name,
    effective_date: row.effective_date,
    existing_patient: row.existing_patient,
    created_at: row.created_at.toISOString(),
  }
}

const PLAN_POINTER = '/provider_selection/plan_id'

export function createProviderSelectionsService({ db }: { db: Db }) {
  async function requireMember(actor: Actor, memberId: string) {
    const member = await findMember(db, accountScopeOf(actor), memberId)
    if (!member) throw memberNotFound()
    return member
  }

  return {
    /**
     * The plan must be a health_maintenance_organization medical plan the member has a coverage in
     * (elected through a qualifying life event); the NPI must carry a valid check digit.
     */
    async createSelection(actor: Actor, memberId: string, input: ProviderSelectionInput): Promise<ProviderSelection> {
      const member = await requireMember(actor, memberId)
      const problems: FieldProblem[] = unstorableTextProblems(input, '/provider_selection')
      if (!isNpi(input.npi)) {
        problems.push({ pointer: '/provider_selection/npi', detail: 'must be 10 digits whose last is a valid NPI check digit', code: 'invalid_npi' })
      }
      // Scoped to the member's account: another account's plan is refused like an unknown one.
      const plan = await repo.planForMember(db, member.account_id, input.plan_id, member.id)
      if (!plan) {
        problems.push({ pointer: PLAN_POINTER, detail: 'is not a plan of your account', code: 'unknown_plan' })
      } else if (plan.product_line !== 'medical' || plan.product_type !== 'health_maintenance_organization') {
        problems.push({ pointer: PLAN_POINTER, detail: 'must be a medical plan with product_type health_maintenance_organization', code: 'not_hmo_medical_plan' })
      } else if (!plan.memberCovered) {
        problems.push({ pointer: PLAN_POINTER, detail: 'the member is not elected into this plan (no coverage in a qualifying life event)', code: 'member_not_elected' })
      }
      if (problems.length > 0) throw providerSelectionValidationFailed(problems)
      const row = await db.transaction().execute(async (tx) => {
        await repo.lockMember(tx, member.id)
        if (await repo.selectionExists(tx, member.id, input.plan_id, input.effective_date)) throw duplicateProviderSelection()
        const inserted = await repo.insertSelection(tx, {
          id: uuidv7(),
          account_id: member.account_id,
          member_id: member.id,
          plan_id: input.plan_id,
          npi: input.npi,
          first_name: input.first_name ?? null,
          last_name: input.last_name ?? null,
          organization_name: input.organization_name ?? null,
          effective_date: input.effective_date,
          existing_patient: input.existing_patient ?? null,
        })
        await recordAuditEvent(tx, actor, { accountId: member.account_id, action: 'provider_selection.created', resourceType: 'provider_selection', resourceId: inserted.id })
        // The selection cures the "PCP required" error of this member and plan, if one is open.
        await resolvePcpErrorsForSelection(tx, actor, { memberId: member.id, planId: input.plan_id })
        return inserted
      })
      return presentProviderSelection(row)
    },

    async listSelections(actor: Actor, memberId: string, pageReq: PageRequest): Promise<{ items: ProviderSelection[]; total: number }> {
      const member = await requireMember(actor, memberId)
      const { items, total } = await repo.listSelections(db, member.id, pageReq)
      return { items: items.map(presentProviderSelection), total }
    },
  }
}

export type ProviderSelectionsService = ReturnType<typeof createProviderSelectionsService>
