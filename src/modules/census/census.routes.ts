import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { httpError } from '../../http/problem.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { isSpooledBody, spoolBodies } from '../../http/spooled-body.js'
import { validatorCompiler } from '../../http/validation.js'
import { openSpooled834Census } from './census-834-body.js'
import { openSpooledCensus } from './census-body.js'
import { CensusQuery, CreateCensusRequestBody } from './census-input.schema.js'
import { CensusRequestResponse } from './census.schema.js'
import type { CensusService } from './census.service.js'

/**
 * A census of 200,000 families as JSON is some 250 MB. The body streams to a temporary file and
 * is read from there in pieces (census-body.ts), so the limit is about disk, not memory.
 */
export const DEFAULT_CENSUS_BODY_LIMIT_BYTES = 1024 * 1024 * 1024

/** The 834 itself as the body, streamed like JSON (as_of then in the query). */
const X12_MEDIA_TYPES = ['application/edi-x12', 'text/plain'] as const

export function censusRoutes(app: App, census: CensusService, bodyLimit: number): void {
  app.register(async (scope: App) => {
    spoolBodies(scope, ['application/json', ...X12_MEDIA_TYPES], bodyLimit)
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
          "The carrier's census as JSON subscribers in this API's subscriber schema (carrier spellings allowed: upper case, " +
          'ZIP+4, MM/DD/YYYY, F/M, X12 codes), as an 834 audit file in x12_834, or as the 834 itself (application/edi-x12); ' +
          'bodies stream, up to CENSUS_BODY_LIMIT_BYTES. Members are matched by carrier member id, then SSN with birth date, ' +
          'then SSN with name, then name with birth date and relationship. Each parameter differing after normalisation raises ' +
          'an error (source reconciliation, this census request linked); a member missing on either side raises a subscriber, ' +
          'dependent or coverage error; an error no longer found is resolved (resolved_by reconciliation), one found again reopened. A field ' +
          "the census does not carry at all is not compared. Submitted member transactions of the census's families become " +
          'synced, or errors where discrepancies remain. The same census posted again (identical to the latest) answers 200 with ' +
          'that census request and changes nothing. Emits census_request.completed.',
        tags: ['Census', 'Operator'],
        params: IdParams,
        querystring: CensusQuery,
        body: { content: { 'application/json': { schema: CreateCensusRequestBody }, 'application/edi-x12': { schema: Type.String({ description: 'The 834 audit file itself (also as text/plain); as_of in the query' }) } } },
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
      const isX12 = (X12_MEDIA_TYPES as readonly string[]).includes((request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase())
      const source = isX12 ? await openSpooled834Census(body, request.query.as_of) : await openSpooledCensus(body)
      const { created, censusRequest } = await census.submitCensusSource(requireActor(request), request.params.id, source)
      return reply.code(created ? 201 : 200).send({ census_request: censusRequest })
    },
  )
}
