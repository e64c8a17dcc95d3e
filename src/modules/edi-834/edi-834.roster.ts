import { lineCodeOfProduct } from './edi-834.codes.js'
import { Edi834RosterError } from './edi-834.errors.js'
import type { Edi834Coverage, Edi834Member, Edi834Provider, FileAction } from './edi-834.model.js'
import { parse834 } from './edi-834.parse.js'

export { Edi834RosterError, type Edi834RosterErrorCode } from './edi-834.errors.js'

/**
 * What a carrier holds after reading our 834 files: apply a full file, then the change files in
 * the order they were sent, and the roster answers who was covered by what on any date. Tests
 * (and a sandbox carrier) use it to prove what a carrier was told; it reads files with
 * `parse834`, so a file it cannot read throws `Edi834ParseError`, and a file that cannot apply to
 * what came before (a double addition, a change to a coverage never sent) throws
 * `Edi834RosterError`. Messages name member ids (REF*17) and plan codes (REF*CE), never member data.
 *
 * Dates are ISO `YYYY-MM-DD` strings, compared as text.
 */

export type CoverageLevel = Edi834Coverage['coverageLevel']
export type BenefitStatus = Edi834Member['benefitStatus']

/** One coverage as the carrier holds it: a plan from a start date, with its level and volume over time. */
export interface RosterCoverage {
  /** HD03 as read: HLT, DEN, VIS, AG, AH, STD, LTD (or a medical network code a file sent). */
  line: string
  /** REF*CE of loop 2300: the plan's external identifier. */
  planCode: string
  /** DTP*348. With `planCode`, what identifies the coverage in later loops. */
  startDate: string
  /** DTP*349; null while open-ended. */
  endDate: string | null
  /** INS05 of the loop that added it. */
  benefitStatus: BenefitStatus
  /**
   * Coverage level (HD05) and volume (AMT*FK) over time, sorted by `from`: the first from
   * `startDate` (the addition), later ones from HD*001 changes dated by DTP*303.
   */
  terms: { from: string; coverageLevel: CoverageLevel; volume: number | null }[]
  /**
   * Loop 2310 of the loop that added (or reinstated) it, or of a later loop that named one. Absent,
   * not null, when none was sent: a roster read back compares equal to one that never knew PCPs.
   */
  primaryCareProvider?: Edi834Provider
}

/** A member as the carrier holds it: the demographics of the last loop sent for it, and its coverages. */
export interface RosterMember {
  /** REF*17: the member's id in the service; the roster's key. */
  memberId: string
  /** REF*0F. */
  subscriberIdentifier: string
  subscriber: boolean
  relationship: Edi834Member['relationship']
  carrierMemberId: string | null
  firstName: string
  middleName: string | null
  lastName: string
  ssn: string | null
  birthDate: string
  gender: string
  maritalStatus: string | null
  tobaccoUse: boolean | null
  phone: string | null
  email: string | null
  residentialAddress: Edi834Member['residentialAddress']
  mailingAddress: Edi834Member['mailingAddress']
  employmentStatus: string | null
  employmentStartDate: string | null
  employmentEndDate: string | null
  eligibilityStartDate: string | null
  eligibilityEndDate: string | null
  cobraQualifyingEvent: Edi834Member['cobraQualifyingEvent']
  cobraStartDate: string | null
  /** Sorted by line, plan code, then start date. */
  coverages: RosterCoverage[]
}

/** What applying one file did. */
export interface RosterApplied {
  /** BGN08 of the file: a 'replace' made the roster exactly `memberIds`; a 'verify' changed nothing. */
  action: FileAction
  /** The members the file touched (whose record may have changed), in file order without repeats. */
  memberIds: string[]
}

/** A coverage in force on one date, with the level and volume of that date. */
export interface RosterCoverageInForce {
  line: string
  planCode: string
  benefitStatus: BenefitStatus
  coverageLevel: CoverageLevel
  volume: number | null
  startDate: string
  endDate: string | null
  /** As on RosterCoverage: absent when none was sent. */
  primaryCareProvider?: Edi834Provider
}

export interface RosterMemberInForce {
  memberId: string
  /** Sorted by line, plan code, then start date. */
  coverages: RosterCoverageInForce[]
}

const byCoverage = (a: { line: string; planCode: string; startDate: string }, b: { line: string; planCode: string; startDate: string }): number =>
  a.line.localeCompare(b.line) || a.planCode.localeCompare(b.planCode) || a.startDate.localeCompare(b.startDate)

