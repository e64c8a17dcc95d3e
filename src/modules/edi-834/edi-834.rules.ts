import { Edi834ParseError } from './edi-834.errors.js'
import { checkSegment, walkLoop, type Condition, type Edi834Problem, type ElementRule, type LoopRule, type SegmentRule, type Usage } from './edi-834.rule-engine.js'
import { ISA_LENGTH, ISA_WIDTHS } from './x12-segments.js'
import { el, tokenizeX12, type X12Token, type X12Tokens } from './x12-tokenize.js'

export type { Edi834Problem } from './edi-834.rule-engine.js'

/**
 * Our rule table for 834 005010X220A1: the loops, segments, usage, repeats and code lists we
 * hold files to. It covers what this service writes and reads, following the X220A1 structure
 * (positions, repeats and code lists checked against the BSD-licensed stupidedi X220A1 guide
 * table). Loops we never use (2100B/D-H, 2200, 2320) are absent, so a file carrying them is
 * reported: this checks our files, it is not a general validator. Where we are stricter than
 * the guide it says so (DMG required; N4 state must be a US code).
 */

const R: Usage = 'required'
const S: Usage = 'situational'
type Elements = Readonly<Record<number, ElementRule>>

function seg(id: string, name: string, usage: Usage, max: number, elements: Elements, extra: Pick<SegmentRule, 'match' | 'conditions'> = {}): SegmentRule {
  return { kind: 'segment', id, name, usage, max, elements, ...extra }
}
function loop(id: string, name: string, usage: Usage, max: number, children: LoopRule['children'], mustContain?: LoopRule['mustContain']): LoopRule {
  return { kind: 'loop', id, name, usage, max, children, ...(mustContain ? { mustContain } : {}) }
}
const qualifier = (...values: string[]) => ({ match: { element: 1, in: values } })
const UNBOUNDED = Number.POSITIVE_INFINITY

// Code lists (X220A1 allowed values).
const RELATIONSHIP_CODES = ['01', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '23', '24', '25', '26', '31', '38', '53', '60', 'D2', 'G8', 'G9']
// 02 (Birth) is in X220A1's list (carriers' guides show it) though stupidedi's table omits it.
const MAINTENANCE_REASON_CODES = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '14', '15', '16', '17', '18', '20', '21', '22', '25', '26', '27', '28', '29', '31', '32', '33', '37', '38', '39', '40', '41', '43', '59', 'AA', 'AB', 'AC', 'AD', 'AE', 'AF', 'AG', 'AH', 'AI', 'AJ', 'AL', 'EC', 'XN', 'XT']
const COBRA_QUALIFYING_EVENT_CODES = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'ZZ']
const INSURANCE_LINE_CODES = ['AG', 'AH', 'AJ', 'AK', 'DCP', 'DEN', 'EPO', 'FAC', 'HE', 'HLT', 'HMO', 'LTC', 'LTD', 'MM', 'MOD', 'PDG', 'POS', 'PPO', 'PRA', 'STD', 'UR', 'VIS']
const COVERAGE_LEVEL_CODES = ['CHD', 'DEP', 'E1D', 'E2D', 'E3D', 'E5D', 'E6D', 'E7D', 'E8D', 'E9D', 'ECH', 'EMP', 'ESP', 'FAM', 'IND', 'SPC', 'SPO', 'TWO']
const COMMUNICATION_QUALIFIERS = ['AP', 'BN', 'CP', 'EM', 'EX', 'FX', 'HP', 'TE', 'WP']
const ISA_ID_QUALIFIERS = ['01', '14', '20', '27', '28', '29', '30', '33', 'ZZ']

const d8Conditions: readonly Condition[] = [
  { when: { element: 2, in: ['D8'] }, then: { element: 3, format: 'date8' } },
  { when: { element: 2, in: ['RD8'] }, then: { element: 3, format: 'dateRange8' } },
]
const n3 = (name: string, usage: Usage) => seg('N3', name, usage, 1, { 1: { usage: R, max: 55 }, 2: { max: 55 } })
const n4 = (name: string, usage: Usage, county: boolean) =>
  seg('N4', name, usage, 1, {
    1: { usage: R, min: 2, max: 30 },
    2: { usage: R, format: 'state' }, // stricter than X220A1 (situational): our members live in the US
    3: { usage: R, format: 'zip' },
    5: county ? { codes: ['CY', '60'] } : { usage: 'not_used' },
    6: county ? {} : { usage: 'not_used' },
  }, county ? { conditions: [{ when: { element: 5, in: ['CY'] }, then: { element: 6, usage: R, format: 'fipsCounty' } }] } : {})

