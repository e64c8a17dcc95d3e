/**
 * Errors of the pure acknowledgement library. Like the 834 library's errors they carry a stable
 * `code` and no HTTP mapping (a route answering a posted acknowledgement maps them to 422).
 * Messages name segments, element positions and what was expected, never an element's value:
 * an acknowledgement can copy a member's birth date or SSN back to us (IK4-04, CTX).
 */

export type AcknowledgementParseErrorCode =
  /** Nothing but whitespace. */
  | 'empty'
  /** Does not start with an ISA, or its separators cannot be read. */
  | 'not_x12'
  /** Ends before its IEA, an SE, or its last segment terminator. */
  | 'truncated'
  /** Well-formed X12 but no TA1 or 999: an 834 (GS01 BE, ST01 834) posted by mistake, for example. */
  | 'not_an_acknowledgement'
  | 'unexpected_segment'
  | 'missing_segment'
  /** SE01, SE02, GE01, GE02, IEA01 or IEA02 disagrees with what it counts or repeats. */
  | 'control_mismatch'
  /** An element is missing or not of its form (a status letter, a count, a control number). */
  | 'bad_value'

export class AcknowledgementParseError extends Error {
  constructor(
    readonly code: AcknowledgementParseErrorCode,
    message: string,
    /** 1-based ordinal of the offending segment (ISA is 1); 0 when before any segment. */
    readonly position: number,
  ) {
    super(position > 0 ? `${message} (segment ${position})` : message)
    this.name = 'AcknowledgementParseError'
  }
}
