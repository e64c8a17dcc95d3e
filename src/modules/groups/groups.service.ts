import { isOperator, type Actor } from '../../lib/actor.js'
import type { Db, GroupRow } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import * as repo from './groups.repo.js'
import type { Group } from './groups.schema.js'

export function presentGroup(row: GroupRow): Group {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() }
}

export function createGroupsService({ db }: { db: Db }) {
  return {
    async listGroups(actor: Actor, pageReq: PageRequest) {
      const { items, total } = await repo.listGroups(db, isOperator(actor) ? undefined : actor.accountId, pageReq)
      return { items: items.map(presentGroup), total }
    },
  }
}

export type GroupsService = ReturnType<typeof createGroupsService>