function demographicsOf(m: Edi834Member): Omit<RosterMember, 'coverages'> {
  return {
    memberId: m.memberId,
    subscriberIdentifier: m.subscriberIdentifier,
    subscriber: m.subscriber,
    relationship: m.relationship,
    carrierMemberId: m.carrierMemberId,
    firstName: m.firstName,
    middleName: m.middleName,
    lastName: m.lastName,
    ssn: m.ssn,
    birthDate: m.birthDate,
    gender: m.gender,
    maritalStatus: m.maritalStatus,
    tobaccoUse: m.tobaccoUse,
    phone: m.phone,
    email: m.email,
    residentialAddress: m.residentialAddress,
    mailingAddress: m.mailingAddress,
    employmentStatus: m.employmentStatus,
    employmentStartDate: m.employmentStartDate,
    employmentEndDate: m.employmentEndDate,
    eligibilityStartDate: m.eligibilityStartDate,
    eligibilityEndDate: m.eligibilityEndDate,
    cobraQualifyingEvent: m.cobraQualifyingEvent,
    cobraStartDate: m.cobraStartDate,
  }
}

function termOn(coverage: RosterCoverage, date: string): RosterCoverage['terms'][number] {
  let found = coverage.terms[0] as RosterCoverage['terms'][number]
  for (const term of coverage.terms) if (term.from <= date) found = term
  return found
}

function inForce(coverage: RosterCoverage, date: string): boolean {
  return coverage.startDate <= date && (coverage.endDate === null || date <= coverage.endDate)
}

/**
 * Change-file rules, per member loop (keyed by REF*17) in file order, each HD loop in order:
 * - the member is created if unknown (whatever INS03 says) and its demographics are replaced by
 *   the loop's (our loops always carry the member's whole current picture);
 * - HD*021 adds a coverage (throws `double_addition` if one with the same plan code and start
 *   date exists, ended or not);
 * - HD*024 sets the end date of the coverage with that plan code and DTP*348 to DTP*349; an end
 *   before the start (Ideon's "never effective": end = start − 1) removes the coverage;
 * - HD*025 (reinstatement) sets that coverage's end to DTP*349, or opens it when there is none;
 *   with no coverage of that plan code starting on DTP*348 (a re-hire after a gap), it adds one;
 * - HD*001 adds (or, on the same date, replaces) a term from the loop 2300 DTP*303, else the
 *   member's DTP*303, with HD05 and AMT (no AMT keeps the volume); a change dated before the
 *   coverage starts applies from its start. A DTP*349 on HD*001 sets the end date too;
 * - INS03 024 or 025 without HD loops throws `coverage_not_found`: the roster needs the
 *   coverages named, it does not guess "all of them".
 * A full file (BGN08 RX) replaces the roster with its members, every HD loop an addition. A
 * verification file (BGN08 4, audit) changes nothing and is ignored.
 *
 * The same rules apply to members already read (`applyMembers`: an API carrier's JSON document
 * of Edi834Member records), and a roster can be kept elsewhere and brought back (`fromMembers`,
 * `members`): a change touches only the members it names, so a keeper may load just those
 * (`Edi834Roster.memberIdsOf`), apply, and write back the members the answer lists.
 */
export class Edi834Roster {
  private roster = new Map<string, RosterMember>()

  /** A roster from files applied in order. */
  static from(...files: readonly string[]): Edi834Roster {
    const roster = new Edi834Roster()
    for (const file of files) roster.apply(file)
    return roster
  }

  /** A roster holding these members as they are (records from `members()`, kept and read back). */
  static fromMembers(members: Iterable<RosterMember>): Edi834Roster {
    const roster = new Edi834Roster()
    for (const member of members) {
      if (roster.roster.has(member.memberId)) throw new Edi834RosterError('duplicate_member', `member ${member.memberId} is held twice`)
      roster.roster.set(member.memberId, copy(member))
    }
    return roster
  }

  /**
   * The member ids a file of these members names, in file order without repeats: what applying
   * it may change (for a full file, what the roster becomes; the members it drops are the rest).
   */
  static memberIdsOf(members: readonly Pick<Edi834Member, 'memberId'>[]): string[] {
    return [...new Set(members.map((m) => m.memberId))]
  }

  /** Applies one file (see the class comment); throws before changing anything when it cannot apply. */
  apply(x12Text: string): RosterApplied {
    const { header, members } = parse834(x12Text)
    return this.applyMembers(header.action, header.reference, members)
  }

