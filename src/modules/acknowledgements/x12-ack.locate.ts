import { Edi834ParseError } from '../edi-834/edi-834.errors.js'
import { el, tokenizeX12, type X12Token } from '../edi-834/x12-tokenize.js'

/**
 * Where a 999 finding (AK2 ST02, IK3 position counted from ST = 1) lies in the 834 we sent: the
 * segment there and, when it is inside a member loop (2000, from INS), that member's REF*17 (our
 * member id) and, inside a coverage loop (2300, from HD), the plan's REF*CE (its external id).
 * A file_validation error is linked to the member and plan with it.
 */
export interface FindingLocation {
  segmentId: string
  memberId: string | null
  planExternalId: string | null
}

/** Segments of loop 2000 before its 2100A: where the member's REF*17 is (2300 and 2750 have REF*17s of their own). */
const MEMBER_HEADER = new Set(['REF', 'DTP'])
/** Segments of loop 2300 before IDC and 2310: where the plan's REF*CE is. */
const COVERAGE_HEADER = new Set(['DTP', 'AMT', 'REF'])
/** Segments that end a 2300 loop: the next coverage, the next member, 2700, the set's end. */
const ENDS_COVERAGE = new Set(['HD', 'INS', 'LS', 'SE'])

function reference(segments: readonly X12Token[], from: number, within: ReadonlySet<string>, qualifier: string): string | null {
  for (let i = from; i < segments.length && within.has((segments[i] as X12Token).id); i++) {
    const token = segments[i] as X12Token
    if (token.id === 'REF' && el(token, 1) === qualifier) return el(token, 2) || null
  }
  return null
}

/**
 * Null when the text is not X12, has no transaction set with that ST02, or the position is not
 * inside it (ST through SE).
 */
export function locateFinding(text834: string, st02: string, positionFromSt: number): FindingLocation | null {
  let segments: X12Token[]
  try {
    segments = tokenizeX12(text834).segments
  } catch (error) {
    if (error instanceof Edi834ParseError) return null
    throw error
  }
  const st = segments.findIndex((token) => token.id === 'ST' && el(token, 2) === st02)
  if (st < 0 || !Number.isInteger(positionFromSt) || positionFromSt < 1) return null
  const target = st + positionFromSt - 1
  for (let i = st + 1; i < target; i++) if (['SE', 'ST', 'GE'].includes((segments[i] as X12Token).id)) return null
  const found = segments[target]
  if (!found || (target !== st && ['ST', 'GE', 'GS', 'IEA'].includes(found.id))) return null

  let member = -1
  let coverage = -1
  for (let i = st; i <= target; i++) {
    const id = (segments[i] as X12Token).id
    if (id === 'INS') { member = i; coverage = -1 }
    else if (id === 'HD' && member >= 0) coverage = i
    else if (ENDS_COVERAGE.has(id)) coverage = -1
  }
  // SE closes the last member loop; the segment itself is not in it.
  if (found.id === 'SE') member = -1
  return {
    segmentId: found.id,
    memberId: member >= 0 ? reference(segments, member + 1, MEMBER_HEADER, '17') : null,
    planExternalId: coverage >= 0 ? reference(segments, coverage + 1, COVERAGE_HEADER, 'CE') : null,
  }
}
