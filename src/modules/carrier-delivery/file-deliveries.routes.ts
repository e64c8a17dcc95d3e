import type { SsnProtection } from '../../lib/ssn-protection.js'
import { Readable } from 'node:stream'
import type { TSchema } from 'typebox'
import type { Db } from '../../db/schema.js'
import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { accountScopeOf } from '../../lib/actor.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { findCoveragePeriod } from '../coverage-periods/coverage-periods.repo.js'
import { memberNotFound, findMember } from '../members/index.js'
import { fileContentNotReady, fileDeliveryNotFound } from './file-deliveries.errors.js'
import * as repo from './file-deliveries.repo.js'
import {
  CoveragePeriodTransmissionsQuery,
  CoverageTransmissionList,
  FileContentResponse,
  FileDeliveriesQuery,
  FileDeliveryList,
  FileDeliveryResponse,
  MemberTransmissionsQuery,
  ResendResponse,
} from './file-deliveries.schema.js'
import type { CarrierDeliveryService } from './carrier-delivery.service.js'

const MEDIA_TYPES = { edi: 'application/edi-x12', api: 'application/json' } as const

/**
 * `attachment; filename="..."` that survives any file name: quotes, backslashes, control and
 * non-ASCII characters become `_` in the quoted form, and the exact name then also goes in
 * RFC 6266's `filename*` for clients that read it.
 */
export function contentDisposition(fileName: string): string {
  const plain = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')
  if (plain === fileName) return `attachment; filename="${fileName}"`
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${plain}"; filename*=UTF-8''${encoded}`
}

/**
 * What was sent to carriers. The reads have no service layer: each is one scoped lookup (404
 * outside the actor's account) and one read. Sending a rejected file again is the service's.
 */
