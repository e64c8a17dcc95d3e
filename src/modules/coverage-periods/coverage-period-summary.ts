import { sql } from 'kysely'
import { Type, type Static } from 'typebox'
import type { Executor } from '../../db/schema.js'
import { Nullable, Uuid } from '../../http/schemas.js'

const Count = Type.Integer({ minimum: 0 })

export const CoveragePeriodSummarySchema = Type.Object(
  {
    coverage_period_id: Uuid,
    group_installment_id: Nullable({ ...Uuid, description: "The group installment this coverage period installs, if any (GET /group_installments/{id} has the setup's progress)" }),
    subscribers: { ...Count, description: 'Subscribers of the group' },
    dependents: { ...Count, description: 'Dependents of the group' },
    enrolled_members: { ...Count, description: 'Members (subscribers and dependents) with a coverage in one of its plans' },
    plans: { ...Count, description: 'Plans of the coverage period' },
    errors: Type.Object(
      { unresolved: Count, returned: Count, resolved: Count },
      { additionalProperties: false, description: 'Errors of the coverage period by status' },
    ),
  },
  { additionalProperties: false },
)
export type CoveragePeriodSummary = Static<typeof CoveragePeriodSummarySchema>

export const CoveragePeriodSummaryResponse = Type.Object(
  { summary: CoveragePeriodSummarySchema },
  {
    description: 'Counts of the coverage period',
    examples: [
      {
        summary: {
          coverage_period_id: '0193a4b2-0000-7000-8000-000000000010',
          group_installment_id: '0193a4b2-0000-7000-8000-000000000011',
          subscribers: 42,
          dependents: 57,
          enrolled_members: 95,
          plans: 3,
          errors: { unresolved: 4, returned: 1, resolved: 12 },
        },
      },
    ],
  },
)

/**
 * The counts an operator checks before sending a group (member counts, plans, open errors), in
 * one round trip. Error counts come from error_counts (kept by triggers), so a coverage period
 * with 100,000 errors answers as fast as one with none.
 */
export async function summariseCoveragePeriod(db: Executor, period: { id: string; group_id: string }): Promise<CoveragePeriodSummary> {
  const row = await db
    .selectNoFrom([
      sql<string | null>`(select id from group_installments where coverage_period_id = ${period.id} limit 1)`.as('group_installment_id'),
      sql<number>`(select count(*)::int from members where group_id = ${period.group_id} and kind = 'subscriber')`.as('subscribers'),
      sql<number>`(select count(*)::int from members where group_id = ${period.group_id} and kind = 'dependent')`.as('dependents'),
      sql<number>`(select count(distinct c.member_id)::int from coverages c join plans p on p.id = c.plan_id where p.coverage_period_id = ${period.id})`.as('enrolled_members'),
      sql<number>`(select count(*)::int from plans where coverage_period_id = ${period.id})`.as('plans'),
      sql<Record<string, number> | null>`(select json_object_agg(status, n) from (select status, sum(delta)::int as n from error_counts where coverage_period_id = ${period.id} group by status) s)`.as('errors'),
    ])
    .executeTakeFirstOrThrow()
  const errors = row.errors ?? {}
  return {
    coverage_period_id: period.id,
    group_installment_id: row.group_installment_id,
    subscribers: row.subscribers,
    dependents: row.dependents,
    enrolled_members: row.enrolled_members,
    plans: row.plans,
    errors: { unresolved: errors.unresolved ?? 0, returned: errors.returned ?? 0, resolved: errors.resolved ?? 0 },
  }
}
