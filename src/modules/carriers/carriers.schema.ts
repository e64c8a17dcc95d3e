import { Type, type Static } from 'typebox'
import { PaginationQuery } from '../../http/schemas.js'
import { CarrierConnectionFields } from '../carrier-delivery/index.js'

export const DistributionFormat = Type.Enum(['edi', 'api', 'manual'], {
  description: 'edi: ANSI X12 834 files; api: the carrier API; manual: through the work order only',
})

/** How far in the past a member change may take effect with this carrier (api-contract.md section 10). */
export const DEFAULT_RETROACTIVE_LIMIT_DAYS = 60
const RetroactiveLimitDays = Type.Integer({
  minimum: 0,
  maximum: 3650,
  description: `A life event whose change takes effect more days in the past than this is refused (422 retroactive_limit_exceeded); ${DEFAULT_RETROACTIVE_LIMIT_DAYS} unless the deployment sets it`,
})

/**
 * Where a real edi carrier leaves its TA1 and 999 acknowledgements for the service to pick up, as
 * written in CARRIERS_FILE next to edi_transport (whose shapes these follow). An SFTP inbound path
 * uses the carrier's own SFTP connection (edi_transport), so the login and host key pin are
 * written once.
 */
export const DirectoryAcknowledgementInbound = Type.Object(
  {
    type: Type.Literal('directory'),
    path: Type.String({ minLength: 1, description: 'Local directory (a share or a mount synchronised with the carrier) holding its acknowledgement files' }),
  },
  { additionalProperties: false, description: 'Pick acknowledgements up from a local directory' },
)

export const SftpAcknowledgementInbound = Type.Object(
  {
    type: Type.Literal('sftp'),
    remote_directory: Type.String({
      minLength: 1,
      description: "Directory on the carrier's SFTP server (edi_transport, which must be of type sftp), relative to the login directory or absolute",
    }),
  },
  { additionalProperties: false, description: "Pick acknowledgements up from a directory on the carrier's SFTP server" },
)

export const AcknowledgementInboundSettings = Type.Union([DirectoryAcknowledgementInbound, SftpAcknowledgementInbound], {
  description:
    'Where the carrier leaves its TA1 and 999 files. A job picks up each file, stores it (matched to its 834 file, or kept ' +
    'unmatched or malformed) and then moves it into a processed/ sub-directory there',
})
export type AcknowledgementInboundSettings = Static<typeof AcknowledgementInboundSettings>

/** How long an edi carrier has to answer an 834 with its 999 before the delivery is overdue (api-contract.md section 10). */
export const DEFAULT_ACKNOWLEDGEMENT_DUE_HOURS = 24
const AcknowledgementDueHours = Type.Integer({
  minimum: 1,
  maximum: 24 * 365,
  description: `An 834 file without a 999 this many hours after it was sent becomes acknowledgement_status overdue and raises an error; ${DEFAULT_ACKNOWLEDGEMENT_DUE_HOURS} unless set`,
})

export const CarrierSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z0-9_]+$', description: 'Lower-case name used as carrier_name' }),
    display_name: Type.String(),
    distribution_format: DistributionFormat,
    member_management: Type.Boolean({ description: 'Member changes flow to the carrier after installation' }),
    requires_pcp_for_hmo: Type.Boolean({ description: 'HMO medical enrollments need a primary care provider selection' }),
    sandbox: Type.Boolean({ description: 'A test carrier that behaves like a real one, for trying the life cycle' }),
    retroactive_limit_days: RetroactiveLimitDays,
  },
  { additionalProperties: false },
)
export type Carrier = Static<typeof CarrierSchema>

export const CarrierList = Type.Object(
  { carriers: Type.Array(CarrierSchema) },
  {
    description: "The deployment's carriers",
    examples: [
      {
        carriers: [
          {
            name: 'sandbox_edi',
            display_name: 'Sandbox carrier (EDI)',
            distribution_format: 'edi',
            member_management: true,
            requires_pcp_for_hmo: true,
            sandbox: true,
            retroactive_limit_days: 60,
          },
        ],
      },
    ],
  },
)
export const CarrierResponse = Type.Object({ carrier: CarrierSchema }, { description: 'The carrier' })
export const CarriersQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
export const CarrierParams = Type.Object({ name: Type.String({ maxLength: 100 }) }, { additionalProperties: false })

/**
 * A carrier as the deployment configures it: the public fields plus how it is reached (never
 * answered by GET /carriers: hosts and variable names are the deployment's business) and how it
 * spells genders in its census (keys compared case-insensitively).
 */
export const CarrierConfigSchema = Type.Object(
  {
    ...CarrierSchema.properties,
    retroactive_limit_days: Type.Optional(RetroactiveLimitDays),
    ...CarrierConnectionFields,
    acknowledgement_inbound: Type.Optional(AcknowledgementInboundSettings),
    acknowledgement_due_hours: Type.Optional(AcknowledgementDueHours),
    gender_mapping: Type.Optional(Type.Record(Type.String({ maxLength: 20 }), Type.Enum(['female', 'male', 'non_binary', 'unknown']))),
  },
  { additionalProperties: false },
)
export type CarrierConfig = Static<typeof CarrierConfigSchema>

/** The file a deployment may give in CARRIERS_FILE: a JSON array of carriers. */
export const CarriersFile = Type.Array(CarrierConfigSchema, { minItems: 1 })
