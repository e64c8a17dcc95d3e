import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { AddressSchema } from '../common/address.js'

export const InsuranceMarket = Type.Enum(['small_group', 'large_group', 'individual'], { description: 'Market of the group' })
export const EmployerType = Type.Enum(
  ['corporation', 's_corporation', 'partnership', 'llc', 'sole_proprietorship', 'non_profit', 'government', 'private_sector', 'other'],
  { description: 'Legal form of the employer' },
)
/**
 * physical: where employees work (the primary location must be one: carriers rate on it);
 * mailing: where the carrier sends paper; billing: where invoices go.
 */
export const LocationType = Type.Enum(['physical', 'mailing', 'billing'], {
  description: 'physical (a worksite; the primary location must be physical), mailing or billing',
})

const ExternalIdentifier = Type.String({ minLength: 1, maxLength: 100, description: 'Client-chosen identifier, unique per parent' })
const Fein = Type.String({ pattern: '^[0-9]{9}$', description: 'Federal Employer Identification Number: exactly 9 digits, no separator', examples: ['123456789'] })

// The census columns are PostgreSQL integer: a larger count must fail validation (422), not the insert (500).
const MAX_COUNT = 2_147_483_647

export const CensusSchema = Type.Object(
  {
    employees: Type.Integer({ minimum: 0, maximum: MAX_COUNT, description: 'All employees' }),
    full_time_equivalent_employees: Type.Integer({ minimum: 0, maximum: MAX_COUNT }),
    eligible_employees: Type.Integer({ minimum: 0, maximum: MAX_COUNT, description: 'Employees eligible for benefits; at most employees' }),
  },
  { additionalProperties: false },
)

export const EmployerInput = Type.Object(
  {
    organization_name: Type.String({ minLength: 1, maxLength: 200 }),
    fein: Fein,
    established_date: Type.Optional(IsoDate),
    employer_type: EmployerType,
    census: CensusSchema,
  },
  { additionalProperties: false },
)

export const AgencySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    fein: Fein,
    national_producer_number: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$', description: 'NIPR national producer number' })),
  },
  { additionalProperties: false },
)
export type Agency = Static<typeof AgencySchema>

/** The same fields are required whether the producer belongs to an agency or is independent. */
export const ProducerInput = Type.Object(
  {
    first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    last_name: Type.String({ minLength: 1, maxLength: 100 }),
    national_producer_number: Type.String({ pattern: '^[0-9]{1,10}$', description: 'NIPR national producer number (up to 10 digits)' }),
    state_license_number: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    email: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
    phone_number: Type.Optional(Type.String({ pattern: '^[0-9]{10}$', description: '10 digits, no separator' })),
    signature_date: Type.String({ format: 'date', description: 'Date the producer signed the master employer application' }),
    commission_split: Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      multipleOf: 0.01,
      description: 'Percent of the commission, up to two decimals; a single producer has 100, several sum to exactly 100',
    }),
    writing_producer: Type.Optional(Type.Boolean({ default: false, description: 'At most two producers of a group are writing producers' })),
    agency: Nullable(AgencySchema),
  },
  { additionalProperties: false },
)
export type ProducerInputT = Static<typeof ProducerInput>

export const LocationInput = Type.Object(
  {
    external_identifier: ExternalIdentifier,
    type: LocationType,
    employer_address: AddressSchema,
  },
  { additionalProperties: false },
)
export type LocationInputT = Static<typeof LocationInput>

/** Employer data, market and producers: what PUT /groups/{id} replaces. */
const groupCoreProperties = {
  external_identifier: ExternalIdentifier,
  insurance_market: InsuranceMarket,
  employer: EmployerInput,
  producers_of_record: Type.Optional(Type.Array(ProducerInput, { maxItems: 20, default: [], description: 'Producers of record; none when omitted' })),
  producer_agency: Type.Optional(Nullable(AgencySchema)),
}
const locationProperties = {
  primary_location: LocationInput,
  secondary_locations: Type.Optional(Type.Array(LocationInput, { maxItems: 100, default: [], description: 'Further locations (mailing, billing, other worksites)' })),
}

export const GroupCoreInput = Type.Object(groupCoreProperties, { additionalProperties: false })
export type GroupCore = Static<typeof GroupCoreInput>
export const NewGroupInput = Type.Object({ ...groupCoreProperties, ...locationProperties }, { additionalProperties: false })
export type NewGroup = Static<typeof NewGroupInput>

// ---- Answers ----

