import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

// ---- Acknowledgements (TA1 and 999) received for a file delivery: api-contract.md section 10 ----
// The model mirrors x12-ack.model.ts; like it, it holds codes, positions and control numbers only.

const Code = Type.Object(
  {
    code: Type.String({ description: 'The code as the carrier sent it' }),
    reason: Nullable(Type.String({ description: 'Its meaning in snake_case; null for a code the X12 notes do not name' })),
  },
  { additionalProperties: false },
)

const ElementFinding = Type.Object(
  {
    position: Type.Integer({ description: 'IK4-01: element position in the segment (DMG02 → 2)' }),
    component_position: Nullable(Type.Integer({ description: 'IK4-01-2: component position in a composite' })),
    repetition: Nullable(Type.Integer({ description: 'IK4-01-3: repetition of a repeating element' })),
    data_element: Nullable(Type.Integer({ description: 'IK4-02: X12 data element reference number' })),
    error: { ...Code, description: 'IK4-03' },
  },
  { additionalProperties: false, description: 'IK4: one bad element. Its copied value (IK4-04) is never kept here' },
)

const SegmentFinding = Type.Object(
  {
    segment_id: Type.String({ description: 'IK3-01' }),
    position: Type.Integer({ description: 'IK3-02: position in the transaction set, ST = 1' }),
    loop_id: Nullable(Type.String({ description: 'IK3-03' })),
    error: Nullable({ ...Code, description: 'IK3-04' }),
    elements: Type.Array(ElementFinding),
  },
  { additionalProperties: false, description: 'IK3: one segment in error' },
)

const TransactionSetAck = Type.Object(
  {
    transaction_set_id: Type.String({ description: "AK2-01: '834' for ours" }),
    control_number: Type.String({ description: 'AK2-02: ST02 of the set acknowledged' }),
    implementation_reference: Nullable(Type.String({ description: 'AK2-03' })),
    segments: Type.Array(SegmentFinding),
    status: Type.Enum(['accepted', 'accepted_with_errors', 'rejected', 'rejected_authentication_failed', 'rejected_assurance_failed', 'rejected_content_unreadable'], {
      description: 'IK5-01',
    }),
    errors: Type.Array(Code, { description: 'IK5-02 ... IK5-06' }),
  },
  { additionalProperties: false },
)

export const AcknowledgedGroupSchema = Type.Object(
  {
    functional_id: Type.String({ description: "AK1-01: 'BE' for an 834 group" }),
    acknowledged_group_control_number: Type.String({ description: 'AK1-02: GS06 of the group acknowledged (ours)' }),
    version: Nullable(Type.String({ description: 'AK1-03' })),
    transaction_sets: Type.Array(TransactionSetAck),
    status: Type.Enum(['accepted', 'accepted_with_errors', 'partially_accepted', 'rejected'], { description: 'AK9-01' }),
    counts: Type.Object(
      { included: Type.Integer(), received: Type.Integer(), accepted: Type.Integer() },
      { additionalProperties: false, description: 'AK9-02, AK9-03, AK9-04: transaction sets included, received and accepted' },
    ),
    errors: Type.Array(Code, { description: 'AK9-05 ... AK9-09' }),
  },
  { additionalProperties: false, description: "A 999: the carrier's verdict on one of our functional groups" },
)

const Ta1 = Type.Object(
  {
    acknowledged_control_number: Type.String({ description: 'TA1-01: ISA13 of the interchange acknowledged (ours)' }),
    status: Type.Enum(['accepted', 'accepted_with_errors', 'rejected'], { description: 'TA1-04' }),
    note: { ...Code, description: "TA1-05; '000' when there is no error" },
  },
  { additionalProperties: false },
)

const AcknowledgementSourceSchema = Type.Enum(['operator', 'inbound', 'sandbox'], {
  description:
    '`operator`: posted through POST /file_deliveries/{id}/acknowledgements; `inbound`: picked up from the carrier\'s inbound ' +
    'directory or SFTP path; `sandbox`: answered by a sandbox carrier',
})

export const AcknowledgementSchema = Type.Object(
  {
    id: Uuid,
    file_delivery_id: { ...Uuid, description: 'The 834 file it answers (GET /file_deliveries/{id})' },
    kind: Type.Enum(['ta1', '999'], { description: '`ta1`: an interchange acknowledgement alone; `999`: an implementation acknowledgement (a TA1 may precede it)' }),
    status: Type.Enum(['accepted', 'accepted_with_errors', 'partially_accepted', 'rejected'], {
      description: "What it says: the 999's AK9-01, or the TA1's TA1-04; `rejected` whenever a TA1 in it rejects the interchange",
    }),
    source: AcknowledgementSourceSchema,
    received_at: Timestamp,
    carrier_control_number: Type.String({ description: "ISA13 of the acknowledgement's own interchange (the carrier's number)" }),
    ta1s: Type.Array(Ta1),
    functional_groups: Type.Array(AcknowledgedGroupSchema),
    raw: Type.Optional(
      Type.String({ description: 'The X12 text as received; operators only (it may copy member data back, in IK4-04 and CTX)' }),
    ),
  },
  { additionalProperties: false },
)
export type Acknowledgement = Static<typeof AcknowledgementSchema>

