import type { CobraQualifyingEvent, Edi834Coverage, Edi834Member, FileAction, MaintenanceReason, MaintenanceType, MemberRelationship } from './edi-834.model.js'

/**
 * The service's words ↔ X12 834 (005010X220A1) codes. Every table is exported both ways: the
 * writer maps words to codes, the parser (reading a carrier's audit file) maps codes back.
 *
 * Where several words share a code the inverse keeps the FIRST word listed, so the order of the
 * entries is the decision (documented beside each table). Code lists were checked against the
 * X220A1 allowed values (stupidedi's X220A1 guide table, BSD) and the X12 element dictionaries.
 */
export interface CodeTable<Word extends string, Code extends string = string> {
  readonly toCode: Readonly<Record<Word, Code>>
  /** Code → word; absent for codes the service has no word for. */
  readonly toWord: ReadonlyMap<string, Word>
}

function codeTable<Word extends string, Code extends string = string>(toCode: Record<Word, Code>): CodeTable<Word, Code> {
  const toWord = new Map<string, Word>()
  for (const [word, code] of Object.entries(toCode) as [Word, Code][]) {
    if (!toWord.has(code)) toWord.set(code, word)
  }
  return { toCode: Object.freeze(toCode), toWord }
}

/** INS02 individual relationship code. */
export const RELATIONSHIP = codeTable<MemberRelationship>({
  self: '18',
  spouse: '01',
  child: '19',
  // 53 "Life Partner": the X220A1 code for a domestic partner.
  registered_domestic_partner: '53',
  grandchild: '05',
  // 15 "Ward": a dependent placed with the subscriber by a court. 38 "Collateral Dependent" is
  // the other candidate; carriers' guides more often name 15 for court-ordered dependents.
  court_ordered_dependent: '15',
})

/** INS03 (member) and HD01 (coverage) maintenance type code. */
export const MAINTENANCE_TYPE = codeTable<MaintenanceType>({
  addition: '021',
  change: '001',
  termination: '024', // "Cancellation or Termination"
  reinstatement: '025',
  audit: '030', // "Audit or Compare": a full file that does not change the carrier's data
})

/** INS04 maintenance reason code. */
export const MAINTENANCE_REASON = codeTable<MaintenanceReason>({
  initial_enrollment: '28',
  birth: '02',
  marriage: '32',
  divorce: '01',
  identifying_data: '25', // "Change in Identifying Data Elements"
  benefit_selection: 'EC', // "Member Benefit Selection"
  // 08 is "Termination of Employment" in the X12 dictionary; 07 is "Termination of Benefits".
  termination_of_employment: '08',
  no_reason: 'AI', // "No Reason Given"
  audit: 'XN', // "Notification Only": used with INS03 030 (audit files)
  adoption: '05',
  legal_separation: '31',
  death: '03',
  surviving_spouse: '11',
  cobra: '09', // "Change in Status ... COBRA": the member continues under COBRA
  re_enrollment: '41',
  plan_change: '22',
})

/**
 * INS07 COBRA qualifying event code (X220A1: 1 termination of employment, 2 reduction of work
 * hours, 3 Medicare, 4 death, 5 divorce, 6 separation, 7 ineligible child, 8 bankruptcy of the
 * retiree's former employer, 9 layoff, 10 leave of absence, ZZ mutually defined). The service
 * sends the six events it has words for.
 */
export const COBRA_QUALIFYING_EVENT = codeTable<CobraQualifyingEvent>({
  termination_of_employment: '1',
  reduction_of_hours: '2',
  death: '4',
  divorce: '5',
  legal_separation: '6',
  ineligible_child: '7',
})

/** INS05 benefit status code. */
export const BENEFIT_STATUS = codeTable<Edi834Member['benefitStatus']>({ active: 'A', cobra: 'C' })

/** INS08 employment status code (subscribers only). Injective: X220A1 has AO/AU for the military. */
export const EMPLOYMENT_STATUS = codeTable({
  active: 'AC',
  full_time: 'FT',
  part_time: 'PT',
  retired: 'RT',
  terminated: 'TE',
  leave_of_absence: 'L1',
  active_military_overseas: 'AO',
  active_military_usa: 'AU',
})

/** HD05 coverage level code. */
export const COVERAGE_LEVEL = codeTable<Edi834Coverage['coverageLevel']>({
  employee_only: 'EMP',
  employee_and_spouse: 'ESP',
  employee_and_children: 'ECH',
  family: 'FAM',
  employee_and_one_dependent: 'E1D',
  individual: 'IND',
})

/**
 * DMG03 gender code. X12 has F, M and U only: non_binary is sent as U, and U reads back as
 * `unknown` (listed first), so non_binary does not survive a round trip through a file.
 */
export const GENDER = codeTable({ female: 'F', male: 'M', unknown: 'U', non_binary: 'U' })

