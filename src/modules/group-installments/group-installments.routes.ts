import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import {
  CreateGroupInstallmentBody,
  GroupInstallmentList,
  GroupInstallmentResponse,
  GroupInstallmentsQuery,
} from './group-installments.schema.js'
import type { GroupInstallmentsService } from './group-installments.service.js'

export function groupInstallmentsRoutes(app: App, installments: GroupInstallmentsService): void {
  const tags = ['Group installments']

  app.post(
    '/group_installments',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createGroupInstallment',
        summary: 'Start a group installment (step 1)',
        description:
          'Creates the group with its primary location (and optional secondary locations and producers of record) and ' +
          'the installment with the carrier to start coverage with. Rules: fein exactly 9 digits; zip 5 digits; state a US ' +
          'state, DC or territory code; fips_county_code 5 digits starting with the state FIPS code; dates that exist; ' +
          'census counts non-negative with eligible_employees <= employees; carrier_name one of GET /carriers; producer ' +
          'commission splits 100 for one producer, summing to exactly 100 for several; at most two writing producers. ' +
          'Every rule broken is listed at once. A group external_identifier already used in the account answers 409. ' +
          'Then add the coverage period (POST /groups/{id}/coverage_periods) and follow progress.',
        tags,
        body: CreateGroupInstallmentBody,
        response: { 201: GroupInstallmentResponse, ...problemResponses('validation_failed', 'duplicate_external_identifier') },
      },
    },
    async (request, reply) => {
      const groupInstallment = await installments.createInstallment(requireActor(request), request.body.group)
      return reply.code(201).send({ group_installment: groupInstallment })
    },
  )

  app.get(
    '/group_installments',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listGroupInstallments',
        summary: 'List group installments',
        description: "The account's installments with their progress, oldest first. Operators see every account's.",
        tags,
        querystring: GroupInstallmentsQuery,
        response: { 200: GroupInstallmentList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await installments.listInstallments(requireActor(request), pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { group_installments: items }
    },
  )

  app.get(
    '/group_installments/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getGroupInstallment',
        summary: 'Get a group installment and its progress',
        description:
          'progress lists the seven steps in order, each done, pending or optional (employment classifications), computed ' +
          'from the data: the coverage period, its plans, the group employment classifications and subscribers, the ' +
          'qualifying life events of the coverage period, and whether setup was completed. work_order_id is set once setup is completed.',
        tags,
        params: IdParams,
        response: { 200: GroupInstallmentResponse, ...problemResponses('group_installment_not_found') },
      },
    },
    async (request) => ({ group_installment: await installments.getInstallment(requireActor(request), request.params.id) }),
  )
}
