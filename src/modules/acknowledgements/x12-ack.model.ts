/**
 * What a carrier's acknowledgements say, read from a TA1 (interchange acknowledgement) and a 999
 * (implementation acknowledgement, 005010X231A1): x12-834-notes.md, "Acknowledgements".
 *
 * Privacy: an acknowledgement may copy our data back. IK4-04 is a copy of the bad element (a
 * member's birth date, an SSN) and CTX segments carry business-unit values (a member's name or
 * id). This model keeps neither: it feeds error messages, logs and API answers, and the codes,
 * positions and control numbers kept here are enough to name the problem and to find the member
 * in our own 834 (x12-ack.locate.ts). The raw X12, when stored, is the only place they remain.
 */

/** TA1-04. */
export type Ta1Status = 'accepted' | 'accepted_with_errors' | 'rejected'

/** IK5-01: a transaction set's verdict. M, W and X are rejections for security reasons. */
export type TransactionSetStatus =
  | 'accepted'
  | 'accepted_with_errors'
  | 'rejected'
  | 'rejected_authentication_failed'
  | 'rejected_assurance_failed'
  | 'rejected_content_unreadable'

/** AK9-01: a functional group's verdict; partially_accepted when some of its sets were rejected. */
export type FunctionalGroupStatus = 'accepted' | 'accepted_with_errors' | 'partially_accepted' | 'rejected'

/** A code as the acknowledgement sent it, with its meaning when the notes name it (null when unknown). */
export interface AckCode {
  code: string
  reason: string | null
}

/** The acknowledgement interchange's own envelope: the carrier is its sender. */
export interface AckEnvelope {
  senderQualifier: string
  senderId: string
  receiverQualifier: string
  receiverId: string
  /** ISA13 of the acknowledgement itself (the carrier's number, not ours). */
  controlNumber: string
  /** ISA09 YYMMDD and ISA10 HHMM, as sent. */
  date: string
  time: string
  usage: 'P' | 'T'
}

export interface Ta1Acknowledgement {
  /** TA1-01: ISA13 of the interchange acknowledged (ours). */
  acknowledgedControlNumber: string
  /** TA1-02 YYMMDD and TA1-03 HHMM: the acknowledged interchange's date and time. */
  date: string
  time: string
  status: Ta1Status
  /** TA1-05, '000' when there is no error. */
  note: AckCode
}

/** IK4: one bad element of a segment. Its value (IK4-04) is deliberately not kept. */
export interface ElementFinding {
  /** IK4-01: element position in the segment (DMG02 → 2). */
  position: number
  /** IK4-01-2: component position within a composite, when the error is in one. */
  componentPosition: number | null
  /** IK4-01-3: repetition of a repeating element, when given. */
  repetition: number | null
  /** IK4-02: X12 data element reference number (1251 is a date), when sent. */
  dataElement: number | null
  /** IK4-03. */
  error: AckCode
}

/** IK3: one segment in error in a transaction set. */
export interface SegmentFinding {
  /** IK3-01: the segment's id (for a missing segment, the id of the one missing). */
  segmentId: string
  /** IK3-02: position in the transaction set, ST = 1. */
  position: number
  /** IK3-03: the loop id (2100A), null when the carrier leaves it empty. */
  loopId: string | null
  /** IK3-04, null when absent (its IK4s then say what is wrong). */
  error: AckCode | null
  elements: ElementFinding[]
}

/** AK2 ... IK5: the verdict on one transaction set (one of our 834s). */
export interface TransactionSetAck {
  /** AK2-01, '834' for ours. */
  transactionSetId: string
  /** AK2-02: ST02 of the acknowledged set. */
  controlNumber: string
  /** AK2-03: its implementation reference (005010X220A1), null when absent. */
  implementationReference: string | null
  segments: SegmentFinding[]
  status: TransactionSetStatus
  /** IK5-02 ... IK5-06. */
  errors: AckCode[]
}

/** One 999 transaction set: the verdict on one of our functional groups. */
export interface FunctionalGroupAck {
  /** ST02 of the 999 and GS06 of the group holding it: the carrier's numbers. */
  ackControlNumber: string
  ackGroupControlNumber: string
  /** AK1-01: BE for an 834 group. */
  functionalId: string
  /** AK1-02: GS06 of the acknowledged group (ours). */
  acknowledgedGroupControlNumber: string
  /** AK1-03: the acknowledged group's version (GS08), null when absent. */
  version: string | null
  transactionSets: TransactionSetAck[]
  status: FunctionalGroupStatus
  /** AK9-02, AK9-03, AK9-04. */
  counts: { included: number; received: number; accepted: number }
  /** AK9-05 ... AK9-09. */
  errors: AckCode[]
}

/** One acknowledgement interchange: its TA1s (alone, or before the groups) and its 999s. */
export interface AcknowledgementInterchange {
  envelope: AckEnvelope
  ta1s: Ta1Acknowledgement[]
  groups: FunctionalGroupAck[]
}

