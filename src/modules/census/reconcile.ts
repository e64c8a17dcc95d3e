import { compareMembers } from './compare.js'
import { matchMembers, type MatchRule } from './match.js'
import type { ComparableMember, FoundMemberDiscrepancy, MemberMatch, ReconcileOptions } from './reconcile.model.js'

export interface ReconcileCounts {
  matchedSubscribers: number
  matchedDependents: number
  /** Pairs per rule, so a census that matched mostly by name (no carrier ids yet) shows it. */
  matchedBy: Record<MatchRule, number>
  /** Platform members the carrier lacks. */
  platformOnly: number
  /** Census members the platform lacks. */
  carrierOnly: number
}

export interface ReconcileResult {
  counts: ReconcileCounts
  /** The pairing itself: the caller records carrier member ids and links census members from it. */
  match: MemberMatch
  discrepancies: FoundMemberDiscrepancy[]
}

/** Matches the census against the platform's members and lists every discrepancy; pure, no I/O. */
export function reconcile(
  platform: readonly ComparableMember[],
  carrier: readonly ComparableMember[],
  options: ReconcileOptions = {},
): ReconcileResult {
  const match = matchMembers(platform, carrier)
  const matchedBy: Record<MatchRule, number> = {
    carrier_member_id: 0,
    ssn_and_birth_date: 0,
    name_birth_date_relationship: 0,
    ssn_and_name: 0,
  }
  let matchedSubscribers = 0
  for (const pair of match.pairs) {
    matchedBy[pair.matchedBy] += 1
    if (pair.platform.kind === 'subscriber') matchedSubscribers += 1
  }
  return {
    counts: {
      matchedSubscribers,
      matchedDependents: match.pairs.length - matchedSubscribers,
      matchedBy,
      platformOnly: match.platformOnly.length,
      carrierOnly: match.carrierOnly.length,
    },
    match,
    discrepancies: compareMembers(match, options),
  }
}