export function fileDeliveriesRoutes(app: App, db: Db, ssn: SsnProtection, service: Pick<CarrierDeliveryService, 'resend'>): void {
  const tags = ['Carrier delivery']

  app.get(
    '/coverage_periods/:id/file_deliveries',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listFileDeliveries',
        summary: 'List the files sent to the carrier for a coverage period',
        description:
          'Newest first: the full file sent on installation and every change file after it (834 files for EDI carriers, ' +
          'submissions for API carriers), with their status, size and checksum.',
        tags,
        params: IdParams,
        querystring: FileDeliveriesQuery,
        response: { 200: FileDeliveryList, ...problemResponses('validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      const coveragePeriod = await findCoveragePeriod(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!coveragePeriod) throw coveragePeriodNotFound()
      const pageReq = pageRequest(request.query)
      const { items, total } = await repo.listFileDeliveries(db, coveragePeriod.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { file_deliveries: items }
    },
  )

  app.get(
    '/file_deliveries/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getFileDelivery',
        summary: 'Get a file delivery',
        tags,
        params: IdParams,
        response: { 200: FileDeliveryResponse, ...problemResponses('file_delivery_not_found') },
      },
    },
    async (request) => {
      const delivery = await repo.findFileDelivery(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!delivery) throw fileDeliveryNotFound()
      return { file_delivery: delivery }
    },
  )

  app.get(
    '/file_deliveries/:id/content',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'getFileDeliveryContent',
        summary: 'Download the file sent (operators)',
        description:
          'The file exactly as sent: `application/edi-x12` for an 834 file (channel edi), `application/json` for an API ' +
          'submission (channel api), as an attachment named file_name, streamed. The content exists once the file is written ' +
          'completely (its byte_size is set), which may be before it is sent: a delivery still pending or failed can be ' +
          'downloaded. Before that: 409 file_content_not_ready. The file holds personal data (SSNs in clear, as the carrier ' +
          'needs them), so the answer carries `Cache-Control: no-store`.',
        tags: ['Operator', ...tags],
        params: IdParams,
        response: {
          // Declared as raw content per media type, as problemResponses does for problems.
          200: FileContentResponse as unknown as TSchema,
          ...problemResponses('forbidden', 'file_delivery_not_found', 'file_content_not_ready'),
        },
      },
    },
    async (request, reply) => {
      const file = await repo.findFileContentHeader(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!file) throw fileDeliveryNotFound()
      // byte_size is written with the last chunk: without it the chunks may still be incomplete.
      if (file.byte_size === null) throw fileContentNotReady()
      return reply
        .header('Content-Type', MEDIA_TYPES[file.channel])
        .header('Content-Length', String(file.byte_size))
        .header('Content-Disposition', contentDisposition(file.file_name))
        .header('Cache-Control', 'no-store')
        .send(Readable.from(repo.fileChunks(db, ssn, file.id)))
    },
  )

  app.post(
    '/file_deliveries/:id/resend',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'resendFileDelivery',
        summary: 'Send a rejected file again (operators)',
        description:
          "For a delivery the carrier rejected (acknowledgement_status `rejected`: a TA1 rejected the interchange or a 999 the group). " +
          "A rejection already takes back what the file told the carrier, so each family's next change file tells it again; this sends all of it " +
          "now, once the cause is fixed: a change file's transactions are queued again as pending and go in the next change file, which says " +
          "what the carrier lacks as of now (named by the same life events); a full file is built again whole, as a new delivery. Once per " +
          'delivery (its resent_at). A change file sent before the service kept what the carrier held before it (or over a month before its rejection) ' +
          "could not be rolled back: the coverage period's full file is sent instead (`full_file` true). A coverage period already expired is resent too: " +
          'what was decided for its plan year still has to reach the carrier. 409 `file_delivery_not_rejected` for any other delivery (or while the rejection ' +
          'is still being applied), 409 `file_delivery_already_resent`, 409 `file_delivery_carrier_unreachable` when the carrier is gone or takes changes by hand, ' +
          '409 `file_delivery_on_its_way` when a full file would cross a file of the period still being built or sent.',
        tags: ['Operator', ...tags],
        params: IdParams,
        response: {
          202: ResendResponse,
          ...problemResponses('forbidden', 'file_delivery_not_found', 'file_delivery_not_rejected', 'file_delivery_already_resent', 'file_delivery_carrier_unreachable', 'file_delivery_on_its_way'),
        },
      },
    },
    async (request, reply) => {
      const scope = accountScopeOf(requireActor(request))
      if (!(await repo.findFileDelivery(db, scope, request.params.id))) throw fileDeliveryNotFound()
      const resent = await service.resend(request.params.id)
      const delivery = await repo.findFileDelivery(db, scope, request.params.id)
      return reply.code(202).send({ file_delivery: delivery!, transactions_queued: resent.transactionsQueued, full_file: resent.fullFile })
    },
  )

  app.get(
    '/members/:id/coverage_transmissions',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listMemberCoverageTransmissions',
        summary: "List what was sent to carriers about a member's coverage",
        description:
          "Newest first: one entry per plan coverage of the member (subscriber or dependent) in each file sent, with the file's " +
          'sent_at (null while it is not sent) and status.',
        tags,
        params: IdParams,
        querystring: MemberTransmissionsQuery,
        response: { 200: CoverageTransmissionList, ...problemResponses('validation_failed', 'member_not_found') },
      },
    },
    async (request, reply) => {
      const member = await findMember(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!member) throw memberNotFound()
      const pageReq = pageRequest(request.query)
      const { items, total } = await repo.listCoverageTransmissions(db, { memberId: member.id }, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { coverage_transmissions: items }
    },
  )

  app.get(
    '/coverage_periods/:id/coverage_transmissions',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listCoveragePeriodCoverageTransmissions',
        summary: 'List what was sent to the carrier about the coverage of a coverage period',
        description:
          'Newest first; `member_id` and `plan_id` narrow the list. Each entry is one member\'s coverage in one plan as one ' +
          "file sent it, with the file's sent_at (null while it is not sent) and status.",
        tags,
        params: IdParams,
        querystring: CoveragePeriodTransmissionsQuery,
        response: { 200: CoverageTransmissionList, ...problemResponses('validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      const coveragePeriod = await findCoveragePeriod(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!coveragePeriod) throw coveragePeriodNotFound()
      const pageReq = pageRequest(request.query)
      const filters = { coveragePeriodId: coveragePeriod.id, memberId: request.query.member_id, planId: request.query.plan_id }
      const { items, total } = await repo.listCoverageTransmissions(db, filters, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { coverage_transmissions: items }
    },
  )
}
