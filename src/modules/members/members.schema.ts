import { Type, type Static, type TSchema } from 'typebox'
import { Email, IsoDate, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { AddressSchema } from '../common/address.js'
import { LIFE_EVENTS } from '../life-events/life-events.schema.js'

export const GENDERS = ['female', 'male', 'non_binary', 'unknown'] as const
export const MARITAL_STATUSES = ['single', 'married', 'divorced', 'widowed', 'separated', 'registered_domestic_partner'] as const

/**
 * The marital status a life event leaves the subscriber in, whether or not it changes coverage:
 * what the carrier is told (DMG04) after it, and why such an event always reaches its carrier.
 */
export const MARITAL_STATUS_AFTER: Readonly<Record<string, (typeof MARITAL_STATUSES)[number] | undefined>> = {
  marriage: 'married',
  divorce: 'divorced',
  legal_separation: 'separated',
} satisfies Partial<Record<(typeof LIFE_EVENTS)[number], (typeof MARITAL_STATUSES)[number]>>

export const EMPLOYMENT_STATUSES = [
  'active',
  'active_military_overseas',
  'active_military_usa',
  'full_time',
  'leave_of_absence',
  'part_time',
  'retired',
  'terminated',
] as const
export const WAGE_FREQUENCIES = [
  'weekly',
  'biweekly',
  'semimonthly',
  'monthly',
  'daily',
  'annually',
  'hourly',
  'quarterly',
  'semiannually',
  'unknown',
] as const
export const RELATIONSHIPS = ['spouse', 'child', 'grandchild', 'registered_domestic_partner', 'court_ordered_dependent'] as const
export const MEMBER_STATUSES = ['pending', 'submitted', 'synced', 'errors'] as const

/** Most subscribers one request may carry (the benchmark's 5,000-subscriber installment). */
export const MAX_SUBSCRIBERS_PER_REQUEST = 5000
export const MAX_DEPENDENTS_PER_SUBSCRIBER = 30

const ExternalIdentifier = Type.String({ minLength: 1, maxLength: 255, description: 'Client-chosen identifier' })
const Name = Type.String({ minLength: 1, maxLength: 100 })
const Gender = Type.Enum([...GENDERS])
const SsnInput = Type.String({
  pattern: '^[0-9]{9}$',
  description:
    'Social Security number, 9 digits without separators. Area 000, 666 and 900-999, group 00 and serial 0000 are refused. ' +
    'Stored encrypted; answered masked (***-**-6789)',
  examples: ['123456789'],
})
const MaskedSsn = Type.String({ pattern: '^\\*\\*\\*-\\*\\*-[0-9]{4}$', description: 'Masked: the last four digits only', examples: ['***-**-6789'] })

export const EmailContact = Type.Object(
  { contact: Email, type: Type.Enum(['personal', 'work']) },
  { additionalProperties: false },
)
export const PhoneContact = Type.Object(
  {
    contact: Type.String({ pattern: '^[0-9]{10}$', description: 'US phone number, 10 digits, no separators', examples: ['5555550123'] }),
    type: Type.Enum(['home', 'mobile', 'work']),
  },
  { additionalProperties: false },
)
export const ClassAssignment = Type.Object(
  {
    employment_classification_id: Type.String({ format: 'uuid', description: 'An employment classification of the same group' }),
    effective_date: IsoDate,
  },
  { additionalProperties: false },
)
export const EmploymentDetails = Type.Object(
  {
    start_date: IsoDate,
    status: Type.Enum([...EMPLOYMENT_STATUSES]),
    end_date: Type.Optional(IsoDate),
    annual_earnings: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000_000, description: 'Integer cents' })),
    earnings_effective_date: Type.Optional(IsoDate),
    wage_frequency: Type.Optional(Type.Enum([...WAGE_FREQUENCIES])),
    hours_per_week: Type.Optional(Type.Number({ minimum: 0, maximum: 168 })),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    employee_identifier: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
)
export type EmploymentDetailsInput = Static<typeof EmploymentDetails>

const dependentFields = {
  external_identifier: ExternalIdentifier,
  first_name: Name,
  last_name: Name,
  birth_date: IsoDate,
  gender: Gender,
  subscriber_relationship: Type.Enum([...RELATIONSHIPS]),
  handicapped: Type.Optional(Type.Boolean()),
  tobacco_use: Type.Optional(Type.Boolean()),
}

