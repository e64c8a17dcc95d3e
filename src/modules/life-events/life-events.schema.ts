import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const LIFE_EVENTS = [
  'adoption',
  'birth',
  'cobra',
  'death',
  'divorce',
  'initial_enrollment',
  'legal_separation',
  'loss_of_coverage',
  'marriage',
  'new_hire',
  'newly_eligible',
  'open_enrollment',
  'termination_of_employment',
  're_hire',
] as const
export type LifeEvent = (typeof LIFE_EVENTS)[number]

/**
 * The events allowed while the setup of a group's first coverage period with a carrier is not
 * complete (the installation); a renewal's period takes every event.
 */
export const INSTALLATION_EVENTS: readonly LifeEvent[] = ['initial_enrollment', 'newly_eligible']

export const ELECTION_KEYS = [
  'medical',
  'dental',
  'vision',
  'voluntary_life',
  'non_voluntary_life',
  'accidental_death_dismemberment',
  'voluntary_accidental_death_dismemberment',
  'life_accidental_death_dismemberment',
  'voluntary_life_accidental_death_dismemberment',
  'short_term_disability',
  'long_term_disability',
  'hospital_indemnity',
  'critical_illness',
  'accident',
] as const
export type ElectionKey = (typeof ELECTION_KEYS)[number]

export const COVERAGE_STATUSES = ['employer_sponsored', 'cobra'] as const

export const CoverageInput = Type.Object(
  {
    member_id: Type.String({ format: 'uuid', description: 'The subscriber or one of its dependents' }),
    start_date: IsoDate,
    end_date: Type.Optional(IsoDate),
    status: Type.Enum([...COVERAGE_STATUSES]),
    volume: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000_000, description: 'Amount of coverage (life, AD&D, disability), integer cents' })),
  },
  { additionalProperties: false },
)
export type CoverageInput = Static<typeof CoverageInput>

