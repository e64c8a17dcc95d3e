import {
  BENEFIT_STATUS,
  COVERAGE_LEVEL,
  EMPLOYMENT_STATUS,
  FILE_ACTION,
  GENDER,
  MAINTENANCE_REASON,
  MAINTENANCE_TYPE,
  MARITAL_STATUS,
  RELATIONSHIP,
  TOBACCO_USE,
  type CodeTable,
} from '../modules/edi-834/edi-834.codes.js'

/**
 * Plain-English notes for the 834 segments `npm run demo` prints, so a reader new to X12 can follow
 * the file: what each segment is and what its codes mean (005010X220A1). The words come from the
 * same code tables the file builder writes with, so the notes cannot disagree with the file.
 */

/** A code with its meaning: `021 addition`; a code the tables do not know stays a bare code. */
function coded<Word extends string>(table: CodeTable<Word>, code: string | undefined): string {
  if (!code) return '(none)'
  const word = table.toWord.get(code)
  return word ? `${code} ${word.replace(/_/g, ' ')}` : code
}

const DATE_QUALIFIERS: Readonly<Record<string, string>> = {
  '007': 'file effective date',
  '303': 'maintenance effective date (when this change takes effect)',
  '336': 'employment begin',
  '337': 'employment end',
  '356': 'eligibility begin',
  '357': 'eligibility end',
  '348': 'benefit (coverage) begin',
  '349': 'benefit (coverage) end',
}

const REFERENCE_QUALIFIERS: Readonly<Record<string, string>> = {
  '38': "master policy number: the carrier's group number",
  '0F': "subscriber identifier: the client's external identifier of the employee",
  '1L': "group or policy number: the carrier's group number",
  '17': "client reporting category: Enrollsync's member id, which the carrier's census echoes",
  '23': "client number: the carrier's own member id, learnt from its census",
  CE: "class of contract: the plan's external identifier",
  ZZ: 'reporting category value',
}

const ENTITY_QUALIFIERS: Readonly<Record<string, string>> = {
  P5: 'plan sponsor (the employer)',
  IN: 'payer (the carrier)',
  BO: 'broker (the producer of record)',
  '75': 'reporting category',
}

const QUANTITY_QUALIFIERS: Readonly<Record<string, string>> = { TO: 'members in the file', ET: 'employees (subscribers)', DT: 'dependents' }

const LINE_CODES: Readonly<Record<string, string>> = {
  HLT: 'health (medical)',
  HMO: 'health maintenance organization',
  PPO: 'preferred provider organization',
  EPO: 'exclusive provider organization',
  POS: 'point of service',
  DEN: 'dental',
  VIS: 'vision',
  AG: 'life',
  AH: 'accidental death and dismemberment',
  STD: 'short-term disability',
  LTD: 'long-term disability',
}

const ID_QUALIFIERS: Readonly<Record<string, string>> = { FI: 'federal tax id (FEIN)', '94': 'code assigned by the receiver', XX: 'NPI' }

/** What one segment says, in a line; an unknown segment answers its id only. */
export function explainSegment(segment: string): string {
  const e = segment.split('*')
  const at = (i: number) => e[i] ?? ''
  switch (at(0)) {
    case 'ISA':
      return `interchange header: from ${at(5)} ${at(6).trim()} to ${at(7)} ${at(8).trim()}, control number ${at(13)}, ${at(15) === 'P' ? 'P production' : 'T test'} data`
    case 'GS':
      return `functional group header: BE benefit enrollment, from ${at(2)} to ${at(3)}, group ${at(6)}, version ${at(8)}`
    case 'ST':
      return `transaction set header: an ${at(1)} (benefit enrollment and maintenance), control number ${at(2)}`
    case 'BGN':
      return `beginning segment: ${at(1) === '00' ? '00 original' : at(1)}, reference ${at(2)}, created ${at(3)} ${at(4)}; action ${coded(FILE_ACTION, at(8))}${at(8) === 'RX' ? ' (a full file replacing the carrier\'s data)' : ''}`
    case 'REF':
      return `reference ${at(1)}: ${REFERENCE_QUALIFIERS[at(1)] ?? 'identifier'}`
    case 'DTP':
      return `date ${at(1)}: ${DATE_QUALIFIERS[at(1)] ?? 'date'} (D8 = CCYYMMDD)`
    case 'QTY':
      return `control total ${at(1)}: ${at(2)} ${QUANTITY_QUALIFIERS[at(1)] ?? ''}`.trimEnd()
    case 'N1':
      return `${ENTITY_QUALIFIERS[at(1)] ?? `party ${at(1)}`}${at(3) ? `, identified by ${at(3)} ${ID_QUALIFIERS[at(3)] ?? ''}`.trimEnd() : ''}`
    case 'INS':
      return (
        `a member's loop starts: ${at(1) === 'Y' ? 'Y subscriber' : 'N dependent'}, ${coded(RELATIONSHIP, at(2))}, ` +
        `${coded(MAINTENANCE_TYPE, at(3))}, reason ${coded(MAINTENANCE_REASON, at(4))}, ${coded(BENEFIT_STATUS, at(5))}` +
        (at(8) ? `, ${coded(EMPLOYMENT_STATUS, at(8))}` : '')
      )
    case 'NM1':
      if (at(1) === 'IL') return `member name (IL insured)${at(8) === '34' ? ', 34 = a Social Security number follows (masked here)' : ''}`
      if (at(1) === '31') return 'mailing address follows'
      if (at(1) === 'P3') return 'primary care provider, XX = by NPI'
      return `name ${at(1)}`
    case 'PER':
      return `member contact: ${[e.includes('TE') ? 'TE telephone' : '', e.includes('EM') ? 'EM email' : ''].filter(Boolean).join(', ')}`
    case 'N3':
      return 'street address'
    case 'N4':
      return `city, state, ZIP${at(5) === 'CY' ? ', CY county FIPS code' : ''}`
    case 'DMG':
      return `demographics: birth date (D8; year masked here), gender ${coded(GENDER, at(3))}${at(4) ? `, marital status ${coded(MARITAL_STATUS, at(4))}` : ''}`
    case 'HLH':
      return `health information: tobacco use ${coded(TOBACCO_USE, at(1))}`
    case 'HD':
      return `health coverage: maintenance ${coded(MAINTENANCE_TYPE, at(1))}, line ${at(3)} ${LINE_CODES[at(3)] ?? ''}, coverage level ${coded(COVERAGE_LEVEL, at(5))}`
    case 'AMT':
      return 'coverage amount (life volume)'
    case 'LX':
      return 'loop counter'
    case 'LS':
    case 'LE':
      return `${at(0) === 'LS' ? 'start' : 'end'} of the reporting categories loop`
    case 'SE':
      return `transaction set trailer: ${at(1)} segments from ST to SE, control number ${at(2)}`
    case 'GE':
      return `functional group trailer: ${at(1)} transaction set(s), group ${at(2)}`
    case 'IEA':
      return `interchange trailer: ${at(1)} functional group(s), control number ${at(2)}`
    default:
      return at(0)
  }
}

/** A DMG segment with the birth year masked: the demo prints birth dates only without their year. */
export function maskBirthYear(segment: string): string {
  return segment.replace(/^DMG\*D8\*\d{4}(\d{4})/, 'DMG*D8*****$1')
}
