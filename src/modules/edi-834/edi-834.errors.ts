/**
 * Errors of the pure 834 library. They are programming or data errors surfaced to the job that
 * builds or reads a file, not API errors: they carry a stable `code` but no HTTP mapping.
 * Messages never echo member data (names, SSNs, birth dates): only codes and positions.
 */

export type Edi834ParseErrorCode =
  | 'not_x12'
  | 'bad_separators'
  | 'unterminated_segment'
  | 'unexpected_segment'
  | 'missing_segment'
  | 'unsupported_code'
  | 'bad_value'

export class Edi834ParseError extends Error {
  constructor(
    readonly code: Edi834ParseErrorCode,
    message: string,
    /** 1-based ordinal of the offending segment in the file (ISA is 1); 0 when before any segment. */
    readonly position: number,
  ) {
    super(position > 0 ? `${message} (segment ${position})` : message)
    this.name = 'Edi834ParseError'
  }
}

export type Edi834WriteErrorCode =
  | 'bad_envelope'
  | 'bad_date'
  | 'unmapped_value'
  | 'member_order'
  | 'totals_mismatch'
  | 'too_many_brokers'

/**
 * Thrown by the writer when its input cannot make a valid file. A streaming consumer that already
 * wrote part of the file must discard it: the writer never emits a trailer after an error.
 */
export class Edi834WriteError extends Error {
  constructor(
    readonly code: Edi834WriteErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'Edi834WriteError'
  }
}

export type Edi834RosterErrorCode =
  | 'unknown_member'
  | 'double_addition'
  | 'coverage_not_found'
  | 'missing_date'
  | 'unsupported_maintenance'
  | 'duplicate_member'

/**
 * Thrown by `Edi834Roster` when a file cannot apply to what the carrier was told before: a
 * coverage added twice, a change or termination of a coverage the carrier never had, a change
 * without its date. Such a file is a bug of the sender, which the tests must see.
 */
export class Edi834RosterError extends Error {
  constructor(
    readonly code: Edi834RosterErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'Edi834RosterError'
  }
}
