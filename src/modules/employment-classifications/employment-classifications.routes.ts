import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import {
  CreateEmploymentClassificationBody,
  EmploymentClassificationList,
  EmploymentClassificationResponse,
  EmploymentClassificationsQuery,
} from './employment-classifications.schema.js'
import type { EmploymentClassificationsService } from './employment-classifications.service.js'

export function employmentClassificationsRoutes(app: App, classifications: EmploymentClassificationsService): void {
  const tags = ['Employment classifications']

  app.post(
    '/groups/:id/employment_classifications',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createEmploymentClassification',
        summary: 'Add an employment classification (installation step 4, optional)',
        description:
          'Adds a class, subgroup, department, division or region of the group, used to segment plan offerings or to ' +
          'ease billing. Subscribers refer to it by id. end_date, when given, is on or after start_date.',
        tags,
        params: IdParams,
        body: CreateEmploymentClassificationBody,
        response: {
          201: EmploymentClassificationResponse,
          ...problemResponses('validation_failed', 'group_not_found', 'duplicate_external_identifier'),
        },
      },
    },
    async (request, reply) => {
      const classification = await classifications.createEmploymentClassification(
        requireActor(request),
        request.params.id,
        request.body.employment_classification,
      )
      return reply.code(201).send({ employment_classification: classification })
    },
  )

  app.get(
    '/groups/:id/employment_classifications',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listGroupEmploymentClassifications',
        summary: "List a group's employment classifications",
        description: 'The employment classifications of the group, oldest first.',
        tags,
        params: IdParams,
        querystring: EmploymentClassificationsQuery,
        response: { 200: EmploymentClassificationList, ...problemResponses('validation_failed', 'group_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await classifications.listEmploymentClassifications(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { employment_classifications: items }
    },
  )

  app.get(
    '/employment_classifications/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getEmploymentClassification',
        summary: 'Get an employment classification',
        tags,
        params: IdParams,
        response: { 200: EmploymentClassificationResponse, ...problemResponses('employment_classification_not_found') },
      },
    },
    async (request) => ({
      employment_classification: await classifications.getEmploymentClassification(requireActor(request), request.params.id),
    }),
  )
}