// One object with `type` rather than a union of two: every problem then points at the field itself.
export const ElectionInput = Type.Object(
  {
    type: Type.Enum(['election', 'waiver'], { description: '`election` (plan_id and coverages required) or `waiver` (plan_id and coverages refused)' }),
    plan_id: Type.Optional(Type.String({ format: 'uuid', description: 'Election: a plan of the coverage period whose product line fits the key' })),
    coverages: Type.Optional(Type.Array(CoverageInput, { maxItems: 31, description: 'Election: the members covered, at least one' })),
    waiver_signature_date: Type.Optional(IsoDate),
    waiver_reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
)
export type ElectionInput = Static<typeof ElectionInput>

const PlanElectionsInput = Type.Object(
  {
    medical: Type.Optional(ElectionInput),
    dental: Type.Optional(ElectionInput),
    vision: Type.Optional(ElectionInput),
    voluntary_life: Type.Optional(ElectionInput),
    non_voluntary_life: Type.Optional(ElectionInput),
    accidental_death_dismemberment: Type.Optional(ElectionInput),
    voluntary_accidental_death_dismemberment: Type.Optional(ElectionInput),
    life_accidental_death_dismemberment: Type.Optional(ElectionInput),
    voluntary_life_accidental_death_dismemberment: Type.Optional(ElectionInput),
    short_term_disability: Type.Optional(ElectionInput),
    long_term_disability: Type.Optional(ElectionInput),
    hospital_indemnity: Type.Optional(ElectionInput),
    critical_illness: Type.Optional(ElectionInput),
    accident: Type.Optional(ElectionInput),
  },
  { additionalProperties: false, description: 'At least one election or waiver, by line of coverage' },
)

const ExternalIdentifier = Type.String({ minLength: 1, maxLength: 255, description: 'Client-chosen identifier, unique per subscriber' })

export const LifeEventInputSchema = Type.Object(
  {
    external_identifier: Type.Optional(ExternalIdentifier),
    coverage_period_id: Type.String({ format: 'uuid', description: "A coverage period of the subscriber's group" }),
    event: Type.Enum([...LIFE_EVENTS], {
      description:
        "While the setup of the group's first coverage period with its carrier is not complete, only initial_enrollment or newly_eligible; " +
        'a renewal takes every event. adoption, legal_separation and death extend Ideon\'s list (api-contract.md section 10).',
    }),
    date: IsoDate,
    eligibility_start_date: IsoDate,
    plan_elections: PlanElectionsInput,
  },
  { additionalProperties: false },
)
export type LifeEventInput = Static<typeof LifeEventInputSchema>

const ids = {
  subscriber: '0193a4b2-0000-7000-8000-000000000030',
  dependent: '0193a4b2-0000-7000-8000-000000000031',
  coveragePeriod: '0193a4b2-0000-7000-8000-000000000010',
  plan: '0193a4b2-0000-7000-8000-000000000020',
  event: '0193a4b2-0000-7000-8000-000000000040',
}
const inputExample = {
  external_identifier: 'qle-emp-1001-2027',
  coverage_period_id: ids.coveragePeriod,
  event: 'initial_enrollment',
  date: '2027-01-01',
  eligibility_start_date: '2027-01-01',
  plan_elections: {
    medical: {
      type: 'election',
      plan_id: ids.plan,
      coverages: [
        { member_id: ids.subscriber, start_date: '2027-01-01', status: 'employer_sponsored' },
        { member_id: ids.dependent, start_date: '2027-01-01', status: 'employer_sponsored' },
      ],
    },
    dental: { type: 'waiver', waiver_signature_date: '2026-11-15', waiver_reason: 'Covered by spouse' },
  },
}

export const CreateLifeEventBody = Type.Object(
  { qualifying_life_event: LifeEventInputSchema },
  { additionalProperties: false, examples: [{ qualifying_life_event: inputExample }] },
)

export const CoverageSchema = Type.Object(
  {
    id: Uuid,
    member_id: Uuid,
    start_date: IsoDate,
    end_date: Nullable(IsoDate),
    status: Type.Enum([...COVERAGE_STATUSES]),
    volume: Nullable(Type.Integer()),
  },
  { additionalProperties: false },
)
export type Coverage = Static<typeof CoverageSchema>

export const ElectionSchema = Type.Object(
  {
    id: Uuid,
    type: Type.Enum(['election', 'waiver']),
    plan_id: Type.Optional(Uuid),
    coverages: Type.Optional(Type.Array(CoverageSchema)),
    waiver_signature_date: Type.Optional(Nullable(IsoDate)),
    waiver_reason: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: false, description: 'An election has plan_id and coverages; a waiver has waiver_signature_date and waiver_reason' },
)
export type Election = Static<typeof ElectionSchema>

export const LifeEventSchema = Type.Object(
  {
    id: Uuid,
    subscriber_id: Uuid,
    coverage_period_id: Uuid,
    external_identifier: Nullable(Type.String()),
    event: Type.Enum([...LIFE_EVENTS]),
    date: IsoDate,
    eligibility_start_date: IsoDate,
    plan_elections: Type.Record(Type.String(), ElectionSchema),
    created_at: Timestamp,
  },
  { additionalProperties: false },
)
export type LifeEventView = Static<typeof LifeEventSchema>

const example = {
  id: ids.event,
  subscriber_id: ids.subscriber,
  ...inputExample,
  plan_elections: {
    medical: {
      id: '0193a4b2-0000-7000-8000-000000000041',
      type: 'election',
      plan_id: ids.plan,
      coverages: [
        { id: '0193a4b2-0000-7000-8000-000000000042', member_id: ids.subscriber, start_date: '2027-01-01', end_date: null, status: 'employer_sponsored', volume: null },
        { id: '0193a4b2-0000-7000-8000-000000000043', member_id: ids.dependent, start_date: '2027-01-01', end_date: null, status: 'employer_sponsored', volume: null },
      ],
    },
    dental: { id: '0193a4b2-0000-7000-8000-000000000044', type: 'waiver', waiver_signature_date: '2026-11-15', waiver_reason: 'Covered by spouse' },
  },
  created_at: '2026-11-22T09:30:00.000Z',
}

export const LifeEventResponse = Type.Object(
  { qualifying_life_event: LifeEventSchema },
  { description: 'The qualifying life event with its elections, waivers and coverages', examples: [{ qualifying_life_event: example }] },
)
export const LifeEventList = Type.Object(
  { qualifying_life_events: Type.Array(LifeEventSchema) },
  { description: "One page of the subscriber's qualifying life events, oldest first; see the Total and Link headers", examples: [{ qualifying_life_events: [example] }] },
)
export const LifeEventsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