export const ISA_RULE = seg('ISA', 'Interchange Control Header', R, 1, {
  ...Object.fromEntries(ISA_WIDTHS.map((width, i) => [i + 1, { usage: R, min: width, max: width }])),
  1: { usage: R, codes: ['00', '03'] },
  3: { usage: R, codes: ['00', '01'] },
  5: { usage: R, codes: ISA_ID_QUALIFIERS },
  7: { usage: R, codes: ISA_ID_QUALIFIERS },
  9: { usage: R, format: 'date6' },
  10: { usage: R, format: 'time4' },
  12: { usage: R, codes: ['00501'] },
  13: { usage: R, min: 9, max: 9, format: 'count' },
  14: { usage: R, codes: ['0', '1'] },
  15: { usage: R, codes: ['P', 'T'] },
})
export const GS_RULE = seg('GS', 'Functional Group Header', R, 1, {
  1: { usage: R, codes: ['BE'] },
  2: { usage: R, min: 2, max: 15 },
  3: { usage: R, min: 2, max: 15 },
  4: { usage: R, format: 'date8' },
  5: { usage: R, format: 'time' },
  6: { usage: R, format: 'count', max: 9 },
  7: { usage: R, codes: ['X'] },
  8: { usage: R, codes: ['005010X220A1'] },
})
export const GE_RULE = seg('GE', 'Functional Group Trailer', R, 1, { 1: { usage: R, format: 'count' }, 2: { usage: R, format: 'count', max: 9 } })
export const IEA_RULE = seg('IEA', 'Interchange Control Trailer', R, 1, { 1: { usage: R, format: 'count' }, 2: { usage: R, format: 'count', min: 9, max: 9 } })

const loop2100A = loop('2100A', 'Member Name', R, 1, [
  seg('NM1', 'Member Name', R, 1, {
    2: { usage: R, codes: ['1'] }, 3: { usage: R, max: 60 }, 4: { max: 35 }, 5: { max: 25 }, 8: { codes: ['34', 'ZZ'] }, 9: { max: 80 },
  }, { ...qualifier('IL', '74'), conditions: [
    { when: { element: 8, in: ['34'] }, then: { element: 9, usage: R, format: 'ssn' } },
    { when: { element: 8, in: ['ZZ'] }, then: { element: 9, usage: R } },
  ] }),
  seg('PER', 'Member Communications Numbers', S, 1, {
    1: { usage: R, codes: ['IP'] }, 2: { usage: 'not_used' }, 3: { usage: R, codes: COMMUNICATION_QUALIFIERS }, 4: { usage: R, max: 256 },
    5: { codes: COMMUNICATION_QUALIFIERS }, 6: { max: 256 }, 7: { codes: COMMUNICATION_QUALIFIERS }, 8: { max: 256 },
  }),
  n3('Member Residence Street Address', S),
  n4('Member City, State, Zip Code', S, true),
  // DMG is situational in X220A1; we require it (birth date and gender identify the member).
  seg('DMG', 'Member Demographics', R, 1, {
    1: { usage: R, codes: ['D8'] }, 2: { usage: R, format: 'date8' }, 3: { usage: R, codes: ['F', 'M', 'U'] }, 4: { codes: ['B', 'D', 'I', 'M', 'R', 'S', 'U', 'W', 'X'] },
  }),
  seg('HLH', 'Member Health Information', S, 1, { 1: { usage: R, codes: ['N', 'S', 'T', 'U', 'X'] } }),
])

const loop2100C = loop('2100C', 'Member Mailing Address', S, 1, [
  seg('NM1', 'Member Mailing Address', S, 1, { 2: { usage: R, codes: ['1'] }, 3: { usage: 'not_used' } }, qualifier('31')),
  n3('Member Mail Street Address', R),
  n4('Member Mail City, State, Zip Code', S, false),
])

