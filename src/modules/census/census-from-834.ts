import type { Edi834Address, Edi834Member } from '../edi-834/edi-834.model.js'
import type { CensusDependentInputT, CensusSubscriberInputT } from './census-input.schema.js'

/**
 * An 834 audit file's members as census subscribers, so both census formats are stored, shown
 * and reconciled the same way. Only what the file carries becomes a field: a value the file
 * has no segment for is left out (not compared), never set to null (the carrier lacks it).
 */
function address(value: Edi834Address | null): CensusSubscriberInputT['residential_address'] | undefined {
  if (!value) return undefined
  return {
    address_line_1: value.address_line_1,
    ...(value.address_line_2 ? { address_line_2: value.address_line_2 } : {}),
    city: value.city,
    state: value.state,
    zip: value.zip,
  }
}

function common(member: Edi834Member) {
  return {
    ...(member.carrierMemberId ? { carrier_member_id: member.carrierMemberId } : {}),
    first_name: member.firstName,
    ...(member.middleName ? { middle_name: member.middleName } : {}),
    last_name: member.lastName,
    birth_date: member.birthDate,
    gender: member.gender,
    ...(member.ssn ? { social_security_number: member.ssn } : {}),
    ...(member.tobaccoUse === null ? {} : { tobacco_use: member.tobaccoUse }),
    coverages: member.coverages.map((c) => ({
      plan_external_identifier: c.planExternalIdentifier,
      start_date: c.startDate,
      ...(c.endDate ? { end_date: c.endDate } : {}),
      ...(c.volume === null ? {} : { volume: c.volume }),
      ...(c.primaryCareProvider ? { primary_care_provider: { npi: c.primaryCareProvider.npi } } : {}),
    })),
  }
}

export function censusSubscribersFrom834(members: readonly Edi834Member[]): CensusSubscriberInputT[] {
  const families = new CensusFamiliesFrom834()
  const subscribers: CensusSubscriberInputT[] = []
  for (const member of members) {
    const done = families.add(member)
    if (done) subscribers.push(done)
  }
  const last = families.finish()
  if (last) subscribers.push(last)
  return subscribers
}

/**
 * The same, a member at a time, for an 834 read in pieces: `add` answers the family the member
 * closed (a subscriber starts the next one), `finish` the last. The writer keeps dependents after
 * their subscriber; a stray one before any subscriber starts no family.
 */
export class CensusFamiliesFrom834 {
  private current: CensusSubscriberInputT | null = null

  add(member: Edi834Member): CensusSubscriberInputT | undefined {
    if (!member.subscriber) {
      const dependent: CensusDependentInputT = { ...common(member), subscriber_relationship: member.relationship }
      this.current?.dependents?.push(dependent)
      return undefined
    }
    const done = this.current ?? undefined
    const residential = address(member.residentialAddress)
    this.current = {
      ...common(member),
      external_identifier: member.subscriberIdentifier,
      ...(member.maritalStatus ? { marital_status: member.maritalStatus } : {}),
      ...(residential ? { residential_address: residential } : {}),
      ...(member.email ? { emails: [{ contact: member.email }] } : {}),
      ...(member.phone ? { phone_numbers: [{ contact: member.phone }] } : {}),
      employment_details: {
        ...(member.employmentStartDate ? { start_date: member.employmentStartDate } : {}),
        ...(member.employmentEndDate ? { end_date: member.employmentEndDate } : {}),
        ...(member.employmentStatus ? { status: member.employmentStatus } : {}),
      },
      dependents: [],
    }
    return done
  }

  finish(): CensusSubscriberInputT | undefined {
    const last = this.current ?? undefined
    this.current = null
    return last
  }
}
