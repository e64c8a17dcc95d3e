import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

// ---- Responses (GET /coverage_periods/{id}/census_requests, /census_requests/{id}, .../subscribers) ----

export const CensusRequestSchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    group_id: Uuid,
    status: Type.Enum(['completed', 'failed'], { description: '`completed`: the census was read and reconciled; `failed`: it could not be read (see errors)' }),
    format: Type.Enum(['json', 'x12_834'], { description: '`json`: subscribers in this API\'s schema; `x12_834`: an 834 audit file' }),
    as_of: { ...IsoDate, description: 'The date the carrier produced the census on' },
    submitted_by: Type.String({ description: 'Who posted it: an operator credential\'s name, or the sandbox carrier' }),
    subscriber_count: Type.Integer({ description: 'Subscribers in the census' }),
    member_count: Type.Integer({ description: 'Members (subscribers and dependents) in the census' }),
    matched_count: Type.Integer({ description: 'Census members matched to a platform member' }),
    discrepancy_count: Type.Integer({ description: 'Differences found between the census and the platform' }),
    errors_created: Type.Integer({ description: 'Errors (source reconciliation) opened by this census' }),
    errors_reopened: Type.Integer({ description: 'Resolved errors this census found again' }),
    errors_resolved: Type.Integer({ description: 'Errors this census no longer shows, resolved' }),
    errors: Type.Array(Type.String(), { description: 'Problems reading the census itself (a row that could not be read); never member data' }),
    created_at: Timestamp,
    completed_at: Nullable({ ...Timestamp, description: 'When reconciling finished; null when the census failed' }),
  },
  { additionalProperties: false },
)
export type CensusRequest = Static<typeof CensusRequestSchema>

const censusExample: CensusRequest = {
  id: '0193a4b2-0000-7000-8000-0000000000f1',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000030',
  group_id: '0193a4b2-0000-7000-8000-000000000010',
  status: 'completed',
  format: 'json',
  as_of: '2027-01-15',
  submitted_by: 'operations key',
  subscriber_count: 120,
  member_count: 287,
  matched_count: 286,
  discrepancy_count: 3,
  errors_created: 2,
  errors_reopened: 1,
  errors_resolved: 4,
  errors: [],
  created_at: '2027-01-15T07:00:00.000Z',
  completed_at: '2027-01-15T07:00:03.512Z',
}

export const CensusRequestResponse = Type.Object(
  { census_request: CensusRequestSchema },
  { description: 'The census request with what reconciling it did', examples: [{ census_request: censusExample }] },
)
export const CensusRequestList = Type.Object(
  { census_requests: Type.Array(CensusRequestSchema) },
  { description: "One page of the coverage period's census requests, newest first; see the Total and Link headers", examples: [{ census_requests: [censusExample] }] },
)
export const CensusRequestsQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    as_of: Type.Optional({ ...IsoDate, description: 'Only the census the carrier produced on that date (census requests whose as_of is this date)' }),
  },
  { additionalProperties: false },
)
export type CensusRequestsFilters = { asOf?: string | undefined }

export const CensusSubscriberSchema = Type.Object(
  {
    position: Type.Integer({ description: 'Place of the subscriber in the census, from 0' }),
    matched_subscriber_id: Nullable({ ...Uuid, description: 'The platform subscriber it was matched to; null when none matched' }),
    subscriber: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The subscriber (with its dependents) as the carrier sent it, in this API\'s subscriber schema; SSNs masked to ***-**-1234',
      },
    ),
  },
  { additionalProperties: false },
)
export type CensusSubscriber = Static<typeof CensusSubscriberSchema>

const censusSubscriberExample = {
  position: 0,
  matched_subscriber_id: '0193a4b2-0000-7000-8000-000000000050',
  subscriber: {
    first_name: 'Jane',
    last_name: 'Doe',
    birth_date: '1985-03-14',
    gender: 'female',
    social_security_number: '***-**-6789',
    dependents: [{ first_name: 'Sam', last_name: 'Doe', birth_date: '2015-06-01', subscriber_relationship: 'child', social_security_number: '***-**-4321' }],
  },
}

export const CensusSubscriberList = Type.Object(
  { subscribers: Type.Array(CensusSubscriberSchema) },
  { description: "One page of the census's subscribers in census order; see the Total and Link headers", examples: [{ subscribers: [censusSubscriberExample] }] },
)
export const CensusSubscribersQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })

// ---- Request bodies (POST /coverage_periods/{id}/census_requests): added with the census service ----