const loop2310 = loop('2310', 'Provider Information', S, 30, [
  seg('LX', 'Provider Information', S, 1, { 1: { usage: R, format: 'count' } }),
  seg('NM1', 'Provider Name', R, 1, {
    1: { usage: R, codes: ['1X', '3D', '80', 'FA', 'OD', 'P3', 'QA', 'QN', 'Y2'] }, 2: { usage: R, codes: ['1', '2'] }, 3: { max: 60 }, 4: { max: 35 },
    8: { codes: ['34', 'FI', 'SV', 'XX'] }, 10: { usage: R, codes: ['25', '26', '72'] },
  }, { conditions: [{ when: { element: 8, in: ['XX'] }, then: { element: 9, usage: R, format: 'npi' } }] }),
  n3('Provider Address', S),
  n4('Provider City, State, Zip Code', S, false),
  seg('PLA', 'Provider Change Reason', S, 1, { 1: { usage: R, codes: ['2'] }, 2: { usage: R, codes: ['1P'] }, 3: { usage: R, format: 'date8' } }),
])

const loop2300 = loop('2300', 'Health Coverage', S, 99, [
  seg('HD', 'Health Coverage', S, 1, {
    1: { usage: R, codes: ['001', '002', '021', '024', '025', '026', '030', '032'] }, 2: { usage: 'not_used' },
    3: { usage: R, codes: INSURANCE_LINE_CODES }, 4: { max: 50 }, 5: { codes: COVERAGE_LEVEL_CODES },
  }),
  seg('DTP', 'Health Coverage Dates', R, 6, { 1: { usage: R, codes: ['300', '303', '343', '348', '349', '543', '695'] }, 2: { usage: R, codes: ['D8', 'RD8'] }, 3: { usage: R } }, { conditions: d8Conditions }),
  seg('AMT', 'Health Coverage Policy', S, 9, { 1: { usage: R, codes: ['B9', 'C1', 'D2', 'EBA', 'FK', 'P3', 'R'] }, 2: { usage: R, format: 'amount' } }),
  seg('REF', 'Health Coverage Policy Number', S, 14, { 2: { usage: R, max: 50 } }, qualifier('17', '1L', '9V', 'CE', 'E8', 'M7', 'PID', 'RB', 'X9', 'XM', 'XX1', 'XX2', 'ZX', 'ZZ')),
  seg('REF', 'Prior Coverage Months', S, 1, { 2: { usage: R, max: 50 } }, qualifier('QQ')),
  seg('IDC', 'Identification Card', S, 3, { 1: { usage: R }, 2: { usage: R, codes: ['D', 'H', 'P'] } }),
  loop2310,
], [{ id: 'DTP', element: 1, value: '348' }])

const loop2700 = loop('2700', 'Additional Reporting Categories', S, 1, [
  seg('LS', 'Additional Reporting Categories', S, 1, { 1: { usage: R, codes: ['2700'] } }),
  loop('2710', 'Member Reporting Categories', S, UNBOUNDED, [
    seg('LX', 'Member Reporting Categories', S, 1, { 1: { usage: R, format: 'count' } }),
    loop('2750', 'Reporting Category', R, 1, [
      seg('N1', 'Reporting Category', S, 1, { 1: { usage: R, codes: ['75'] }, 2: { usage: R, max: 60 } }, qualifier('75')),
      seg('REF', 'Reporting Category Reference', R, 16, {
        1: { usage: R, codes: ['00', '17', '18', '19', '26', '3L', '6M', '9V', '9X', 'GE', 'LU', 'PID', 'XX1', 'XX2', 'YY', 'ZZ'] }, 2: { usage: R, max: 50 },
      }),
      seg('DTP', 'Reporting Category Date', S, 1, { 1: { usage: R, codes: ['007'] }, 2: { usage: R, codes: ['D8', 'RD8'] }, 3: { usage: R } }, { conditions: d8Conditions }),
    ]),
  ]),
  seg('LE', 'Additional Reporting Categories Loop Termination', R, 1, { 1: { usage: R, codes: ['2700'] } }),
])

