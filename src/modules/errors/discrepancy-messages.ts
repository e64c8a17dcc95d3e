import type { DiscrepancyKind } from '../../db/schema.js'

/** The data items a discrepancy can be about (service-interface.md 2.5); the migration checks the same list. */
export const DISCREPANCY_PARAMETERS = [
  'birth_date',
  'gender',
  'marital_status',
  'earnings_effective_date',
  'employment_start_date',
  'employment_end_date',
  'annual_earnings',
  'wage_frequency',
  'employment_status',
  'residential_address',
  'primary_care_provider',
  'social_security_number',
  'plan_id',
  'plan_start_date',
  'plan_end_date',
  'subscriber',
  'dependent',
  'coverage',
  'plan_volume',
  'tobacco_use',
  'region',
  'emails',
  'phone_numbers',
] as const
export type DiscrepancyParameter = (typeof DISCREPANCY_PARAMETERS)[number]

export const DISCREPANCY_KINDS = ['carrier_value_differs', 'carrier_missing', 'platform_missing', 'value_invalid'] as const satisfies readonly DiscrepancyKind[]
export type { DiscrepancyKind }

export type Severity = 'failure' | 'warning' | 'info'
export type Party = 'service' | 'partner'

export interface DiscrepancyMessage {
  parameter: DiscrepancyParameter
  kind: DiscrepancyKind
  /** Plain English, no value in it: the discrepancy's values may be an SSN or a birth date. */
  message: string
  severity: Severity
  assignee: Party
}

/**
 * Who acts first on each kind. The platform owns the member data, so what it lacks, what is
 * invalid and what the carrier holds differently goes to the partner to confirm or correct; what
 * the carrier lacks goes to the operator, whose job is delivering the data to the carrier.
 */
const ASSIGNEE_BY_KIND: Record<DiscrepancyKind, Party> = {
  carrier_value_differs: 'partner',
  carrier_missing: 'service',
  platform_missing: 'partner',
  value_invalid: 'partner',
}

interface MemberField {
  /** How the item reads after "the member's". */
  noun: string
  plural?: boolean
  /** failure: enrollment or identity is wrong; warning: billing or eligibility data; info: contact data. */
  severity: Severity
}

// Items that are one field of a member: their four messages follow one pattern.
const MEMBER_FIELDS: Partial<Record<DiscrepancyParameter, MemberField>> = {
  birth_date: { noun: 'birth date', severity: 'failure' },
  gender: { noun: 'gender', severity: 'warning' },
  marital_status: { noun: 'marital status', severity: 'warning' },
  earnings_effective_date: { noun: 'earnings effective date', severity: 'warning' },
  employment_start_date: { noun: 'employment start date', severity: 'warning' },
  employment_end_date: { noun: 'employment end date', severity: 'warning' },
  annual_earnings: { noun: 'annual earnings', plural: true, severity: 'warning' },
  wage_frequency: { noun: 'wage frequency', severity: 'warning' },
  employment_status: { noun: 'employment status', severity: 'warning' },
  residential_address: { noun: 'residential address', severity: 'warning' },
  social_security_number: { noun: 'Social Security number', severity: 'failure' },
  plan_start_date: { noun: 'coverage start date', severity: 'failure' },
  plan_end_date: { noun: 'coverage end date', severity: 'failure' },
  plan_volume: { noun: 'coverage volume', severity: 'warning' },
  tobacco_use: { noun: 'tobacco use', severity: 'warning' },
  region: { noun: 'rating region', severity: 'warning' },
  emails: { noun: 'email addresses', plural: true, severity: 'info' },
  phone_numbers: { noun: 'phone numbers', plural: true, severity: 'info' },
}

function memberFieldMessages({ noun, plural }: MemberField): Record<DiscrepancyKind, string> {
  const is = plural ? 'are' : 'is'
  return {
    carrier_value_differs: `The member's ${noun} at the carrier ${plural ? 'differ' : 'differs'} from the platform's.`,
    carrier_missing: `The carrier has no ${noun} for the member; the platform has ${plural ? 'them' : 'one'}.`,
    platform_missing: `The platform has not supplied the member's ${noun}.`,
    value_invalid: `The member's ${noun} ${is} not valid for the carrier.`,
  }
}

