import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { ExternalIdentifier } from '../coverage-periods/coverage-periods.schema.js'

export const PRODUCT_LINES = [
  'medical',
  'dental',
  'vision',
  'life',
  'accidental_death_dismemberment',
  'life_accidental_death_dismemberment',
  'accident',
  'critical_illness',
  'hospital_indemnity',
  'disability',
] as const
export type ProductLine = (typeof PRODUCT_LINES)[number]

export const MEDICAL_PRODUCT_TYPES = [
  'health_maintenance_organization',
  'preferred_provider_organization',
  'exclusive_provider_organization',
  'point_of_service',
  'high_deductible_health_plan',
  'indemnity',
] as const
export const DISABILITY_PRODUCT_TYPES = ['short_term', 'long_term'] as const
export const PREMIUM_LEVELS = ['base', 'buyup', 'none'] as const
export const POLICY_PREMIUM_METHODS = ['list_bill', '2_tier_composite', '3_tier_composite', '4_tier_composite', '5_tier_composite'] as const
export const PREMIUM_RATING_METHODS = ['age_banded', 'composite', 'community'] as const

const ProductLine = Type.Enum([...PRODUCT_LINES], { description: 'The line of coverage' })
const ProductType = Type.Enum([...MEDICAL_PRODUCT_TYPES, ...DISABILITY_PRODUCT_TYPES], {
  description: 'Required for medical (health_maintenance_organization ... indemnity) and disability (short_term, long_term); must fit the product line',
})
const PremiumLevel = Type.Enum([...PREMIUM_LEVELS], { description: 'Required for dental and vision' })
const PolicyPremiumMethod = Type.Enum([...POLICY_PREMIUM_METHODS], { description: 'How the premium of the policy is billed' })
const PremiumRatingMethod = Type.Enum([...PREMIUM_RATING_METHODS], { description: 'Required with a composite policy_premium_method' })

const RiderInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    carrier_rider_code: Type.Optional(Nullable(Type.String({ maxLength: 100, description: "The carrier's code for the rider" }))),
  },
  { additionalProperties: false },
)
const RiderSchema = Type.Object({ name: Type.String(), carrier_rider_code: Nullable(Type.String()) }, { additionalProperties: false })
export type Rider = Static<typeof RiderSchema>

export const PlanSchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    external_identifier: Type.String(),
    description: Type.String(),
    product_line: ProductLine,
    product_type: Nullable(ProductType),
    premium_level: Nullable(PremiumLevel),
    voluntary: Type.Boolean(),
    policy_premium_method: PolicyPremiumMethod,
    premium_rating_method: Nullable(PremiumRatingMethod),
    riders: Type.Array(RiderSchema),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type Plan = Static<typeof PlanSchema>

const createExample = {
  plan: {
    external_identifier: 'acme-ppo-gold',
    description: 'Gold PPO 500',
    product_line: 'medical',
    product_type: 'preferred_provider_organization',
    voluntary: false,
    policy_premium_method: '4_tier_composite',
    premium_rating_method: 'age_banded',
    riders: [{ name: 'Infertility treatment', carrier_rider_code: 'INF-01' }],
  },
}

export const CreatePlanBody = Type.Object(
  {
    plan: Type.Object(
      {
        external_identifier: ExternalIdentifier,
        description: Type.String({ minLength: 1, maxLength: 500 }),
        product_line: ProductLine,
        product_type: Type.Optional(Nullable(ProductType)),
        premium_level: Type.Optional(Nullable(PremiumLevel)),
        voluntary: Type.Optional(Type.Boolean({ default: false, description: 'Paid by the employee; false by default' })),
        policy_premium_method: PolicyPremiumMethod,
        premium_rating_method: Type.Optional(Nullable(PremiumRatingMethod)),
        riders: Type.Optional(Type.Array(RiderInput, { maxItems: 50, default: [] })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [createExample] },
)
export type CreatePlanInput = Static<typeof CreatePlanBody>['plan']

const planExample = {
  id: '0193a4b2-0000-7000-8000-000000000020',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000010',
  ...createExample.plan,
  premium_level: null,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
}

export const PlanResponse = Type.Object({ plan: PlanSchema }, { description: 'The plan', examples: [{ plan: planExample }] })
export const PlanList = Type.Object(
  { plans: Type.Array(PlanSchema) },
  { description: 'One page of plans, oldest first; see the Total and Link headers', examples: [{ plans: [planExample] }] },
)
export const PlansQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })

export const CopyPlansBody = Type.Object(
  {
    from_coverage_period_id: {
      ...Uuid,
      description: 'The coverage period to copy every plan from: another coverage period of the same group, usually the previous plan year',
    },
  },
  { additionalProperties: false, examples: [{ from_coverage_period_id: '0193a4b2-0000-7000-8000-000000000010' }] },
)
export type CopyPlansInput = Static<typeof CopyPlansBody>

export const CopiedPlanList = Type.Object(
  { plans: Type.Array(PlanSchema) },
  { description: 'The plans created in the coverage period, in the order the source coverage period lists its plans', examples: [{ plans: [planExample] }] },
)
