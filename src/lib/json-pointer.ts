/** One reference token of a JSON Pointer (RFC 6901): `~` and `/` in a field name are escaped. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}
