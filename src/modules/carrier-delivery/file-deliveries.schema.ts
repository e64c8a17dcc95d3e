import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

// ---- File deliveries (834 files and API submissions sent to a carrier) ----

export const FileDeliverySchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    group_id: Uuid,
    carrier_name: Type.String({ description: 'The carrier the file went to (GET /carriers)' }),
    kind: Type.Enum(['full', 'change'], { description: '`full`: every member, sent on installation; `change`: the member changes since the last file' }),
    channel: Type.Enum(['edi', 'api'], { description: '`edi`: an ANSI X12 834 (005010X220A1) file; `api`: a JSON submission to the carrier\'s API' }),
    file_name: Type.String({ description: 'The name the file was sent under' }),
    status: Type.Enum(['pending', 'sent', 'failed', 'skipped'], {
      description:
        '`pending` while being written or sent (attempts remain); `sent` once the carrier took it; `failed` when no attempt is left; ' +
        '`skipped`: a change delivery whose changes the carrier already held (or that were undone before the file was made), so nothing was sent',
    }),
    sent_at: Nullable({ ...Timestamp, description: 'When the carrier took the file; null until then' }),
    transaction_count: Type.Integer({ description: 'Member transactions the file carries' }),
    member_count: Type.Integer({ description: 'Members (subscribers and dependents) the file carries' }),
    byte_size: Nullable(Type.Integer({ description: 'Size of the file in bytes; null until it is written completely' })),
    sha256: Nullable(Type.String({ description: 'SHA-256 of the file, hex; null until it is written completely' })),
    interchange_control_number: Nullable(Type.Integer({ description: 'ISA13 of an 834 file (unique and increasing per carrier); null for API submissions' })),
    acknowledgement_status: Nullable(
      Type.Enum(['awaited', 'accepted', 'accepted_with_errors', 'partially_accepted', 'rejected', 'overdue'], {
        description:
          "What the carrier's acknowledgements say of an 834 file (GET /file_deliveries/{id}/acknowledgements): `awaited` once sent, " +
          'until a 999 answers (a TA1 that accepts the interchange leaves it awaited); then the 999\'s verdict on the group (AK9-01): ' +
          '`accepted`, `accepted_with_errors`, `partially_accepted` (some transaction sets rejected) or `rejected`; `rejected` also when a TA1 ' +
          'rejects the interchange (what the file told the carrier is then taken back: its members\' next change file tells them again, ' +
          'and POST /file_deliveries/{id}/resend sends all of it again now). `overdue`: no 999 in time. Null for API submissions and for files not sent.',
      }),
    ),
    attempts: Type.Integer({ description: 'Attempts to send made so far' }),
    last_error: Nullable(Type.String({ description: 'Why the last attempt failed' })),
    resent_at: Nullable({ ...Timestamp, description: 'When an operator had this rejected file sent again (POST /file_deliveries/{id}/resend); null otherwise' }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
)
export type FileDelivery = Static<typeof FileDeliverySchema>

const deliveryExample: FileDelivery = {
  id: '0193a4b2-0000-7000-8000-0000000000d1',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000030',
  group_id: '0193a4b2-0000-7000-8000-000000000010',
  carrier_name: 'sandbox_edi',
  kind: 'change',
  channel: 'edi',
  file_name: 'ENROLLSYNC_SANDBOX_EDI_20261122T093000Z_000000042.x12',
  status: 'sent',
  sent_at: '2026-11-22T09:30:02.417Z',
  transaction_count: 3,
  member_count: 4,
  byte_size: 4812,
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  interchange_control_number: 42,
  acknowledgement_status: 'accepted',
  attempts: 1,
  last_error: null,
  resent_at: null,
  created_at: '2026-11-22T09:30:00.000Z',
}

export const FileDeliveryResponse = Type.Object(
  { file_delivery: FileDeliverySchema },
  { description: 'The file delivery', examples: [{ file_delivery: deliveryExample }] },
)
export const FileDeliveryList = Type.Object(
  { file_deliveries: Type.Array(FileDeliverySchema) },
  { description: "One page of the coverage period's file deliveries, newest first; see the Total and Link headers", examples: [{ file_deliveries: [deliveryExample] }] },
)
export const FileDeliveriesQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })

/**
 * The 200 of GET /file_deliveries/{id}/content, in OpenAPI terms: the file as bytes, under the
 * media type of its channel. Fastify sends the stream as is (no serialisation of streams).
 */
export const FileContentResponse = {
  description: 'The file exactly as it was sent, streamed; Content-Length is byte_size and Content-Disposition names file_name',
  headers: {
    'Content-Disposition': { type: 'string', description: 'attachment; filename="<file_name>"' },
    'Content-Length': { type: 'integer', description: 'byte_size of the delivery' },
  },
  content: {
    'application/edi-x12': { schema: { type: 'string', format: 'binary', description: 'An ANSI X12 834 file (channel edi)' } },
    'application/json': { schema: { type: 'string', format: 'binary', description: "The JSON submitted to the carrier's API (channel api)" } },
  },
}

// ---- Coverage transmissions (what one file said about one member's coverage in one plan) ----

export const CoverageTransmissionSchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    member_id: { ...Uuid, description: 'The subscriber or dependent' },
    plan_id: Uuid,
    file_delivery_id: { ...Uuid, description: 'The file that carried it (GET /file_deliveries/{id})' },
    transaction_id: Nullable({ ...Uuid, description: 'The member transaction it sent; null in a full file sent on installation' }),
    maintenance: Type.Enum(['addition', 'change', 'termination', 'reinstatement', 'audit'], { description: 'What the file told the carrier (834 INS03)' }),
    start_date: Nullable({ ...IsoDate, description: 'Coverage start date sent' }),
    end_date: Nullable({ ...IsoDate, description: 'Coverage end date sent' }),
    sent_at: Nullable({ ...Timestamp, description: "The file delivery's sent_at; null while it is not sent" }),
    delivery_status: Type.Enum(['pending', 'sent', 'failed', 'skipped'], { description: "The file delivery's status" }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
)
export type CoverageTransmission = Static<typeof CoverageTransmissionSchema>

const transmissionExample: CoverageTransmission = {
  id: '0193a4b2-0000-7000-8000-0000000000e1',
  coverage_period_id: deliveryExample.coverage_period_id,
  member_id: '0193a4b2-0000-7000-8000-000000000050',
  plan_id: '0193a4b2-0000-7000-8000-000000000040',
  file_delivery_id: deliveryExample.id,
  transaction_id: '0193a4b2-0000-7000-8000-0000000000c1',
  maintenance: 'addition',
  start_date: '2027-01-01',
  end_date: null,
  sent_at: deliveryExample.sent_at,
  delivery_status: 'sent',
  created_at: deliveryExample.created_at,
}

export const CoverageTransmissionList = Type.Object(
  { coverage_transmissions: Type.Array(CoverageTransmissionSchema) },
  { description: 'One page of coverage transmissions, newest first; see the Total and Link headers', examples: [{ coverage_transmissions: [transmissionExample] }] },
)
export const MemberTransmissionsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
export const CoveragePeriodTransmissionsQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    member_id: Type.Optional({ ...Uuid, description: 'Only transmissions about this member' }),
    plan_id: Type.Optional({ ...Uuid, description: 'Only transmissions about coverage in this plan' }),
  },
  { additionalProperties: false },
)

export const ResendResponse = Type.Object(
  {
    file_delivery: FileDeliverySchema,
    transactions_queued: Type.Integer({
      description:
        "A change file's transactions written again as pending: they go in the coverage period's next change file. 0 when a full file is sent instead.",
    }),
    full_file: Type.Boolean({
      description:
        "True when the coverage period's full file is built again whole as a new delivery: for a rejected full file, and for a change file that could not be rolled back (sent before the service kept what the carrier held before it, or rejected over a month after it was sent).",
    }),
  },
  { description: 'The rejected delivery, its resent_at set, and what was queued to go again', examples: [{ file_delivery: { ...deliveryExample, acknowledgement_status: 'rejected', resent_at: '2026-11-22T11:02:00.000Z' }, transactions_queued: 3, full_file: false }] },
)