const TA1_STATUSES: Readonly<Record<string, Ta1Status>> = { A: 'accepted', E: 'accepted_with_errors', R: 'rejected' }
const SET_STATUSES: Readonly<Record<string, TransactionSetStatus>> = {
  A: 'accepted',
  E: 'accepted_with_errors',
  R: 'rejected',
  M: 'rejected_authentication_failed',
  W: 'rejected_assurance_failed',
  X: 'rejected_content_unreadable',
}
const GROUP_STATUSES: Readonly<Record<string, FunctionalGroupStatus>> = { A: 'accepted', E: 'accepted_with_errors', P: 'partially_accepted', R: 'rejected' }

export const ACK_STATUS_WORDS = { ta1: TA1_STATUSES, transactionSet: SET_STATUSES, group: GROUP_STATUSES } as const

/**
 * IK3-04, as X12 data element 620 defines it (I4 not used segment present, I6 implementation
 * dependent segment missing, I9 implementation dependent "not used" segment present).
 * x12-834-notes.md swaps I6 and I9 and leaves out I4; the standard's meanings are what carriers send.
 */
export const SEGMENT_ERRORS: Readonly<Record<string, string>> = {
  '1': 'unrecognized_segment',
  '2': 'unexpected_segment',
  '3': 'required_segment_missing',
  '4': 'loop_over_maximum',
  '5': 'segment_over_maximum_use',
  '6': 'segment_not_in_transaction_set',
  '7': 'segment_not_in_proper_sequence',
  '8': 'segment_has_element_errors',
  I4: 'implementation_not_used_segment_present',
  I6: 'implementation_dependent_segment_missing',
  I7: 'implementation_loop_under_minimum',
  I8: 'implementation_segment_under_minimum_use',
  I9: 'implementation_dependent_not_used_segment_present',
}

/** IK4-03. */
export const ELEMENT_ERRORS: Readonly<Record<string, string>> = {
  '1': 'required_element_missing',
  '2': 'conditional_element_missing',
  '3': 'too_many_elements',
  '4': 'too_short',
  '5': 'too_long',
  '6': 'invalid_character',
  '7': 'invalid_code_value',
  '8': 'invalid_date',
  '9': 'invalid_time',
  '10': 'exclusion_condition_violated',
  '12': 'too_many_repetitions',
  '13': 'too_many_components',
  I10: 'implementation_not_used_element_present',
  I12: 'implementation_pattern_match_failure',
  I13: 'implementation_dependent_element_missing',
  I6: 'code_value_not_used_in_implementation',
}

/** IK5-02 ... (transaction set syntax errors). */
export const TRANSACTION_SET_ERRORS: Readonly<Record<string, string>> = {
  '1': 'transaction_set_not_supported',
  '2': 'trailer_missing',
  '3': 'control_number_mismatch',
  '4': 'segment_count_mismatch',
  '5': 'segments_in_error',
  '6': 'invalid_transaction_set_id',
  '7': 'invalid_control_number',
  '18': 'transaction_set_not_in_functional_group',
  '19': 'invalid_implementation_reference',
  '23': 'control_number_not_unique',
  I5: 'implementation_segments_in_error',
  I6: 'implementation_convention_not_supported',
}

/** AK9-05 ... (functional group syntax errors). */
export const GROUP_ERRORS: Readonly<Record<string, string>> = {
  '1': 'functional_group_not_supported',
  '2': 'functional_group_version_not_supported',
  '3': 'trailer_missing',
  '4': 'control_number_mismatch',
  '5': 'transaction_set_count_mismatch',
  '6': 'invalid_control_number',
  '19': 'control_number_not_unique',
}

/** TA1-05. */
export const TA1_NOTES: Readonly<Record<string, string>> = {
  '000': 'no_error',
  '001': 'control_number_mismatch',
  '002': 'standard_not_supported',
  '003': 'version_not_supported',
  '004': 'invalid_segment_terminator',
  '005': 'invalid_sender_qualifier',
  '006': 'invalid_sender_id',
  '007': 'invalid_receiver_qualifier',
  '008': 'invalid_receiver_id',
  '009': 'unknown_receiver_id',
  '010': 'invalid_authorization_qualifier',
  '011': 'invalid_authorization_value',
  '012': 'invalid_security_qualifier',
  '013': 'invalid_security_value',
  '014': 'invalid_date',
  '015': 'invalid_time',
  '016': 'invalid_standards_identifier',
  '017': 'invalid_version',
  '018': 'invalid_control_number',
  '019': 'invalid_acknowledgment_requested',
  '020': 'invalid_test_indicator',
  '021': 'invalid_group_count',
  '022': 'invalid_control_structure',
  '023': 'premature_end_of_file',
  '024': 'invalid_interchange_content',
  '025': 'duplicate_control_number',
  '026': 'invalid_element_separator',
  '027': 'invalid_component_separator',
}

export function ackCode(table: Readonly<Record<string, string>>, code: string): AckCode {
  return { code, reason: table[code] ?? null }
}
