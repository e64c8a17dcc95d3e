import { Type, type Static } from 'typebox'
import { IsoDate } from '../../http/schemas.js'

/**
 * A census as the carrier sends it: this API's subscriber schema, with lenient values. A carrier
 * writes `F` for female, `62701-1234` for a ZIP or `03/14/1985` for a date; reconciliation
 * normalises each value before comparing, so such spellings raise no error, and a value it
 * cannot read becomes a `value_invalid` error rather than a refused census.
 */
const Text = (maxLength = 200) => Type.String({ maxLength })
const Loose = Type.Union([Type.String({ maxLength: 100 }), Type.Number(), Type.Boolean(), Type.Null()])

const CensusAddress = Type.Object(
  {
    address_line_1: Type.Optional(Text()),
    address_line_2: Type.Optional(Type.Union([Text(), Type.Null()])),
    city: Type.Optional(Text()),
    state: Type.Optional(Text(50)),
    zip: Type.Optional(Type.Union([Text(20), Type.Number()])),
    fips_county_code: Type.Optional(Type.Union([Text(10), Type.Null()])),
  },
  { additionalProperties: false },
)

const CensusContact = Type.Object({ contact: Text(320), type: Type.Optional(Text(20)) }, { additionalProperties: false })

export const CensusCoverage = Type.Object(
  {
    plan_id: Type.Optional(Text(100)),
    plan_external_identifier: Type.Optional(Text(255)),
    start_date: Type.Optional(Loose),
    end_date: Type.Optional(Loose),
    volume: Type.Optional(Loose),
    primary_care_provider: Type.Optional(Type.Object({ npi: Loose }, { additionalProperties: true })),
  },
  { additionalProperties: false, description: 'A coverage the carrier holds: the plan by id or external identifier' },
)

const memberFields = {
  carrier_member_id: Type.Optional(Type.Union([Text(100), Type.Null()])),
  external_identifier: Type.Optional(Text(255)),
  first_name: Text(100),
  middle_name: Type.Optional(Type.Union([Text(100), Type.Null()])),
  last_name: Text(100),
  birth_date: Type.Optional(Loose),
  gender: Type.Optional(Loose),
  social_security_number: Type.Optional(Type.Union([Text(11), Type.Null()])),
  tobacco_use: Type.Optional(Loose),
  coverages: Type.Optional(Type.Array(CensusCoverage, { maxItems: 50 })),
}

export const CensusDependentInput = Type.Object(
  { ...memberFields, subscriber_relationship: Type.Optional(Loose), handicapped: Type.Optional(Loose) },
  { additionalProperties: false },
)

export const CensusSubscriberInput = Type.Object(
  {
    ...memberFields,
    marital_status: Type.Optional(Loose),
    residential_address: Type.Optional(Type.Union([CensusAddress, Type.Null()])),
    emails: Type.Optional(Type.Array(CensusContact, { maxItems: 20 })),
    phone_numbers: Type.Optional(Type.Array(CensusContact, { maxItems: 20 })),
    region: Type.Optional(Type.Union([Text(), Type.Null()])),
    employment_details: Type.Optional(
      Type.Object(
        {
          start_date: Type.Optional(Loose),
          end_date: Type.Optional(Loose),
          status: Type.Optional(Loose),
          annual_earnings: Type.Optional(Loose),
          earnings_effective_date: Type.Optional(Loose),
          wage_frequency: Type.Optional(Loose),
        },
        { additionalProperties: false },
      ),
    ),
    dependents: Type.Optional(Type.Array(CensusDependentInput, { maxItems: 30 })),
  },
  { additionalProperties: false },
)
export type CensusSubscriberInputT = Static<typeof CensusSubscriberInput>
export type CensusDependentInputT = Static<typeof CensusDependentInput>

/** Most subscribers one census may carry: the largest groups, with room. The census streams, so memory does not set it. */
export const MAX_CENSUS_SUBSCRIBERS = 500_000

/** as_of of a census sent as the 834 itself (a JSON census carries it in its body). */
export const CensusQuery = Type.Object({ as_of: Type.Optional({ ...IsoDate, description: 'For an 834 body: the date the carrier produced it; today when absent' }) })

/** The shortest `x12_834` accepted: an ISA alone is 106 characters. */
export const X12_834_MIN_LENGTH = 106

const censusRequestFields = {
  as_of: Type.Optional({ ...IsoDate, description: 'The date the carrier produced the census; today when absent' }),
  x12_834: Type.Optional(Type.String({ minLength: X12_834_MIN_LENGTH, description: "The carrier's 834 audit file (005010X220A1) as text, instead of subscribers" })),
}
const censusRequestOptions = { additionalProperties: false, description: 'Exactly one of `subscribers` (JSON) or `x12_834` (an 834 audit file)' }

/**
 * The body without its subscribers' contents: what census-body.ts checks before streaming them,
 * each one then checked against CensusSubscriberInput where it stands.
 */
export const CensusRequestShell = Type.Object(
  { census_request: Type.Object({ ...censusRequestFields, subscribers: Type.Optional(Type.Array(Type.Unknown())) }, censusRequestOptions) },
  { additionalProperties: false },
)

export const CreateCensusRequestBody = Type.Object(
  {
    census_request: Type.Object(
      { ...censusRequestFields, subscribers: Type.Optional(Type.Array(CensusSubscriberInput, { maxItems: MAX_CENSUS_SUBSCRIBERS })) },
      censusRequestOptions,
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        census_request: {
          as_of: '2026-11-22',
          subscribers: [
            {
              carrier_member_id: 'SBX-0001',
              first_name: 'JANE',
              last_name: 'DOE',
              birth_date: '03/14/1985',
              gender: 'F',
              social_security_number: '123456789',
              residential_address: { address_line_1: '100 MAIN ST', city: 'SPRINGFIELD', state: 'IL', zip: '62701-1234' },
              coverages: [{ plan_external_identifier: 'ppo-gold', start_date: '2026-01-01' }],
              dependents: [],
            },
          ],
        },
      },
    ],
  },
)
export type CreateCensusRequestInput = Static<typeof CreateCensusRequestBody>['census_request']