/** Loop 2000, one member: the check before a file is sent walks each member against it (edi-834.member-check.ts). */
export const LOOP_2000 = loop('2000', 'Member Level Detail', R, UNBOUNDED, [
  seg('INS', 'Member Level Detail', R, 1, {
    1: { usage: R, codes: ['Y', 'N'] }, 2: { usage: R, codes: RELATIONSHIP_CODES }, 3: { usage: R, codes: ['001', '021', '024', '025', '030'] },
    4: { codes: MAINTENANCE_REASON_CODES }, 5: { usage: R, codes: ['A', 'C', 'S', 'T'] }, 7: { codes: COBRA_QUALIFYING_EVENT_CODES },
    8: { codes: ['AC', 'AO', 'AU', 'FT', 'L1', 'PT', 'RT', 'TE'] }, 9: { codes: ['F', 'N', 'P'] }, 10: { codes: ['Y', 'N'] },
  }, { conditions: [
    { when: { element: 1, in: ['Y'] }, then: { element: 2, codes: ['18'] } },
    { when: { element: 1, in: ['N'] }, then: { element: 8, usage: 'not_used' } }, // employment status is the subscriber's
    { when: { element: 4, in: ['XN'] }, then: { element: 3, codes: ['030'] } }, // "notification only" belongs to audit files
  ] }),
  seg('REF', 'Subscriber Identifier', R, 1, { 2: { usage: R, max: 50 } }, qualifier('0F')),
  seg('REF', 'Member Policy Number', S, 1, { 2: { usage: R, max: 50 } }, qualifier('1L')),
  seg('REF', 'Member Supplemental Identifier', S, 13, { 2: { usage: R, max: 50 } }, qualifier('17', '23', '3H', '4A', '6O', 'ABB', 'D3', 'DX', 'F6', 'P5', 'Q4', 'QQ', 'ZZ')),
  seg('DTP', 'Member Level Dates', S, 24, {
    1: { usage: R, codes: ['050', '286', '296', '297', '300', '301', '303', '336', '337', '338', '339', '340', '341', '350', '351', '356', '357', '383', '385', '386', '393', '394', '473', '474'] },
    2: { usage: R, codes: ['D8'] }, 3: { usage: R, format: 'date8' },
  }),
  loop2100A,
  loop2100C,
  loop2300,
  loop2700,
])

/** The transaction set, ST through SE. */
export const TRANSACTION_834: LoopRule = loop('ST', 'Benefit Enrollment and Maintenance', R, 1, [
  seg('ST', 'Transaction Set Header', R, 1, { 1: { usage: R, codes: ['834'] }, 2: { usage: R, min: 4, max: 9 }, 3: { usage: R, codes: ['005010X220A1'] } }),
  seg('BGN', 'Beginning Segment', R, 1, {
    1: { usage: R, codes: ['00', '15', '22'] }, 2: { usage: R, max: 50 }, 3: { usage: R, format: 'date8' }, 4: { usage: R, format: 'time' },
    7: { usage: 'not_used' }, 8: { usage: R, codes: ['2', '4', 'RX'] },
  }),
  seg('REF', 'Transaction Set Policy Number', S, 1, { 2: { usage: R, max: 50 } }, qualifier('38')),
  seg('DTP', 'File Effective Date', S, 2, { 1: { usage: R, codes: ['007', '090', '091', '303', '382', '388'] }, 2: { usage: R, codes: ['D8'] }, 3: { usage: R, format: 'date8' } }),
  seg('QTY', 'Transaction Set Control Totals', S, 3, { 1: { usage: R, codes: ['DT', 'ET', 'TO'] }, 2: { usage: R, format: 'count', max: 15 } }),
  loop('1000A', 'Sponsor Name', R, 1, [seg('N1', 'Sponsor Name', R, 1, { 2: { max: 60 }, 3: { usage: R, codes: ['24', '94', 'FI'] }, 4: { usage: R, max: 80 } }, qualifier('P5'))]),
  loop('1000B', 'Payer', R, 1, [seg('N1', 'Payer', R, 1, { 2: { max: 60 }, 3: { usage: R, codes: ['94', 'FI', 'XV'] }, 4: { usage: R, max: 80 } }, qualifier('IN'))]),
  loop('1000C', 'TPA/Broker Name', S, 2, [
    seg('N1', 'TPA/Broker Name', S, 1, { 2: { max: 60 }, 3: { usage: R, codes: ['94', 'FI', 'XV'] }, 4: { usage: R, max: 80 } }, qualifier('BO', 'TV')),
    seg('ACT', 'TPA/Broker Account Information', S, 1, { 1: { usage: R, max: 35 } }),
  ]),
  LOOP_2000,
  seg('SE', 'Transaction Set Trailer', R, 1, { 1: { usage: R, format: 'count' }, 2: { usage: R } }),
])