  /**
   * Applies a file's members already read, with the rules of the class comment: `action` is
   * BGN08's (replace for a full file), `reference` names the file in errors. Throws before
   * changing anything when it cannot apply.
   */
  applyMembers(action: FileAction, reference: string, members: readonly Edi834Member[]): RosterApplied {
    const ref = reference
    if (action === 'verify') return { action, memberIds: [] }
    if (action === 'replace') {
      const next = new Map<string, RosterMember>()
      for (const m of members) {
        const id = memberIdOf(m, ref)
        if (next.has(id)) throw new Edi834RosterError('duplicate_member', `full file ${ref}: member ${id} has two loops`)
        const member: RosterMember = { ...demographicsOf(m), coverages: [] }
        for (const c of m.coverages) addCoverage(member, m, c, ref)
        next.set(id, member)
      }
      this.roster = next
      return { action, memberIds: [...next.keys()] }
    }
    // Applied to copies of the members it names: a file that throws halfway leaves the roster as it was.
    const changed = new Map<string, RosterMember>()
    for (const m of members) {
      const id = memberIdOf(m, ref)
      const known = changed.get(id) ?? this.roster.get(id)
      const coverages = known ? (changed.has(id) ? known.coverages : copy(known).coverages) : []
      const member: RosterMember = { ...demographicsOf(m), coverages }
      changed.set(id, member)
      if (m.coverages.length === 0 && (m.maintenance === 'termination' || m.maintenance === 'reinstatement')) {
        throw new Edi834RosterError('coverage_not_found', `file ${ref}: member ${id} has INS03 ${m.maintenance} but no HD loop naming a coverage`)
      }
      for (const c of m.coverages) applyCoverage(member, m, c, ref)
    }
    for (const [id, member] of changed) this.roster.set(id, member)
    return { action, memberIds: [...changed.keys()] }
  }

  /** Every member the carrier holds (also those with no coverage left), in the order first sent. */
  members(): RosterMember[] {
    return [...this.roster.values()].map(copy)
  }

  /** One member by REF*17, or undefined when the carrier was never sent it. */
  member(memberId: string): RosterMember | undefined {
    const held = this.roster.get(memberId)
    return held ? copy(held) : undefined
  }

  /**
   * What is in force on `date`: per member, each coverage whose start <= date <= end (end null =
   * open), with the level and volume of that day. Members with nothing in force are left out.
   */
  onDate(date: string): RosterMemberInForce[] {
    const out: RosterMemberInForce[] = []
    for (const member of this.roster.values()) {
      const coverages = member.coverages
        .filter((c) => inForce(c, date))
        .map((c) => {
          const term = termOn(c, date)
          const held: RosterCoverageInForce = { line: c.line, planCode: c.planCode, benefitStatus: c.benefitStatus, coverageLevel: term.coverageLevel, volume: term.volume, startDate: c.startDate, endDate: c.endDate }
          if (c.primaryCareProvider) held.primaryCareProvider = { ...c.primaryCareProvider }
          return held
        })
      if (coverages.length > 0) out.push({ memberId: member.memberId, coverages })
    }
    return out
  }
}

/** Callers get copies: what they change never changes what the carrier holds. */
function copy(m: RosterMember): RosterMember {
  return {
    ...m,
    residentialAddress: m.residentialAddress && { ...m.residentialAddress },
    mailingAddress: m.mailingAddress && { ...m.mailingAddress },
    coverages: m.coverages.map((c) => {
      const held: RosterCoverage = { ...c, terms: c.terms.map((t) => ({ ...t })) }
      if (c.primaryCareProvider) held.primaryCareProvider = { ...c.primaryCareProvider }
      return held
    }),
  }
}

function memberIdOf(m: Edi834Member, ref: string): string {
  if (m.memberId === '') throw new Edi834RosterError('unknown_member', `file ${ref}: a member loop has no REF*17 member id, so the roster cannot tell whom it is about`)
  return m.memberId
}

function planCodeOf(member: RosterMember, c: Edi834Coverage, ref: string): { line: string; planCode: string } {
  const line = lineCodeOfProduct(c.productLine, c.productType) ?? c.productLine
  if (c.planExternalIdentifier === '') throw new Edi834RosterError('coverage_not_found', `file ${ref}: member ${member.memberId} has an HD*${line} loop without REF*CE plan code`)
  return { line, planCode: c.planExternalIdentifier }
}

function coverageName(member: RosterMember, line: string, planCode: string, startDate: string): string {
  return `member ${member.memberId} ${line} plan ${planCode} starting ${startDate}`
}