const RAW_EXAMPLE =
  'ISA*00*          *00*          *ZZ*SANDBOX_EDI    *ZZ*ENROLLSYNC     *261122*0931*^*00501*611220931*0*T*:~' +
  'GS*FA*SANDBOX_EDI*ENROLLSYNC*20261122*093107*7001*X*005010X231~ST*999*0001*005010X231~AK1*BE*42*005010X220A1~' +
  'AK2*834*0042*005010X220A1~IK5*A~AK9*A*1*1*1~SE*6*0001~GE*1*7001~IEA*1*611220931~'

const acknowledgementExample: Acknowledgement = {
  id: '0193a4b2-0000-7000-8000-0000000000f1',
  file_delivery_id: '0193a4b2-0000-7000-8000-0000000000d1',
  kind: '999',
  status: 'accepted',
  source: 'operator',
  received_at: '2026-11-22T09:41:10.220Z',
  carrier_control_number: '611220931',
  ta1s: [],
  functional_groups: [
    {
      functional_id: 'BE',
      acknowledged_group_control_number: '42',
      version: '005010X220A1',
      transaction_sets: [{ transaction_set_id: '834', control_number: '0042', implementation_reference: '005010X220A1', segments: [], status: 'accepted', errors: [] }],
      status: 'accepted',
      counts: { included: 1, received: 1, accepted: 1 },
      errors: [],
    },
  ],
  raw: RAW_EXAMPLE,
}

export const AcknowledgementResponse = Type.Object(
  { acknowledgement: AcknowledgementSchema },
  { description: 'The acknowledgement stored', examples: [{ acknowledgement: acknowledgementExample }] },
)
export const AcknowledgementList = Type.Object(
  { acknowledgements: Type.Array(AcknowledgementSchema) },
  { description: "The delivery's acknowledgements, newest first (`raw` for operators only)", examples: [{ acknowledgements: [acknowledgementExample] }] },
)

export const AcknowledgementBody = Type.String({
  minLength: 1,
  description: 'The X12 text of one acknowledgement interchange (ISA ... IEA) holding a TA1, a 999, or both, as the carrier sent it',
  examples: [RAW_EXAMPLE],
})

/** Media types a posted acknowledgement may come as. */
export const ACKNOWLEDGEMENT_MEDIA_TYPES = ['application/edi-x12', 'text/plain'] as const
/** An acknowledgement of an 834 is small (a 999 of a file with every member in error stays well under this). */
export const ACKNOWLEDGEMENT_BODY_LIMIT = 5 * 1024 * 1024

const AckKind = Type.Enum(['ta1', '999'])
const AckStatus = Type.Enum(['accepted', 'accepted_with_errors', 'partially_accepted', 'rejected'])

/**
 * Any acknowledgement received, as the operators' report lists it: matched to its delivery, or
 * kept unmatched or malformed with the problem (GET /acknowledgements).
 */
export const ReceivedAcknowledgementSchema = Type.Object(
  {
    id: Uuid,
    outcome: Type.Enum(['matched', 'unmatched', 'malformed'], {
      description:
        '`matched`: linked to the 834 file it answers; `unmatched`: readable, but no sent 834 file of the carrier has its control ' +
        'numbers; `malformed`: not a readable TA1 or 999',
    }),
    problem: Nullable(Type.String({ description: 'Why it is unmatched or malformed (control numbers, segments and positions); null when matched' })),
    carrier_name: Type.String(),
    file_name: Nullable(Type.String({ description: "The inbound file's name, when it came as a file" })),
    file_delivery_id: Nullable({ ...Uuid, description: 'The 834 file it answers; null unless matched' }),
    kind: Nullable({ ...AckKind, description: '`ta1` or `999`; null when malformed' }),
    status: Nullable({ ...AckStatus, description: 'What it says (as on GET /file_deliveries/{id}/acknowledgements); null when malformed' }),
    source: AcknowledgementSourceSchema,
    received_at: Timestamp,
    carrier_control_number: Nullable(Type.String({ description: "ISA13 of the acknowledgement's own interchange; null when malformed" })),
    ta1s: Type.Array(Ta1, { description: 'Empty when malformed' }),
    functional_groups: Type.Array(AcknowledgedGroupSchema, { description: 'Empty when malformed' }),
    raw: Type.String({ description: 'The X12 text as received (it may copy member data back, in IK4-04 and CTX)' }),
  },
  { additionalProperties: false },
)
/** Named apart from the receiver's ReceivedAcknowledgement (acknowledgement-receiver.ts), which is what receive() answers. */
export type ReceivedAcknowledgementView = Static<typeof ReceivedAcknowledgementSchema>

export const ReceivedAcknowledgementList = Type.Object(
  { acknowledgements: Type.Array(ReceivedAcknowledgementSchema) },
  {
    description: 'One page of acknowledgements received, newest first',
    examples: [
      {
        acknowledgements: [
          {
            ...acknowledgementExample,
            outcome: 'unmatched',
            problem: 'No sent 834 file of carrier aetna has interchange control number 42 (AK1-02)',
            carrier_name: 'aetna',
            file_name: '999_20261122_0931.x12',
            file_delivery_id: null,
            source: 'inbound',
          },
        ],
      },
    ],
  },
)

export const ReceivedAcknowledgementsQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    outcome: Type.Optional(Type.Enum(['matched', 'unmatched', 'malformed'])),
    carrier_name: Type.Optional(Type.String({ maxLength: 100 })),
    source: Type.Optional(Type.Enum(['operator', 'inbound', 'sandbox'])),
  },
  { additionalProperties: false },
)
