import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { problemResponses } from '../../http/schemas.js'
import { GroupList, GroupsQuery } from './groups.schema.js'
import type { GroupsService } from './groups.service.js'

export function groupsRoutes(app: App, groups: GroupsService): void {
  app.get(
    '/groups',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listGroups',
        summary: 'List groups',
        description: "The account's employer groups, oldest first. Operators see every account's groups.",
        tags: ['Groups'],
        querystring: GroupsQuery,
        response: { 200: GroupList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await groups.listGroups(requireActor(request), pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { groups: items }
    },
  )
}
