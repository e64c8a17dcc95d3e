import { dateKey, nameKey, relationshipKey } from './normalise.js'
import type { ComparableMember, MemberMatch } from './reconcile.model.js'

export type MatchRule = MemberMatch['pairs'][number]['matchedBy']
export type MemberPair = MemberMatch['pairs'][number]
type Pair = MemberPair

/**
 * The rules, strongest first (api-contract section 7). Each whole pass runs before the next, so
 * a member another census member matches by carrier id is never taken first by a weaker rule.
 *
 * SSN with birth date: the SSN alone is not enough, because carriers commonly file dependents
 * under the subscriber's SSN and a reused or mistyped SSN would pair two different people. But
 * an operator facing a carrier that mistyped a birth date expects "the birth date differs", not
 * "subscriber missing" plus "unknown subscriber" with every coverage of the family unchecked.
 * So a last rule pairs the same SSN with the same first and last name and relationship, whatever
 * the birth dates: the birth_date discrepancy then shows the typo. Two people sharing an SSN,
 * a name and a relationship are the same person far more often than not.
 */
export const RULES: readonly MatchRule[] = ['carrier_member_id', 'ssn_and_birth_date', 'name_birth_date_relationship', 'ssn_and_name']

/** What the rules read of a member. */
export type MatchIdentity = Pick<ComparableMember, 'carrierMemberId' | 'birthDate' | 'firstName' | 'lastName' | 'relationship' | 'kind' | 'ssnHash'>

/**
 * A member's key under each rule, in RULES order (null: the rule cannot apply, e.g. no SSN or an
 * unreadable birth date). The streaming census stores these for subscribers and pairs them in SQL.
 */
export function ruleKeys(member: MatchIdentity): (string | null)[] {
  // Carrier ids are compared trimmed and case-insensitively: carriers' systems upper-case them.
  const carrierId = member.carrierMemberId?.trim().toUpperCase() || null
  const birthDate = dateKey(member.birthDate)
  const first = nameKey(member.firstName)
  const last = nameKey(member.lastName)
  const relationship = relationshipKey(member.relationship, member.kind)
  const name = first && last && relationship ? `${first}|${last}|${relationship}` : null
  const ssn = member.ssnHash || null
  return [
    carrierId,
    ssn && birthDate ? `${ssn}|${birthDate}` : null,
    name && birthDate ? `${name}|${birthDate}` : null,
    ssn && name ? `${ssn}|${name}` : null,
  ]
}

/**
 * Pairs two groups of members (all subscribers, or the dependents of one matched family). Maps
 * keep it linear: one index of the unmatched platform members per rule, looked up by each
 * unmatched carrier member. Among platform members sharing a key the earliest is taken, except
 * a carrier member id: one shared within a side of the group is not used at all.
 */
function matchGroup(platform: readonly ComparableMember[], carrier: readonly ComparableMember[], pairs: Pair[]): void {
  if (platform.length === 0 || carrier.length === 0) return
  const platformKeys = platform.map(ruleKeys)
  const carrierKeys = carrier.map(ruleKeys)
  // A carrier id held by two members of one side is no identity (carriers often file a family
  // under one id): pairing whoever comes first would cross a spouse and a child. The weaker rules
  // pair them instead.
  for (const keys of [platformKeys, carrierKeys]) {
    const holders = new Map<string, number>()
    for (const memberKeys of keys) if (memberKeys[0]) holders.set(memberKeys[0], (holders.get(memberKeys[0]) ?? 0) + 1)
    for (const memberKeys of keys) if (memberKeys[0] && holders.get(memberKeys[0])! > 1) memberKeys[0] = null
  }
  const platformTaken = new Array<boolean>(platform.length).fill(false)
  const carrierTaken = new Array<boolean>(carrier.length).fill(false)
  // Once either side is wholly paired the weaker rules have no one left to pair, and a family's
  // dependents usually pair under the first rule or two: no index is built for the rest.
  let unpaired = Math.min(platform.length, carrier.length)
  for (let r = 0; r < RULES.length && unpaired > 0; r++) {
    const rule = RULES[r]!
    const index = new Map<string, { next: number; candidates: number[] }>()
    platformKeys.forEach((keys, i) => {
      const key = keys[r]
      if (platformTaken[i] || !key) return
      const entry = index.get(key)
      if (entry) entry.candidates.push(i)
      else index.set(key, { next: 0, candidates: [i] })
    })
    carrierKeys.forEach((keys, j) => {
      const key = keys[r]
      if (carrierTaken[j] || !key) return
      const entry = index.get(key)
      // Candidates are only taken in this pass and in order, so `next` is the first one still free.
      const i = entry?.candidates[entry.next]
      if (entry === undefined || i === undefined) return
      entry.next += 1
      platformTaken[i] = true
      carrierTaken[j] = true
      unpaired -= 1
      pairs.push({ platform: platform[i]!, carrier: carrier[j]!, matchedBy: rule })
    })
  }
}

function dependentsBySubscriber(members: readonly ComparableMember[]): Map<string, ComparableMember[]> {
  const families = new Map<string, ComparableMember[]>()
  for (const member of members) {
    if (member.kind !== 'dependent' || member.subscriberKey === null) continue
    const family = families.get(member.subscriberKey)
    if (family) family.push(member)
    else families.set(member.subscriberKey, [member])
  }
  return families
}

/**
 * Pairs census members with platform members: subscribers first, then dependents only within a
 * matched family (both sides' subscribers paired). Dependents are never paired across families,
 * by any rule: two families' children named alike must not cross, and a dependent the carrier
 * files under another subscriber is an enrollment error that must show as missing, not be
 * papered over. Dependents of an unpaired subscriber are left unpaired with their family.
 * Each member is paired at most once; what is left keeps the input order.
 */
export function matchMembers(platform: readonly ComparableMember[], carrier: readonly ComparableMember[]): MemberMatch {
  const pairs: Pair[] = []
  const subscribersOf = (members: readonly ComparableMember[]) => members.filter((member) => member.kind === 'subscriber')
  matchGroup(subscribersOf(platform), subscribersOf(carrier), pairs)
  return completeMatch(platform, carrier, pairs)
}

/**
 * The match once the subscribers are paired: each paired family's dependents paired, and what
 * is left on each side. The streaming census pairs subscribers over the whole census in SQL and
 * completes the match here, a batch of families at a time.
 */
export function completeMatch(platform: readonly ComparableMember[], carrier: readonly ComparableMember[], subscriberPairs: readonly Pair[]): MemberMatch {
  const pairs: Pair[] = [...subscriberPairs]
  const platformFamilies = dependentsBySubscriber(platform)
  const carrierFamilies = dependentsBySubscriber(carrier)
  for (let p = 0; p < subscriberPairs.length; p++) {
    const { platform: platformSubscriber, carrier: carrierSubscriber } = pairs[p]!
    matchGroup(platformFamilies.get(platformSubscriber.key) ?? [], carrierFamilies.get(carrierSubscriber.key) ?? [], pairs)
  }

  const paired = new Set<ComparableMember>()
  for (const pair of pairs) paired.add(pair.platform).add(pair.carrier)
  return {
    pairs,
    platformOnly: platform.filter((member) => !paired.has(member)),
    carrierOnly: carrier.filter((member) => !paired.has(member)),
  }
}
