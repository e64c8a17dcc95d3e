import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { DomainError, type FieldProblem } from '../../lib/domain-error.js'
import { uuidv7 } from '../../lib/ids.js'
import type { Db } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { groupNotFound } from '../groups/groups.errors.js'
import { duplicateEmploymentClassification, employmentClassificationNotFound } from './employment-classifications.errors.js'
import * as repo from './employment-classifications.repo.js'
import type { CreateEmploymentClassificationInput, EmploymentClassification } from './employment-classifications.schema.js'

export function presentEmploymentClassification(row: repo.EmploymentClassificationRow): EmploymentClassification {
  return {
    id: row.id,
    group_id: row.group_id,
    external_identifier: row.external_identifier,
    description: row.description,
    type: row.type,
    start_date: row.start_date,
    end_date: row.end_date,
    carrier_identifier: row.carrier_identifier,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}


/** Business rules beyond the schema: the classification must not end before it starts. */
export function employmentClassificationProblems(input: CreateEmploymentClassificationInput): FieldProblem[] {
  const problems: FieldProblem[] = []
  if (input.end_date && input.end_date < input.start_date) {
    problems.push({ pointer: '/employment_classification/end_date', code: 'before_start', detail: 'must be on or after start_date' })
  }
  return problems
}

export function createEmploymentClassificationsService({ db }: { db: Db }) {
  async function requireGroup(actor: Actor, groupId: string) {
    const group = await repo.findGroup(db, accountScopeOf(actor), groupId)
    if (!group) throw groupNotFound()
    return group
  }

  return {
    async createEmploymentClassification(actor: Actor, groupId: string, input: CreateEmploymentClassificationInput): Promise<EmploymentClassification> {
      const group = await requireGroup(actor, groupId)
      const problems = employmentClassificationProblems(input)
      if (problems.length > 0) {
        throw new DomainError('validation_failed', `The employment classification has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems)
      }
      try {
        return await db.transaction().execute(async (tx) => {
          const row = await repo.insertEmploymentClassification(tx, {
            id: uuidv7(),
            account_id: group.account_id,
            group_id: group.id,
            external_identifier: input.external_identifier,
            description: input.description,
            type: input.type,
            start_date: input.start_date,
            end_date: input.end_date ?? null,
            carrier_identifier: input.carrier_identifier ?? null,
          })
          await recordAuditEvent(tx, actor, {
            accountId: row.account_id,
            action: 'employment_classification.created',
            resourceType: 'employment_classification',
            resourceId: row.id,
          })
          return presentEmploymentClassification(row)
        })
      } catch (error) {
        if (isUniqueViolation(error, 'employment_classifications_group_external_identifier_key')) throw duplicateEmploymentClassification()
        throw error
      }
    },

    async getEmploymentClassification(actor: Actor, id: string): Promise<EmploymentClassification> {
      const row = await repo.findEmploymentClassification(db, accountScopeOf(actor), id)
      if (!row) throw employmentClassificationNotFound()
      return presentEmploymentClassification(row)
    },

    async listEmploymentClassifications(actor: Actor, groupId: string, pageReq: PageRequest) {
      const group = await requireGroup(actor, groupId)
      const { items, total } = await repo.listEmploymentClassifications(db, group.id, pageReq)
      return { items: items.map(presentEmploymentClassification), total }
    },
  }
}

export type EmploymentClassificationsService = ReturnType<typeof createEmploymentClassificationsService>