/** DMG04 marital status code. */
export const MARITAL_STATUS = codeTable({
  single: 'I',
  married: 'M',
  divorced: 'D',
  widowed: 'W',
  registered_domestic_partner: 'B',
  separated: 'X', // "Legally Separated"
})

/** HLH01 health-related code: T tobacco use, N none. */
export const TOBACCO_USE = codeTable({ yes: 'T', no: 'N' })

/** BGN08 action code. */
export const FILE_ACTION = codeTable<FileAction>({ change: '2', replace: 'RX', verify: '4' })

/**
 * HD03 insurance line code from the plan's product line (and, for disability, product type).
 *
 * - medical → HLT for every medical product type: most carriers' guides ask for HLT and read the
 *   plan from REF*CE; the parser therefore answers productType null for medical.
 * - life → AG and accidental_death_dismemberment → AH follow the project's notes. Caution: in
 *   the X12 dictionary AG is "Preventative Care/Wellness" and AH "24 Hour Care"; X220A1 has no
 *   life or AD&D code, so these two need each carrier's companion guide to confirm.
 *   life_accidental_death_dismemberment is sent as AG (life; the AD&D rider is part of the plan
 *   named in REF*CE) and reads back as life.
 * - accident, critical_illness, hospital_indemnity: X220A1 has no code; the writer refuses them
 *   (Edi834WriteError 'unmapped_value') so they are never sent under a wrong code. A loader
 *   should leave such plans out of 834 files, or a carrier guide should give the code.
 */
const LINE_CODES: Readonly<Record<string, string>> = {
  medical: 'HLT',
  dental: 'DEN',
  vision: 'VIS',
  life: 'AG',
  accidental_death_dismemberment: 'AH',
  life_accidental_death_dismemberment: 'AG',
}
const DISABILITY_CODES: Readonly<Record<string, string>> = { short_term: 'STD', long_term: 'LTD' }

/** Product lines the writer can place on an 834 (disability needs a product type too). */
export const PRODUCT_LINES_ON_834: readonly string[] = Object.freeze([...Object.keys(LINE_CODES), 'disability'])

export function insuranceLineCode(productLine: string, productType: string | null): string | undefined {
  if (productLine === 'disability') return productType === null ? undefined : DISABILITY_CODES[productType]
  return LINE_CODES[productLine]
}

/** HD03 → product line and type. Also accepts the medical network codes a carrier may send. */
const LINE_WORDS: ReadonlyMap<string, { productLine: string; productType: string | null }> = new Map([
  ['HLT', { productLine: 'medical', productType: null }],
  ['HMO', { productLine: 'medical', productType: 'health_maintenance_organization' }],
  ['PPO', { productLine: 'medical', productType: 'preferred_provider_organization' }],
  ['EPO', { productLine: 'medical', productType: 'exclusive_provider_organization' }],
  ['POS', { productLine: 'medical', productType: 'point_of_service' }],
  ['DEN', { productLine: 'dental', productType: null }],
  ['VIS', { productLine: 'vision', productType: null }],
  ['AG', { productLine: 'life', productType: null }],
  ['AH', { productLine: 'accidental_death_dismemberment', productType: null }],
  ['STD', { productLine: 'disability', productType: 'short_term' }],
  ['LTD', { productLine: 'disability', productType: 'long_term' }],
])

export function productFromLineCode(code: string): { productLine: string; productType: string | null } | undefined {
  return LINE_WORDS.get(code)
}

/**
 * The HD03 code `productFromLineCode` read a product from (the exact inverse of LINE_WORDS, so a
 * medical network code such as PPO comes back as read); else the code the writer would send.
 */
export function lineCodeOfProduct(productLine: string, productType: string | null): string | undefined {
  for (const [code, product] of LINE_WORDS) {
    if (product.productLine === productLine && product.productType === productType) return code
  }
  return insuranceLineCode(productLine, productType)
}

/**
 * AMT01 for the coverage volume (life benefit amount). X220A1 allows B9, C1, D2, EBA, FK, P3 and
 * R in loop 2300; B9 is "Co-insurance - Actual", so the volume goes under FK "Other Unlisted
 * Amount", the qualifier X12's work group points to for amounts without their own code.
 */
export const VOLUME_AMOUNT_QUALIFIER = 'FK'

/** N103 qualifiers we send (1000A sponsor, 1000B payer, 1000C broker). */
export const ID_QUALIFIER = Object.freeze({
  /** Federal taxpayer id: the sponsor's FEIN. */
  fein: 'FI',
  /**
   * "Code assigned by the organization that is the ultimate destination": the sponsor's group
   * external identifier when it has no FEIN, the carrier's name as the payer id (XV is a CMS
   * National Plan ID, which we do not hold), and the broker's National Producer Number.
   */
  mutuallyDefined: '94',
})

/** NM110 of loop 2310 (required there): 72 "Unknown", as we do not know whether the member is established with the provider. */
export const PROVIDER_RELATIONSHIP_UNKNOWN = '72'
