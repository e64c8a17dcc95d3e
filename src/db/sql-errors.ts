/** SQLSTATE codes the repos translate into domain errors (PostgreSQL appendix A). */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  serializationFailure: '40001',
} as const

export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code
  }
  return undefined
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlStateOf(error) !== SqlState.uniqueViolation) return false
  if (constraint === undefined) return true
  return typeof error === 'object' && error !== null && 'constraint' in error && error.constraint === constraint
}
