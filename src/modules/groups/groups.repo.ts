import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Executor, GroupRow, GroupsTable, LocationsTable, ProducersOfRecordTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { selectPage } from '../../db/paging.js'
import type { GroupFilters } from './groups.schema.js'

import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

export type LocationRow = Selectable<LocationsTable>
export type ProducerRow = Selectable<ProducersOfRecordTable>

export const GROUP_IDENTIFIER_CONSTRAINT = 'groups_account_external_identifier_key'
export const LOCATION_IDENTIFIER_CONSTRAINT = 'locations_group_external_identifier_key'

/**
 * The groups in `scope` that match the filters. The account filter is applied on top of the
 * scope, never instead of it: a partner asking for another account's groups gets none.
 */
export async function listGroups(db: Executor, scope: AccountScope, filters: GroupFilters, pageReq: PageRequest) {
  const { search, account_id } = filters
  let query = db.selectFrom('groups')
  if (scope) query = query.where('account_id', '=', scope)
  if (account_id) query = query.where('account_id', '=', account_id)
  if (search) {
    // The text is a literal, not a pattern: % and _ typed by a user match themselves.
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    query = query.where((eb) => eb.or([eb('organization_name', 'ilike', pattern), eb('external_identifier', 'ilike', pattern)]))
  }
  return selectPage(query, pageReq, (q) => q.selectAll())
}

export async function findGroup(db: Executor, scope: AccountScope, id: string): Promise<GroupRow | undefined> {
  let query = db.selectFrom('groups').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

/** Locks the group row so concurrent changes to its locations or producers run one after the other. */
export async function findGroupForUpdate(tx: Executor, scope: AccountScope, id: string): Promise<GroupRow | undefined> {
  let query = tx.selectFrom('groups').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.forUpdate().executeTakeFirst()
}

export async function findGroupsByIds(db: Executor, ids: readonly string[]): Promise<GroupRow[]> {
  if (ids.length === 0) return []
  return db.selectFrom('groups').selectAll().where('id', 'in', ids).execute()
}

export async function insertGroup(tx: Executor, row: Insertable<GroupsTable>): Promise<GroupRow> {
  return tx.insertInto('groups').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateGroup(tx: Executor, id: string, values: Updateable<GroupsTable>): Promise<GroupRow> {
  return tx.updateTable('groups').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function insertLocations(tx: Executor, rows: Insertable<LocationsTable>[]): Promise<LocationRow[]> {
  if (rows.length === 0) return []
  return tx.insertInto('locations').values(rows).returningAll().execute()
}

export async function unflagPrimaryLocation(tx: Executor, groupId: string, at: Date): Promise<void> {
  await tx.updateTable('locations').set({ is_primary: false, updated_at: at }).where('group_id', '=', groupId).where('is_primary', '=', true).execute()
}

export async function replaceProducers(tx: Executor, groupId: string, rows: Insertable<ProducersOfRecordTable>[]): Promise<void> {
  await tx.deleteFrom('producers_of_record').where('group_id', '=', groupId).execute()
  if (rows.length > 0) await tx.insertInto('producers_of_record').values(rows).execute()
}

/** Locations of several groups: each group's primary first, then oldest first. */
export async function locationsOf(db: Executor, groupIds: readonly string[]): Promise<LocationRow[]> {
  if (groupIds.length === 0) return []
  return db
    .selectFrom('locations')
    .selectAll()
    .where('group_id', 'in', groupIds)
    .orderBy('group_id')
    .orderBy('is_primary', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export async function producersOf(db: Executor, groupIds: readonly string[]): Promise<ProducerRow[]> {
  if (groupIds.length === 0) return []
  return db.selectFrom('producers_of_record').selectAll().where('group_id', 'in', groupIds).orderBy('group_id').orderBy('position').execute()
}
