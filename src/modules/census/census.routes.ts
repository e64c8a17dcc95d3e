import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { httpError } from '../../http/problem.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { isSpooledBody, spoolJsonBodies } from '../../http/spooled-body.js'
import { validatorCompiler } from '../../http/validation.js'
import { openSpooledCensus } from './census-body.js'
import { CreateCensusRequestBody } from './census-input.schema.js'
import { CensusRequestResponse } from './census.schema.js'
import type { CensusService } from './census.service.js'

/**
 * A census of 200,000 families as JSON is some 250 MB. The body streams to a temporary file and
 * is read from there in pieces (census-body.ts), so the limit is about disk, not memory.
 */
export const DEFAULT_CENSUS_BODY_LIMIT_BYTES = 1024 * 1024 * 1024

export function censusRoutes(app: App, census: CensusService, bodyLimit: number): void {
  app.register(async (scope: App) => {
    spoolJsonBodies(scope, bodyLimit)
    censusRoute(scope, census, bodyLimit)
  })
}

function censusRoute(app: App, census: CensusService, bodyLimit: number): void {
  app.post(
    '/coverage_periods/:id/census_requests',
    {
      bodyLimit,
      // The body is a file here: census-body.ts checks it against the schema as it reads it.
      validatorCompiler: (context) => (context.httpPart === 'body' ? (value: unknown) => ({ value }) : validatorCompiler(context)),
      config: { auth: 'service' },
      schema: {
        operationId: 'createCensusRequest',
        summary: "Post the carrier's census and reconcile it (operators)",
        description:
          "The carrier's census as JSON subscribers in this API's subscriber schema (values may use the carrier's spellings: " +
          "upper case, ZIP+4, MM/DD/YYYY, F/M, X12 codes) or as an 834 audit file in x12_834. Members are matched by the carrier's " +
          'member id, then SSN with birth date, then SSN with name, then name with birth date and relationship. Every parameter ' +
          'that differs after normalisation raises an error (source reconciliation, the standard message, this census request ' +
          'linked); a member missing on either side raises a subscriber, dependent or coverage error; a reconciliation error no ' +
          'longer found is resolved automatically (resolved_by reconciliation) and a resolved one found again is reopened. A field ' +
          "the census does not carry at all is not compared. Submitted member transactions of the census's families become " +
          'synced, or errors where discrepancies remain. The same census posted again (identical to the latest) answers 200 with ' +
          'that census request and changes nothing. Emits census_request.completed.',
        tags: ['Census', 'Operator'],
        params: IdParams,
        body: CreateCensusRequestBody,
        response: {
          201: { ...CensusRequestResponse, description: 'The census request, reconciled' },
          200: { ...CensusRequestResponse, description: 'The same census was the latest already: nothing changed' },
          ...problemResponses('forbidden', 'coverage_period_not_found', 'census_invalid', 'payload_too_large'),
        },
      },
    },
    async (request, reply) => {
      const body: unknown = request.body
      if (!isSpooledBody(body)) throw httpError('validation_failed', 'The request body has 1 invalid field.', [{ pointer: '/census_request', detail: 'is required', code: 'required' }])
      const source = await openSpooledCensus(body)
      const { created, censusRequest } = await census.submitCensusSource(requireActor(request), request.params.id, source)
      return reply.code(created ? 201 : 200).send({ census_request: censusRequest })
    },
  )
}