export const LocationSchema = Type.Object(
  {
    id: Uuid,
    group_id: Uuid,
    external_identifier: Type.String(),
    type: LocationType,
    primary: Type.Boolean({ description: 'The primary location of the group (exactly one)' }),
    employer_address: AddressSchema,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type Location = Static<typeof LocationSchema>

export const ProducerSchema = Type.Object(
  {
    id: Uuid,
    first_name: Nullable(Type.String()),
    last_name: Type.String(),
    national_producer_number: Type.String(),
    state_license_number: Nullable(Type.String()),
    email: Type.String(),
    phone_number: Nullable(Type.String()),
    signature_date: IsoDate,
    commission_split: Type.Number(),
    writing_producer: Type.Boolean(),
    agency: Nullable(AgencySchema),
  },
  { additionalProperties: false },
)
export type Producer = Static<typeof ProducerSchema>

/** Groups created before employer data existed (issue 1) have null employer fields. */
export const GroupSchema = Type.Object(
  {
    id: Uuid,
    account_id: Uuid,
    external_identifier: Type.String(),
    insurance_market: Type.String(),
    phase: Type.Enum(['installation', 'member_management']),
    employer: Type.Object(
      {
        organization_name: Type.String(),
        fein: Nullable(Type.String()),
        established_date: Nullable(IsoDate),
        employer_type: Nullable(Type.String()),
        census: Nullable(
          Type.Object(
            { employees: Type.Integer(), full_time_equivalent_employees: Nullable(Type.Integer()), eligible_employees: Type.Integer() },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    producer_agency: Nullable(AgencySchema),
    locations: Type.Array(LocationSchema, { description: 'Primary location first, then the others oldest first' }),
    producers_of_record: Type.Array(ProducerSchema, { description: 'In the order sent' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type Group = Static<typeof GroupSchema>

// ---- Examples ----

export const exampleAddress = { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' }
export const exampleGroupInput = {
  external_identifier: 'acme-widgets',
  insurance_market: 'small_group',
  employer: {
    organization_name: 'Acme Widgets Inc.',
    fein: '123456789',
    established_date: '2010-04-01',
    employer_type: 'corporation',
    census: { employees: 40, full_time_equivalent_employees: 35, eligible_employees: 32 },
  },
  producers_of_record: [
    {
      first_name: 'Pat',
      last_name: 'Broker',
      national_producer_number: '1234567',
      state_license_number: 'IL-778899',
      email: 'pat.broker@example.com',
      phone_number: '2175550100',
      signature_date: '2026-10-15',
      commission_split: 60,
      writing_producer: true,
      agency: { name: 'Prairie Benefits LLC', fein: '987654321', national_producer_number: '7654321' },
    },
    {
      last_name: 'Solo',
      national_producer_number: '2345678',
      email: 'sam.solo@example.com',
      signature_date: '2026-10-16',
      commission_split: 40,
      writing_producer: true,
      agency: null,
    },
  ],
  primary_location: { external_identifier: 'hq', type: 'physical', employer_address: exampleAddress },
}
const ts = '2026-11-22T09:30:00.000Z'
export const exampleGroup = {
  id: '0193a4b2-0000-7000-8000-000000000004',
  account_id: '0193a4b2-0000-7000-8000-000000000001',
  external_identifier: 'acme-widgets',
  insurance_market: 'small_group',
  phase: 'installation',
  employer: exampleGroupInput.employer,
  producer_agency: null,
  locations: [
    { id: '0193a4b2-0000-7000-8000-000000000005', group_id: '0193a4b2-0000-7000-8000-000000000004', external_identifier: 'hq', type: 'physical', primary: true, employer_address: exampleAddress, created_at: ts, updated_at: ts },
  ],
  producers_of_record: exampleGroupInput.producers_of_record.map((p, n) => ({
    id: `0193a4b2-0000-7000-8000-00000000001${n}`,
    first_name: p.first_name ?? null,
    state_license_number: p.state_license_number ?? null,
    phone_number: p.phone_number ?? null,
    ...p,
  })),
  created_at: ts,
  updated_at: ts,
}

// ---- Bodies and answers of the routes ----

export const CreateGroupBody = Type.Object(
  { group: NewGroupInput },
  { additionalProperties: false, examples: [{ group: exampleGroupInput }] },
)
const { primary_location: _primary, ...exampleCore } = exampleGroupInput
export const UpdateGroupBody = Type.Object(
  { group: GroupCoreInput },
  { additionalProperties: false, examples: [{ group: exampleCore }] },
)
export const CreateLocationBody = Type.Object(
  {
    location: Type.Object(
      {
        ...LocationInput.properties,
        primary: Type.Optional(Type.Boolean({ default: false, description: 'Make this the primary location (the previous one stays as a secondary location)' })),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [{ location: { external_identifier: 'warehouse', type: 'physical', employer_address: { ...exampleAddress, address_line_1: '9 Dock Rd' } } }],
  },
)
export type CreateLocationInput = Static<typeof CreateLocationBody>['location']

export const GroupResponse = Type.Object({ group: GroupSchema }, { description: 'The group', examples: [{ group: exampleGroup }] })
export const LocationResponse = Type.Object(
  { location: LocationSchema },
  { description: 'The location', examples: [{ location: { ...exampleGroup.locations[0], primary: false } }] },
)
export const GroupsQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    search: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Groups whose organization name or external identifier contains this text, ignoring case',
        examples: ['acme'],
      }),
    ),
    // As GET /errors' account_id: it narrows within what the caller may see, so a partner naming
    // another account finds nothing (not a 404 that would tell the account exists).
    account_id: Type.Optional(Type.String({ format: 'uuid', description: "Groups of this account (operators: any account's; a partner's own account only)" })),
  },
  { additionalProperties: false },
)
/** The filters a group listing combines (AND). */
export type GroupFilters = Omit<Static<typeof GroupsQuery>, 'page' | 'per_page'>
export const GroupList = Type.Object(
  { groups: Type.Array(GroupSchema) },
  { description: 'One page of groups; see the Total and Link headers', examples: [{ groups: [exampleGroup] }] },
)