// Items that are records (a person, a coverage, a plan choice) read differently.
const RECORD_MESSAGES: Partial<Record<DiscrepancyParameter, Record<DiscrepancyKind, string>>> = {
  subscriber: {
    carrier_value_differs: "The subscriber's record at the carrier differs from the platform's.",
    carrier_missing: 'The carrier has no record of this subscriber.',
    platform_missing: 'The carrier has a subscriber the platform has not sent.',
    value_invalid: "The subscriber's record is not valid for the carrier.",
  },
  dependent: {
    carrier_value_differs: "The dependent's record at the carrier differs from the platform's.",
    carrier_missing: 'The carrier has no record of this dependent.',
    platform_missing: 'The carrier has a dependent the platform has not sent.',
    value_invalid: "The dependent's record is not valid for the carrier.",
  },
  coverage: {
    carrier_value_differs: "The member's coverage at the carrier differs from the platform's elections.",
    carrier_missing: 'The carrier has no record of this coverage.',
    platform_missing: 'The carrier has a coverage the platform has not sent.',
    value_invalid: 'The coverage is not valid for the carrier.',
  },
  plan_id: {
    carrier_value_differs: 'The carrier has the member in a different plan than the platform.',
    carrier_missing: 'The carrier does not know the plan the member is enrolled in.',
    platform_missing: 'The carrier has the member in a plan the platform has not sent.',
    value_invalid: 'The plan is not valid for the carrier.',
  },
  primary_care_provider: {
    carrier_value_differs: "The member's primary care provider at the carrier differs from the platform's selection.",
    carrier_missing: 'The carrier has no primary care provider for the member.',
    platform_missing: 'A primary care provider selection is required for this HMO enrollment.',
    value_invalid: "The member's primary care provider is not valid for the carrier.",
  },
}

// Getting a person, a coverage or a plan wrong means a wrong enrollment.
const RECORD_SEVERITY: Severity = 'failure'

function buildCatalogue(): DiscrepancyMessage[] {
  return DISCREPANCY_PARAMETERS.flatMap((parameter) => {
    const field = MEMBER_FIELDS[parameter]
    const messages = field ? memberFieldMessages(field) : RECORD_MESSAGES[parameter]
    if (!messages) throw new Error(`discrepancy parameter ${parameter} has no messages`)
    return DISCREPANCY_KINDS.map((kind) => ({
      parameter,
      kind,
      message: messages[kind],
      severity: field?.severity ?? RECORD_SEVERITY,
      assignee: ASSIGNEE_BY_KIND[kind],
    }))
  })
}

/** Every parameter and kind, in the order of the interface document's list: what GET /discrepancy_messages publishes. */
export const DISCREPANCY_MESSAGES: readonly DiscrepancyMessage[] = Object.freeze(buildCatalogue())

const byKey = new Map(DISCREPANCY_MESSAGES.map((entry) => [`${entry.parameter}:${entry.kind}`, entry]))

/** The standard message, severity and assignee of a discrepancy. */
export function discrepancyMessage(parameter: DiscrepancyParameter, kind: DiscrepancyKind): DiscrepancyMessage {
  return byKey.get(`${parameter}:${kind}`)!
}

/**
 * The kind implied by the values when none is given: a side without a value lacks it; two values
 * differ; no value at all is a report that the item is invalid.
 */
export function kindFromValues(carrier: unknown, platform: unknown): DiscrepancyKind {
  const hasCarrier = carrier !== null && carrier !== undefined
  const hasPlatform = platform !== null && platform !== undefined
  if (hasCarrier && hasPlatform) return 'carrier_value_differs'
  if (hasPlatform) return 'carrier_missing'
  if (hasCarrier) return 'platform_missing'
  return 'value_invalid'
}