export const DependentInputSchema = Type.Object(
  { ...dependentFields, social_security_number: Type.Optional(SsnInput) },
  { additionalProperties: false },
)
export type DependentInput = Static<typeof DependentInputSchema>

const subscriberFields = {
  external_identifier: ExternalIdentifier,
  location_id: Type.String({ format: 'uuid', description: 'A location of the same group' }),
  first_name: Name,
  middle_name: Type.Optional(Type.String({ maxLength: 100 })),
  last_name: Name,
  birth_date: IsoDate,
  gender: Gender,
  marital_status: Type.Optional(Type.Enum([...MARITAL_STATUSES])),
  tobacco_use: Type.Optional(Type.Boolean()),
  residential_address: AddressSchema,
  mailing_address: Type.Optional(AddressSchema),
  emails: Type.Optional(Type.Array(EmailContact, { maxItems: 10 })),
  phone_numbers: Type.Optional(Type.Array(PhoneContact, { maxItems: 10 })),
  class: Type.Optional(ClassAssignment),
  employment_details: EmploymentDetails,
}

export const SubscriberInputSchema = Type.Object(
  {
    ...subscriberFields,
    social_security_number: SsnInput,
    dependents: Type.Optional(Type.Array(DependentInputSchema, { maxItems: MAX_DEPENDENTS_PER_SUBSCRIBER })),
  },
  { additionalProperties: false },
)
export type SubscriberInput = Static<typeof SubscriberInputSchema>

/** PUT replaces the subscriber's own fields; an omitted SSN keeps the stored one. Dependents have their own endpoints. */
export const SubscriberUpdateSchema = Type.Object(
  { ...subscriberFields, social_security_number: Type.Optional(SsnInput) },
  { additionalProperties: false },
)
export type SubscriberUpdate = Static<typeof SubscriberUpdateSchema>

const addressExample = { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' }
const dependentInputExample = {
  external_identifier: 'dep-1001-1',
  first_name: 'Sam',
  last_name: 'Doe',
  birth_date: '2015-06-01',
  gender: 'male',
  subscriber_relationship: 'child',
  social_security_number: '123450001',
}
const subscriberInputExample = {
  external_identifier: 'emp-1001',
  location_id: '0193a4b2-0000-7000-8000-000000000010',
  first_name: 'Jane',
  last_name: 'Doe',
  birth_date: '1985-03-14',
  gender: 'female',
  social_security_number: '123456789',
  marital_status: 'married',
  residential_address: addressExample,
  emails: [{ contact: 'jane.doe@example.com', type: 'personal' }],
  phone_numbers: [{ contact: '5555550123', type: 'mobile' }],
  class: { employment_classification_id: '0193a4b2-0000-7000-8000-000000000020', effective_date: '2026-01-01' },
  employment_details: { start_date: '2020-02-01', status: 'full_time', annual_earnings: 6500000, wage_frequency: 'biweekly', hours_per_week: 40 },
  dependents: [dependentInputExample],
}

const { dependents: _dependents, social_security_number: _ssn, ...subscriberUpdateExample } = subscriberInputExample

export const CreateSubscribersBody = Type.Object(
  {
    subscriber: Type.Optional(SubscriberInputSchema),
    subscribers: Type.Optional(Type.Array(SubscriberInputSchema, { minItems: 1, maxItems: MAX_SUBSCRIBERS_PER_REQUEST })),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of `subscriber` (one) or `subscribers` (up to 5,000, all or nothing)',
    examples: [{ subscriber: subscriberInputExample }, { subscribers: [subscriberInputExample] }],
  },
)
export const UpdateSubscriberBody = Type.Object(
  { subscriber: SubscriberUpdateSchema },
  { additionalProperties: false, examples: [{ subscriber: subscriberUpdateExample }] },
)
export const CreateDependentBody = Type.Object(
  { dependent: DependentInputSchema },
  { additionalProperties: false, examples: [{ dependent: dependentInputExample }] },
)
export const UpdateDependentBody = Type.Object(
  { dependent: DependentInputSchema },
  { additionalProperties: false, description: 'Replaces the dependent; an omitted SSN keeps the stored one', examples: [{ dependent: dependentInputExample }] },
)

// Answers: optional fields are absent when not set; the SSN only ever masked.
const dependentAnswerFields = {
  id: Uuid,
  subscriber_id: Uuid,
  group_id: Uuid,
  ...dependentFields,
  social_security_number: Type.Optional(MaskedSsn),
  status: Type.Enum([...MEMBER_STATUSES]),
  created_at: Timestamp,
  updated_at: Timestamp,
}
export const DependentSchema = Type.Object(dependentAnswerFields, { additionalProperties: false })
export type Dependent = Static<typeof DependentSchema>

/** A life event in force for the subscriber: the latest of each coverage period that has not expired. */
export const CurrentLifeEventSchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    event: Type.Enum([...LIFE_EVENTS]),
    date: Type.String({ format: 'date' }),
    eligibility_start_date: Type.String({ format: 'date' }),
  },
  { additionalProperties: false, description: 'The full event, with its elections: GET /qualifying_life_events/{id}' },
)
export type CurrentLifeEvent = Static<typeof CurrentLifeEventSchema>