/** Envelope cross-checks: each names the element and what it must equal. */
export const CONTROL_RULES: readonly { segment: string; element: number; equals: { count: 'segments' | 'transactionSets' | 'groups' } | { segment: string; element: number } }[] = [
  { segment: 'ST', element: 3, equals: { segment: 'GS', element: 8 } },
  { segment: 'SE', element: 1, equals: { count: 'segments' } }, // ST through SE, both included
  { segment: 'SE', element: 2, equals: { segment: 'ST', element: 2 } },
  { segment: 'GE', element: 1, equals: { count: 'transactionSets' } },
  { segment: 'GE', element: 2, equals: { segment: 'GS', element: 6 } },
  { segment: 'IEA', element: 1, equals: { count: 'groups' } },
  { segment: 'IEA', element: 2, equals: { segment: 'ISA', element: 13 } },
]

/**
 * X12 data element reference numbers of the segments this table knows, by element position
 * (index 0 is element 01; 0 where the element is a composite or not listed). A 999 names a bad
 * element by them (IK4-02): DMG02 is 1251, a date. The numbers depend on the segment only, not
 * its loop. ISA elements have I-numbers, not data element numbers, and are absent.
 */
export const DATA_ELEMENT_NUMBERS: Readonly<Record<string, readonly number[]>> = {
  GS: [479, 142, 124, 373, 337, 28, 455, 480],
  GE: [97, 28],
  IEA: [],
  ST: [143, 329, 1705],
  SE: [96, 329],
  BGN: [353, 127, 373, 337, 623, 127, 640, 306],
  REF: [128, 127, 352],
  DTP: [374, 1250, 1251],
  QTY: [673, 380],
  N1: [98, 93, 66, 67],
  ACT: [508, 93, 66, 67, 569, 508, 107, 1216],
  INS: [1073, 1069, 875, 1203, 1216, 0, 1219, 584, 1220, 1073, 1250, 1251, 1165, 19, 156, 26, 1470],
  NM1: [98, 1065, 1035, 1036, 1037, 1038, 1039, 66, 67, 706, 98, 1035],
  PER: [366, 93, 365, 364, 365, 364, 365, 364],
  N3: [166, 166],
  N4: [19, 156, 116, 26, 309, 310],
  DMG: [1250, 1251, 1068, 1067],
  HLH: [1212, 65, 81],
  HD: [875, 1203, 1205, 1204, 1207, 609, 1209, 1209, 1073],
  AMT: [522, 782],
  IDC: [1204, 1215, 380, 306],
  LX: [554],
  PLA: [306, 1203, 373, 337, 1203],
  LS: [447],
  LE: [447],
}

/** Fills `dataElement` of element problems from DATA_ELEMENT_NUMBERS (the engine knows no dictionary). */
export function addDataElementNumbers(problems: Edi834Problem[]): void {
  for (const problem of problems) {
    if (!problem.element || !problem.elementCode) continue
    const position = Number(problem.element.slice(problem.segment.length))
    const number = DATA_ELEMENT_NUMBERS[problem.segment]?.[position - 1]
    if (number) problem.dataElement = number
  }
}

type Context = { ISA?: X12Token; GS?: X12Token; ST?: X12Token; segments: number; transactionSets: number; groups: number }

function checkControls(token: X12Token, context: Context, out: Edi834Problem[]): void {
  for (const rule of CONTROL_RULES) {
    if (rule.segment !== token.id) continue
    const value = el(token, rule.element)
    const name = `${token.id}${String(rule.element).padStart(2, '0')}`
    if ('count' in rule.equals) {
      const expected = context[rule.equals.count]
      if (value !== String(expected)) out.push({ position: token.position, segment: token.id, element: name, message: `${name} is '${value}' but the count is ${expected}` })
    } else {
      const other = context[rule.equals.segment as 'ISA' | 'GS' | 'ST']
      const expected = other ? el(other, rule.equals.element) : undefined
      const otherName = `${rule.equals.segment}${String(rule.equals.element).padStart(2, '0')}`
      if (expected !== undefined && value !== expected) out.push({ position: token.position, segment: token.id, element: name, message: `${name} '${value}' does not match ${otherName} '${expected}'` })
    }
  }
}

