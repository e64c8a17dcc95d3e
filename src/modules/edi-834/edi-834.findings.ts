import type { DiscrepancyParameter } from '../errors/discrepancy-messages.js'

/**
 * What a finding about our 834 means to the people working the error queue: which member field it
 * is about (so a `file_validation` error names it in `discrepancy.parameter`) and a standard
 * message per 999 code. Used for the findings of a carrier's 999 (IK3/IK4/IK5) and for the
 * rule-table check before a file is sent; both speak in the same codes (x12-834-notes.md,
 * "Acknowledgements"). Messages never carry a value: the bad value may be a birth date or an SSN.
 */

/** Where a finding lies: the segment, its qualifier (element 1) when that tells segments apart, the element position. */
export interface FindingPlace {
  segmentId: string
  /** Element 1 of the segment (DTP's date qualifier, NM1's entity code, REF's qualifier), when known. */
  qualifier?: string | null
  /** The 1-based element position (IK4-01), when the finding is about one element. */
  elementPosition?: number | null
  /** The loop the segment is in ('2300', '2100A', ...), when known. */
  loopId?: string | null
}

/** DTP date qualifiers of a member loop (2000) and of a coverage loop (2300) that map to a field. */
const DATE_PARAMETERS: Readonly<Record<string, DiscrepancyParameter>> = {
  '336': 'employment_start_date',
  '337': 'employment_end_date',
  '348': 'plan_start_date',
  '349': 'plan_end_date',
}

/**
 * The member field a finding is about, or null when it is about none of the interface document's
 * parameters (a name, a maintenance code, the envelope): the caller then files it under the
 * member's record (`subscriber`/`dependent`) or the coverage.
 */
export function parameterOfFinding(place: FindingPlace): DiscrepancyParameter | null {
  const { segmentId, qualifier, elementPosition } = place
  switch (segmentId) {
    case 'DMG':
      if (elementPosition === 2) return 'birth_date'
      if (elementPosition === 3) return 'gender'
      if (elementPosition === 4) return 'marital_status'
      return elementPosition === 1 ? 'birth_date' : null
    case 'N3':
    case 'N4':
      // 2100C's mailing address has no parameter of its own; only the residential one (2100A) has.
      return place.loopId === '2100C' ? null : 'residential_address'
    case 'NM1':
      if (qualifier === 'P3') return 'primary_care_provider'
      if (qualifier === 'IL' && (elementPosition === 8 || elementPosition === 9)) return 'social_security_number'
      return null
    case 'PER':
      return 'phone_numbers'
    case 'HLH':
      return 'tobacco_use'
    case 'AMT':
      return place.loopId === '2300' || place.loopId === null || place.loopId === undefined ? 'plan_volume' : null
    case 'INS':
      return elementPosition === 8 ? 'employment_status' : null
    case 'DTP':
      return (qualifier && DATE_PARAMETERS[qualifier]) || null
    case 'HD':
    case 'REF':
      return qualifier === 'CE' || segmentId === 'HD' ? 'plan_id' : null
    case 'LX':
      return place.loopId === '2310' ? 'primary_care_provider' : null
    default:
      return null
  }
}

/** IK3-04: what is wrong with a segment. */
export const SEGMENT_ERROR_TEXT: Readonly<Record<string, string>> = {
  '1': 'an unrecognized segment',
  '2': 'an unexpected segment',
  '3': 'a required segment missing',
  '4': 'a loop repeated more often than allowed',
  '5': 'a segment used more often than allowed',
  '6': 'a segment not defined in the transaction set',
  '7': 'a segment out of sequence',
  '8': 'a segment with data element errors',
  I4: 'a segment the implementation guide does not use',
  I6: 'an implementation dependent segment missing',
  I7: 'a loop occurring fewer times than the implementation guide requires',
  I8: 'a segment used fewer times than the implementation guide requires',
  I9: 'an implementation dependent segment present where it must not be',
}

/** IK4-03: what is wrong with an element. */
export const ELEMENT_ERROR_TEXT: Readonly<Record<string, string>> = {
  '1': 'a required data element is missing',
  '2': 'a conditionally required data element is missing',
  '3': 'the segment has too many data elements',
  '4': 'a data element is too short',
  '5': 'a data element is too long',
  '6': 'a data element has an invalid character',
  '7': 'a data element has an invalid code value',
  '8': 'a data element has an invalid date',
  '9': 'a data element has an invalid time',
  '10': 'an exclusion condition is violated',
  '12': 'a data element repeats too often',
  '13': 'a data element has too many components',
  I6: 'a code value the implementation guide does not use',
  I9: 'an implementation dependent data element present where it must not be',
  I10: 'a data element the implementation guide does not use is present',
  I11: 'a data element repeats fewer times than the implementation guide requires',
  I12: 'a data element does not match the pattern the implementation guide requires',
  I13: 'an implementation dependent data element is missing',
}

/** IK5-02 to IK5-06: why a whole transaction set was rejected, when no segment is named. */
export const SET_ERROR_TEXT: Readonly<Record<string, string>> = {
  '1': 'the transaction set is not supported',
  '2': 'the transaction set trailer is missing',
  '3': 'the control numbers in the header and trailer do not match',
  '4': 'the segment count in the trailer does not match the segments sent',
  '5': 'one or more segments are in error',
  '6': 'the transaction set identifier is missing or invalid',
  '7': 'the transaction set control number is missing or invalid',
  '23': 'the transaction set control number is not unique within the group',
  I5: 'one or more segments are in error for the implementation guide',
  I6: 'the implementation convention is not supported',
}

export interface FindingCodes extends FindingPlace {
  /** IK3-04. */
  segmentCode?: string | null
  /** IK4-03. */
  elementCode?: string | null
  /** IK4-02: the data element reference number. */
  dataElement?: number | null
}

const textOf = (table: Readonly<Record<string, string>>, code: string) => table[code] ?? `error code ${code}`
const elementName = (place: FindingPlace) => (place.elementPosition ? `${place.segmentId}${String(place.elementPosition).padStart(2, '0')}` : place.segmentId)

/**
 * The standard message of one finding: who found it, where, and the code's meaning. Same code,
 * same words, so operators can sort and recognise them; the bad value is never quoted.
 */
export function findingMessage(by: 'carrier' | 'pre_send', finding: FindingCodes): string {
  const where = `${elementName(finding)}${finding.loopId ? ` in loop ${finding.loopId}` : ''}`
  const what = finding.elementCode ? `${textOf(ELEMENT_ERROR_TEXT, finding.elementCode)} (IK4 code ${finding.elementCode})` : finding.segmentCode ? `${textOf(SEGMENT_ERROR_TEXT, finding.segmentCode)} (IK3 code ${finding.segmentCode})` : 'an error'
  return by === 'carrier'
    ? `The carrier's 999 rejected ${where}: ${what}.`
    : `This member's data would break the 834 at ${where}: ${what}. The member was held back from the file until the data is corrected.`
}

/** The message of a transaction set the carrier rejected without naming a segment (IK5-02..06). */
export function rejectedSetMessage(setCodes: readonly string[]): string {
  const reasons = setCodes.length > 0 ? setCodes.map((code) => `${textOf(SET_ERROR_TEXT, code)} (IK5 code ${code})`).join('; ') : 'no reason given'
  return `The carrier's 999 rejected the whole transaction set: ${reasons}.`
}
