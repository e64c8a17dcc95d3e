/** One offending field of a request: `pointer` into the body, or `parameter` of query or path. */
export interface FieldProblem {
  pointer?: string
  parameter?: string
  detail: string
  code: string
}

/**
 * A failure the client can act on. It carries a stable `code` and no HTTP status: the HTTP layer
 * maps codes to statuses through one table (`src/http/error-table.ts`), which the compiler keeps
 * exhaustive. Messages must never contain PII values (SSNs, birth dates).
 */
export class DomainError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly fieldProblems: readonly FieldProblem[] = [],
  ) {
    super(message)
    this.name = 'DomainError'
  }
}

/** Codes any domain may raise; each domain adds its own in `<domain>.errors.ts`. */
export type CommonErrorCode = 'not_found' | 'validation_failed' | 'duplicate_external_identifier' | 'forbidden' | 'precondition_failed'