const subscriberAnswerFields = {
  id: Uuid,
  group_id: Uuid,
  ...subscriberFields,
  emails: Type.Array(EmailContact),
  phone_numbers: Type.Array(PhoneContact),
  social_security_number: MaskedSsn,
  status: Type.Enum([...MEMBER_STATUSES], { description: "The family's latest transaction with the carrier" }),
  current_qualifying_life_events: Type.Array(CurrentLifeEventSchema, {
    description: "The subscriber's latest qualifying life event on each of its group's coverage periods that has not expired, oldest first (Ideon's field name)",
  }),
  dependents: Type.Array(DependentSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
}
export const SubscriberSchema = Type.Object(subscriberAnswerFields, { additionalProperties: false })
export type Subscriber = Static<typeof SubscriberSchema>

export const MemberSchema = Type.Union([
  Type.Object({ ...subscriberAnswerFields, kind: Type.Literal('subscriber'), subscriber_id: Type.Null() }, { additionalProperties: false }),
  Type.Object({ ...dependentAnswerFields, kind: Type.Literal('dependent') }, { additionalProperties: false }),
])
export type Member = Static<typeof MemberSchema>

const ids = { group: '0193a4b2-0000-7000-8000-000000000004', subscriber: '0193a4b2-0000-7000-8000-000000000030', dependent: '0193a4b2-0000-7000-8000-000000000031' }
const times = { created_at: '2026-11-22T09:30:00.000Z', updated_at: '2026-11-22T09:30:00.000Z' }
const dependentExample = { id: ids.dependent, subscriber_id: ids.subscriber, group_id: ids.group, ...dependentInputExample, social_security_number: '***-**-0001', status: 'pending', ...times }
const subscriberExample = {
  id: ids.subscriber,
  group_id: ids.group,
  ...subscriberInputExample,
  social_security_number: '***-**-6789',
  status: 'pending',
  current_qualifying_life_events: [],
  dependents: [dependentExample],
  ...times,
}

const answer = (key: string, schema: TSchema, description: string, example: unknown) =>
  Type.Object({ [key]: schema }, { description, examples: [{ [key]: example }] })

export const SubscriberResponse = answer('subscriber', SubscriberSchema, 'The subscriber with its dependents; the SSN masked', subscriberExample)
export const SubscribersResponse = answer('subscribers', Type.Array(SubscriberSchema), 'The subscribers, in the order sent', [subscriberExample])
export const SubscriberList = answer('subscribers', Type.Array(SubscriberSchema), "One page of the group's subscribers; see the Total and Link headers", [subscriberExample])
export const DependentResponse = answer('dependent', DependentSchema, 'The dependent; the SSN masked', dependentExample)
export const MemberResponse = answer('member', MemberSchema, 'A subscriber (with its dependents) or a dependent; `kind` says which', { ...dependentExample, kind: 'dependent' })
// One object with two optional keys rather than a union: the serializer would otherwise validate
// a 5,000-subscriber answer against each branch to pick one.
export const CreateSubscribersResponse = Type.Object(
  { subscriber: Type.Optional(SubscriberSchema), subscribers: Type.Optional(Type.Array(SubscriberSchema)) },
  {
    description: '`{"subscriber"}` for a single subscriber, `{"subscribers"}` (in the order sent) for many; SSNs masked',
    examples: [{ subscriber: subscriberExample }, { subscribers: [subscriberExample] }],
  },
)

export const GroupIdParams = Type.Object({ id: Uuid }, { additionalProperties: false })
export const SubscribersQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