const ENDS_TRANSACTION = new Set(['SE', 'ST', 'GE', 'GS', 'IEA'])

/** ISA, then GS ... GE groups of ST ... SE sets, then IEA; each set walked against TRANSACTION_834. */
function checkEnvelope(tokens: readonly X12Token[], out: Edi834Problem[]): void {
  const isa = tokens[0] as X12Token
  const context: Context = { ISA: isa, segments: 0, transactionSets: 0, groups: 0 }
  checkSegment(isa, ISA_RULE, out)
  let i = 1
  while (i < tokens.length && tokens[i]?.id === 'GS') {
    const gs = tokens[i] as X12Token
    checkSegment(gs, GS_RULE, out)
    context.GS = gs
    context.groups++
    context.transactionSets = 0
    i++
    while (i < tokens.length && !['GE', 'GS', 'IEA'].includes((tokens[i] as X12Token).id)) {
      const token = tokens[i] as X12Token
      if (token.id !== 'ST') {
        out.push({ position: token.position, segment: token.id, message: `${token.id} is outside a transaction set` })
        i++
        continue
      }
      let end = i + 1
      while (end < tokens.length && !ENDS_TRANSACTION.has((tokens[end] as X12Token).id)) end++
      const hasSe = tokens[end]?.id === 'SE'
      const set = tokens.slice(i, hasSe ? end + 1 : end)
      context.ST = token
      context.transactionSets++
      context.segments = set.length
      walkLoop(TRANSACTION_834, set, { pos: 0 }, [], out)
      checkControls(token, context, out)
      if (hasSe) checkControls(tokens[end] as X12Token, context, out)
      i = hasSe ? end + 1 : end
    }
    const ge = tokens[i]
    if (ge?.id === 'GE') {
      checkSegment(ge, GE_RULE, out)
      checkControls(ge, context, out)
      i++
    } else {
      out.push({ position: ge?.position ?? tokens.length, segment: ge?.id ?? 'GE', message: 'missing GE: the functional group is not closed' })
    }
  }
  if (context.groups === 0) out.push({ position: tokens[1]?.position ?? 1, segment: tokens[1]?.id ?? 'GS', message: 'the interchange has no functional group (GS)' })
  const iea = tokens[i]
  if (iea?.id === 'IEA') {
    checkSegment(iea, IEA_RULE, out)
    checkControls(iea, context, out)
    i++
  } else {
    out.push({ position: iea?.position ?? tokens.length, segment: iea?.id ?? 'IEA', message: 'missing IEA: the interchange is not closed' })
  }
  const after = tokens[i]
  if (after) {
    // One problem for the lot: a second interchange appended would otherwise list every segment.
    const count = tokens.length - i
    out.push({ position: after.position, segment: after.id, message: `${after.id} after the end of the interchange${count > 1 ? ` (and ${count - 1} more segments)` : ''}` })
  }
}

/**
 * Checks a whole file against the envelope rules and the 834 rule table. An empty array means
 * valid. Never throws on bad input: unreadable text is reported as a problem.
 */
export function check834(text: string): Edi834Problem[] {
  let tokens
  try {
    tokens = tokenizeX12(text)
  } catch (error) {
    if (error instanceof Edi834ParseError) return [{ position: error.position, segment: 'ISA', message: error.message }]
    throw error
  }
  return check834Tokens(tokens)
}

/** check834 on text already tokenized: a caller that walks the segments too (the sandbox's 999) reads the file once. */
export function check834Tokens(tokens: X12Tokens): Edi834Problem[] {
  const problems: Edi834Problem[] = []
  if (tokens.isaLength !== ISA_LENGTH) {
    problems.push({ position: 1, segment: 'ISA', message: `the ISA is ${tokens.isaLength} characters long, not ${ISA_LENGTH}` })
  }
  if (tokens.trailing !== '') {
    problems.push({ position: tokens.segments.length + 1, segment: tokens.trailing.slice(0, 3), message: 'text after the last segment terminator' })
  }
  checkEnvelope(tokens.segments, problems)
  addDataElementNumbers(problems)
  return problems
}