function addCoverage(member: RosterMember, m: Edi834Member, c: Edi834Coverage, ref: string): void {
  const { line, planCode } = planCodeOf(member, c, ref)
  if (member.coverages.some((held) => held.planCode === planCode && held.startDate === c.startDate)) {
    throw new Edi834RosterError('double_addition', `file ${ref}: ${coverageName(member, line, planCode, c.startDate)} is added twice`)
  }
  if (c.endDate !== null && c.endDate < c.startDate) return // never effective: nothing to hold
  const added: RosterCoverage = {
    line,
    planCode,
    startDate: c.startDate,
    endDate: c.endDate,
    benefitStatus: m.benefitStatus,
    terms: [{ from: c.startDate, coverageLevel: c.coverageLevel, volume: c.volume }],
  }
  if (c.primaryCareProvider) added.primaryCareProvider = { ...c.primaryCareProvider }
  member.coverages.push(added)
  member.coverages.sort(byCoverage)
}

function applyCoverage(member: RosterMember, m: Edi834Member, c: Edi834Coverage, ref: string): void {
  if (c.maintenance === 'addition') return addCoverage(member, m, c, ref)
  const { line, planCode } = planCodeOf(member, c, ref)
  const what = coverageName(member, line, planCode, c.startDate)
  if (c.maintenance === 'audit') throw new Edi834RosterError('unsupported_maintenance', `file ${ref}: ${what} has HD01 030 (audit) in a change file`)
  const index = member.coverages.findIndex((held) => held.planCode === planCode && held.startDate === c.startDate)
  const held = member.coverages[index]
  // A reinstatement from a date the carrier holds nothing for (a re-hire after a gap) starts the
  // coverage again from DTP*348, as an addition would.
  if (!held && c.maintenance === 'reinstatement') return addCoverage(member, m, c, ref)
  if (!held) throw new Edi834RosterError('coverage_not_found', `file ${ref}: ${what} has HD01 ${c.maintenance} but the carrier was never sent that coverage`)
  // A loop that names a PCP (a reinstatement, or a change that sends one) replaces the one held.
  if (c.primaryCareProvider) held.primaryCareProvider = { ...c.primaryCareProvider }
  switch (c.maintenance) {
    case 'termination':
      if (c.endDate === null) throw new Edi834RosterError('missing_date', `file ${ref}: ${what} is terminated without DTP*349`)
      if (c.endDate < c.startDate) member.coverages.splice(index, 1)
      else held.endDate = c.endDate
      return
    case 'reinstatement':
      held.endDate = c.endDate
      return
    case 'change': {
      const dated = c.maintenanceEffectiveDate ?? m.maintenanceEffectiveDate
      if (dated === null) throw new Edi834RosterError('missing_date', `file ${ref}: ${what} is changed without DTP*303 (loop 2300 or member)`)
      const from = dated < held.startDate ? held.startDate : dated
      const before = held.terms.filter((t) => t.from <= from).at(-1)
      const term = { from, coverageLevel: c.coverageLevel, volume: c.volume ?? before?.volume ?? null }
      held.terms = [...held.terms.filter((t) => t.from !== from), term].sort((a, b) => a.from.localeCompare(b.from))
      if (c.endDate !== null) held.endDate = c.endDate
      return
    }
  }
}

/** A member holding two coverages of one HD03 line in force on one date. */
export interface LineHeldTwice {
  memberId: string
  line: string
  /** The coverages in force that day, sorted by plan code then start date. */
  coverages: { planCode: string; startDate: string; endDate: string | null }[]
}

/**
 * Members holding more than one coverage of the same HD03 line in force on `date`: the symptom
 * of a plan change whose old plan was never ended. AG may legitimately repeat (basic and
 * voluntary life), so every line is reported and the caller filters. Takes a roster, or the
 * files to build one from (in order).
 */
export function linesHeldTwice(source: Edi834Roster | string | readonly string[], date: string): LineHeldTwice[] {
  const roster = source instanceof Edi834Roster ? source : Edi834Roster.from(...(typeof source === 'string' ? [source] : source))
  const out: LineHeldTwice[] = []
  for (const member of roster.onDate(date)) {
    const byLine = new Map<string, RosterCoverageInForce[]>()
    for (const c of member.coverages) byLine.set(c.line, [...(byLine.get(c.line) ?? []), c])
    for (const [line, coverages] of byLine) {
      if (coverages.length > 1) {
        out.push({ memberId: member.memberId, line, coverages: coverages.map(({ planCode, startDate, endDate }) => ({ planCode, startDate, endDate })) })
      }
    }
  }
  return out
}
