import { sql, type Insertable, type Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { CoveragesTable, Executor, PlanElectionsTable, QualifyingLifeEventsTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'

export type LifeEventRow = Selectable<QualifyingLifeEventsTable>
export type PlanElectionRow = Selectable<PlanElectionsTable>
export type CoverageRow = Selectable<CoveragesTable>
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

/** The plans of a coverage period among these ids (others, from other periods or accounts, are left out). */
export async function plansOfCoveragePeriod(db: Executor, coveragePeriodId: string, ids: readonly string[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('plans')
    .select(['id', 'coverage_period_id', 'product_line', 'product_type', 'voluntary'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
    .execute()
}

export async function externalIdentifierTaken(db: Executor, subscriberId: string, identifier: string): Promise<boolean> {
  const row = await db
    .selectFrom('qualifying_life_events')
    .select('id')
    .where('subscriber_id', '=', subscriberId)
    .where('external_identifier', '=', identifier)
    .executeTakeFirst()
  return row !== undefined
}

export async function insertLifeEvent(
  tx: Executor,
  event: Insertable<QualifyingLifeEventsTable>,
  elections: readonly Insertable<PlanElectionsTable>[],
  coverages: readonly Insertable<CoveragesTable>[],
): Promise<LifeEventRow> {
  const row = await tx.insertInto('qualifying_life_events').values(event).returningAll().executeTakeFirstOrThrow()
  if (elections.length > 0) await tx.insertInto('plan_elections').values([...elections]).execute()
  if (coverages.length > 0) await tx.insertInto('coverages').values([...coverages]).execute()
  return row
}

export async function findLifeEvent(db: Executor, scope: AccountScope, id: string): Promise<LifeEventRow | undefined> {
  let query = db.selectFrom('qualifying_life_events').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function listLifeEvents(db: Executor, subscriberId: string, pageReq: PageRequest) {
  return selectPage(db.selectFrom('qualifying_life_events').where('subscriber_id', '=', subscriberId), pageReq, (q) => q.selectAll())
}

/** The elections and coverages of these events, in insertion order. */
export async function electionsOf(db: Executor, eventIds: readonly string[]): Promise<{ elections: PlanElectionRow[]; coverages: CoverageRow[] }> {
  if (eventIds.length === 0) return { elections: [], coverages: [] }
  const elections = await db
    .selectFrom('plan_elections')
    .selectAll()
    .where(sql<boolean>`qualifying_life_event_id = any(${[...eventIds]}::uuid[])`)
    .orderBy('id')
    .execute()
  if (elections.length === 0) return { elections, coverages: [] }
  const coverages = await db
    .selectFrom('coverages')
    .selectAll()
    .where(sql<boolean>`plan_election_id = any(${elections.map((e) => e.id)}::uuid[])`)
    .orderBy('id')
    .execute()
  return { elections, coverages }
}
