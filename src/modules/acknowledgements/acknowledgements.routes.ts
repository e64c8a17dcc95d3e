import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { httpError } from '../../http/problem.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import {
  ACKNOWLEDGEMENT_BODY_LIMIT,
  ACKNOWLEDGEMENT_MEDIA_TYPES,
  AcknowledgementBody,
  AcknowledgementList,
  AcknowledgementResponse,
  ReceivedAcknowledgementList,
  ReceivedAcknowledgementsQuery,
} from './acknowledgements.schema.js'
import type { AcknowledgementsService } from './acknowledgements.service.js'

/**
 * The carrier's TA1 and 999 for an 834 delivery. Registered as a plugin of its own so the X12
 * text parsers apply to these routes only: everywhere else a text body stays a 415.
 */
export function acknowledgementsRoutes(app: App, acknowledgements: AcknowledgementsService): void {
  const tags = ['Carrier delivery']

  app.get(
    '/acknowledgements',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'listAcknowledgements',
        summary: 'List every acknowledgement received (operators)',
        description:
          'Every TA1 and 999 received from carriers, newest first, whichever way it came (posted by an operator, picked up ' +
          "from a carrier's inbound directory or SFTP path, answered by a sandbox carrier) and whatever it turned out to be: " +
          '`matched` to the 834 file it answers, `unmatched` (readable, but no sent 834 file of that carrier has its control ' +
          'numbers) or `malformed` (not a readable TA1 or 999); `problem` says why. None is dropped: filter on ' +
          '`outcome=unmatched` or `outcome=malformed` to find those that need a person. Includes `raw`, which may copy member ' +
          'data back, so the answer carries `Cache-Control: no-store`.',
        tags: ['Operator', ...tags],
        querystring: ReceivedAcknowledgementsQuery,
        response: { 200: ReceivedAcknowledgementList, ...problemResponses('forbidden', 'validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await acknowledgements.listReceived(
        { outcome: request.query.outcome, carrierName: request.query.carrier_name, source: request.query.source },
        pageReq,
      )
      setPaginationHeaders(request, reply, pageReq, total)
      reply.header('Cache-Control', 'no-store')
      return { acknowledgements: items }
    },
  )

  app.register(async (scope: App) => {
    for (const mediaType of ACKNOWLEDGEMENT_MEDIA_TYPES) {
      scope.addContentTypeParser(mediaType, { parseAs: 'string', bodyLimit: ACKNOWLEDGEMENT_BODY_LIMIT }, (request, body, done) => {
        // Kept for Idempotency-Key fingerprints, as the JSON parser does.
        request.rawBody = body as string
        done(null, body)
      })
    }
    // JSON would otherwise reach the body schema and answer 422: the media type is what is wrong.
    scope.removeContentTypeParser('application/json')
    scope.addContentTypeParser('application/json', (_request, _payload, done) => {
      done(httpError('unsupported_media_type', `Send the acknowledgement's X12 text as ${ACKNOWLEDGEMENT_MEDIA_TYPES.join(' or ')}.`), undefined)
    })

    scope.post(
      '/file_deliveries/:id/acknowledgements',
      {
        bodyLimit: ACKNOWLEDGEMENT_BODY_LIMIT,
        config: { auth: 'service' },
        schema: {
          operationId: 'createFileDeliveryAcknowledgement',
          summary: "Post the carrier's TA1 or 999 for an 834 file (operators)",
          description:
            'The X12 text of one acknowledgement interchange received by other means (e-mail, a portal), as the body with ' +
            '`Content-Type: application/edi-x12` or `text/plain`: a TA1, a 999, or a TA1 followed by a 999. It must answer this ' +
            "delivery: every TA1-01 its ISA13, every AK1-02 its GS06 (the same number) and every AK2-02 its ST02 (that number on four " +
            'digits); otherwise 422 acknowledgement_not_for_this_delivery names the number that differs, and nothing is stored. ' +
            'Text that is not a readable TA1 or 999: 422 acknowledgement_malformed. An API submission, or an 834 file not sent yet: ' +
            "409 acknowledgement_not_expected. The acknowledgement is stored (201) and sets the delivery's acknowledgement_status: " +
            "`rejected` once a TA1 rejects the interchange, otherwise the latest 999's verdict (AK9-01); a TA1 alone that accepts " +
            'leaves it `awaited`; a 999 resolves the error an `overdue` delivery raised. The same text received before from this ' +
            'carrier (posted, or picked up from its inbound directory) is not stored twice: 200 answers the acknowledgement stored ' +
            'then (one kept unmatched is linked to this delivery now). The answer includes `raw`: acknowledgements may copy member data back (IK4-04, CTX), so it carries ' +
            '`Cache-Control: no-store`.',
          tags: ['Operator', ...tags],
          params: IdParams,
          consumes: [...ACKNOWLEDGEMENT_MEDIA_TYPES],
          body: AcknowledgementBody,
          response: {
            201: AcknowledgementResponse,
            200: { ...AcknowledgementResponse, description: 'The same text from this carrier was received before: the acknowledgement stored then' },
            ...problemResponses(
              'forbidden',
              'validation_failed',
              'file_delivery_not_found',
              'acknowledgement_not_expected',
              'acknowledgement_malformed',
              'acknowledgement_not_for_this_delivery',
              'payload_too_large',
              'unsupported_media_type',
            ),
          },
        },
      },
      async (request, reply) => {
        const { acknowledgement, created } = await acknowledgements.post(requireActor(request), request.params.id, request.body)
        reply.header('Cache-Control', 'no-store')
        return reply.code(created ? 201 : 200).send({ acknowledgement })
      },
    )

    scope.get(
      '/file_deliveries/:id/acknowledgements',
      {
        config: { auth: 'any' },
        schema: {
          operationId: 'listFileDeliveryAcknowledgements',
          summary: "List the carrier's acknowledgements of an 834 file",
          description:
            'Newest first: every TA1 and 999 received for the delivery, read (control numbers, verdicts, the segments and elements ' +
            'in error by position and code). Operators also get `raw`, the X12 as received, which may copy member data back; ' +
            "partners get the list without it. The delivery's own acknowledgement_status sums them up.",
          tags,
          params: IdParams,
          response: { 200: AcknowledgementList, ...problemResponses('file_delivery_not_found') },
        },
      },
      async (request, reply) => {
        const list = await acknowledgements.list(requireActor(request), request.params.id)
        if (list.some((ack) => ack.raw !== undefined)) reply.header('Cache-Control', 'no-store')
        return { acknowledgements: list }
      },
    )
  })
}
