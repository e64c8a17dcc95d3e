import {
  BENEFIT_STATUS,
  COBRA_QUALIFYING_EVENT,
  COVERAGE_LEVEL,
  EMPLOYMENT_STATUS,
  FILE_ACTION,
  GENDER,
  ID_QUALIFIER,
  MAINTENANCE_REASON,
  MAINTENANCE_TYPE,
  MARITAL_STATUS,
  PROVIDER_RELATIONSHIP_UNKNOWN,
  RELATIONSHIP,
  TOBACCO_USE,
  VOLUME_AMOUNT_QUALIFIER,
  insuranceLineCode,
  type CodeTable,
} from './edi-834.codes.js'
import { Edi834WriteError } from './edi-834.errors.js'
import type { Edi834Address, Edi834Coverage, Edi834Envelope, Edi834Header, Edi834Member } from './edi-834.model.js'
import { envelopeStamps, isaElements, sanitizeElement, segment, toD8, type X12Segment } from './x12-segments.js'

/**
 * The mapping from the model to segments, shared by the streaming writer and the benchmark's
 * node-x12 path. Every value goes through `segment()`, which sanitises it, so no member data
 * can carry a separator into the file.
 */

export const IMPLEMENTATION_CONVENTION = '005010X220A1'

export interface ControlNumbers {
  interchange: number
  group: number
  /** ST02/SE02: 4 to 9 digits. */
  transactionSet: string
}

export function controlNumbers(envelope: Edi834Envelope): ControlNumbers {
  const group = envelope.groupControlNumber ?? envelope.interchangeControlNumber
  if (!Number.isInteger(group) || group < 1 || group > 999_999_999) {
    throw new Edi834WriteError('bad_envelope', 'GS06 must be an integer from 1 to 999999999')
  }
  // One transaction set per interchange, so the interchange number also identifies the set.
  return { interchange: envelope.interchangeControlNumber, group, transactionSet: String(envelope.interchangeControlNumber).padStart(4, '0') }
}

/** ISA (padded: never pass it through `segment()`, which would strip ISA11/ISA16), GS and ST. */
export function envelopeSegments(envelope: Edi834Envelope, control: ControlNumbers): { isa: X12Segment; gs: X12Segment; st: X12Segment } {
  const at = envelopeStamps(envelope.createdAt)
  const isa = ['ISA', ...isaElements({
    senderQualifier: envelope.senderQualifier,
    senderId: envelope.senderId,
    receiverQualifier: envelope.receiverQualifier,
    receiverId: envelope.receiverId,
    date: at.d6,
    time: at.hhmm,
    controlNumber: control.interchange,
    usage: envelope.usage,
  })]
  for (const [name, code] of [['GS02', envelope.applicationSenderCode], ['GS03', envelope.applicationReceiverCode]] as const) {
    if (code.length < 2 || code.length > 15 || code !== sanitizeElement(code)) {
      throw new Edi834WriteError('bad_envelope', `${name} must be 2 to 15 printable characters without separators`)
    }
  }
  const gs = segment('GS', 'BE', envelope.applicationSenderCode, envelope.applicationReceiverCode, at.d8, at.hhmm, String(control.group), 'X', IMPLEMENTATION_CONVENTION)
  const st = segment('ST', '834', control.transactionSet, IMPLEMENTATION_CONVENTION)
  return { isa, gs, st }
}

/** BGN through loop 1000C. */
export function headerSegments(header: Edi834Header, createdAt: Date): X12Segment[] {
  if (header.brokers.length > 2) throw new Edi834WriteError('too_many_brokers', 'loop 1000C allows at most two brokers')
  const at = envelopeStamps(createdAt)
  const { subscribers, dependents } = header.totals
  const out: X12Segment[] = [segment('BGN', '00', header.reference, at.d8, at.hhmm, null, null, null, FILE_ACTION.toCode[header.action])]
  if (header.masterPolicyNumber) out.push(segment('REF', '38', header.masterPolicyNumber))
  out.push(
    segment('DTP', '007', 'D8', toD8(header.effectiveDate)),
    segment('QTY', 'TO', String(subscribers + dependents)),
    segment('QTY', 'ET', String(subscribers)),
    segment('QTY', 'DT', String(dependents)),
  )
  const sponsor = header.sponsor
  out.push(
    sponsor.fein
      ? segment('N1', 'P5', sanitizeElement(sponsor.name, 60), ID_QUALIFIER.fein, sponsor.fein)
      : segment('N1', 'P5', sanitizeElement(sponsor.name, 60), ID_QUALIFIER.mutuallyDefined, sponsor.groupExternalIdentifier),
    segment('N1', 'IN', sanitizeElement(header.payer.name, 60), ID_QUALIFIER.mutuallyDefined, header.payer.carrierName),
  )
  for (const broker of header.brokers) {
    out.push(segment('N1', 'BO', sanitizeElement(broker.name, 60), ID_QUALIFIER.mutuallyDefined, broker.nationalProducerNumber))
  }
  return out
}

function code<W extends string>(table: CodeTable<W>, word: string, what: string): string {
  const found = (table.toCode as Readonly<Record<string, string>>)[word]
  if (found === undefined) throw new Edi834WriteError('unmapped_value', `${what} '${word}' has no X12 code`)
  return found
}

function dateSegment(qualifier: string, isoDate: string | null): X12Segment[] {
  return isoDate ? [segment('DTP', qualifier, 'D8', toD8(isoDate))] : []
}

function addressSegments(address: Edi834Address, withCounty: boolean): X12Segment[] {
  const county = withCounty && address.fips_county_code ? address.fips_county_code : null
  return [
    segment('N3', sanitizeElement(address.address_line_1, 55), address.address_line_2 ? sanitizeElement(address.address_line_2, 55) : null),
    segment('N4', sanitizeElement(address.city, 30), address.state, address.zip, null, county ? 'CY' : null, county),
  ]
}

/** Loop 2000 of one member: INS through its reporting categories (LE). */
export function memberSegments(member: Edi834Member): X12Segment[] {
  const out: X12Segment[] = [
    segment(
      'INS',
      member.subscriber ? 'Y' : 'N',
      code(RELATIONSHIP, member.relationship, 'relationship'),
      code(MAINTENANCE_TYPE, member.maintenance, 'maintenance type'),
      code(MAINTENANCE_REASON, member.reason, 'maintenance reason'),
      code(BENEFIT_STATUS, member.benefitStatus, 'benefit status'),
      null, // INS06 Medicare status: not sent
      member.cobraQualifyingEvent ? code(COBRA_QUALIFYING_EVENT, member.cobraQualifyingEvent, 'COBRA qualifying event') : null,
      member.subscriber && member.employmentStatus ? code(EMPLOYMENT_STATUS, member.employmentStatus, 'employment status') : null,
      null,
      member.handicapped === null ? null : member.handicapped ? 'Y' : 'N',
    ),
    segment('REF', '0F', member.subscriberIdentifier),
  ]
  if (member.groupPolicyNumber) out.push(segment('REF', '1L', member.groupPolicyNumber))
  out.push(segment('REF', '17', member.memberId))
  if (member.carrierMemberId) out.push(segment('REF', '23', member.carrierMemberId))
  out.push(
    ...dateSegment('336', member.employmentStartDate),
    ...dateSegment('337', member.employmentEndDate),
    ...dateSegment('340', member.cobraStartDate),
    ...dateSegment('356', member.eligibilityStartDate),
    ...dateSegment('357', member.eligibilityEndDate),
    ...dateSegment('303', member.maintenanceEffectiveDate),
  )

  // Loop 2100A. NM108/NM109 only with an SSN: "34" promises a Social Security number.
  const ssn = member.ssn ? member.ssn.replace(/\D/g, '') : null
  out.push(
    segment(
      'NM1', 'IL', '1',
      sanitizeElement(member.lastName, 60), sanitizeElement(member.firstName, 35),
      member.middleName ? sanitizeElement(member.middleName, 25) : null,
      null, null, ssn ? '34' : null, ssn,
    ),
  )
  // Phone as digits only: receivers expect a bare number after the TE qualifier.
  const phone = member.phone ? member.phone.replace(/\D/g, '') : ''
  const contacts: string[] = []
  if (phone) contacts.push('TE', phone)
  if (member.email) contacts.push('EM', member.email)
  if (contacts.length > 0) out.push(segment('PER', 'IP', null, ...contacts))
  if (member.residentialAddress) out.push(...addressSegments(member.residentialAddress, true))
  out.push(
    segment(
      'DMG', 'D8', toD8(member.birthDate),
      code(GENDER, member.gender, 'gender'),
      member.maritalStatus ? code(MARITAL_STATUS, member.maritalStatus, 'marital status') : null,
    ),
  )
  if (member.tobaccoUse !== null) out.push(segment('HLH', TOBACCO_USE.toCode[member.tobaccoUse ? 'yes' : 'no']))

  // Loop 2100C: X220A1 has no county (N405/N406 not used) on the mailing address.
  if (member.mailingAddress) out.push(segment('NM1', '31', '1'), ...addressSegments(member.mailingAddress, false))

  for (const coverage of member.coverages) out.push(...coverageSegments(coverage))

  if (member.reportingCategories.length > 0) {
    out.push(segment('LS', '2700'))
    member.reportingCategories.forEach((category, i) => {
      out.push(segment('LX', String(i + 1)), segment('N1', '75', sanitizeElement(category.name, 60)), segment('REF', 'ZZ', category.value))
    })
    out.push(segment('LE', '2700'))
  }
  return out
}

/** Loop 2300 and its 2310 primary care provider. */
function coverageSegments(coverage: Edi834Coverage): X12Segment[] {
  const line = insuranceLineCode(coverage.productLine, coverage.productType)
  if (line === undefined) {
    throw new Edi834WriteError('unmapped_value', `product line '${coverage.productLine}' (${coverage.productType ?? 'no type'}) has no 834 insurance line code`)
  }
  const out: X12Segment[] = [
    segment(
      'HD',
      code(MAINTENANCE_TYPE, coverage.maintenance, 'coverage maintenance type'),
      null,
      line,
      sanitizeElement(coverage.planDescription, 50),
      code(COVERAGE_LEVEL, coverage.coverageLevel, 'coverage level'),
    ),
    segment('DTP', '348', 'D8', toD8(coverage.startDate)),
    ...dateSegment('349', coverage.endDate),
    // X220A1 allows 303 "Maintenance Effective" among the 2300 dates: when an HD*001 change applies.
    ...dateSegment('303', coverage.maintenanceEffectiveDate),
  ]
  if (coverage.volume !== null) out.push(segment('AMT', VOLUME_AMOUNT_QUALIFIER, String(Math.round(coverage.volume))))
  // REF*CE "Class of Contract Code": the plan's external identifier, so a census names the plan back.
  out.push(segment('REF', 'CE', coverage.planExternalIdentifier))
  const pcp = coverage.primaryCareProvider
  if (pcp) {
    const person = Boolean(pcp.first_name || pcp.last_name)
    out.push(
      segment('LX', '1'),
      person
        ? segment('NM1', 'P3', '1', sanitizeElement(pcp.last_name ?? '', 60), pcp.first_name ? sanitizeElement(pcp.first_name, 35) : null, null, null, null, 'XX', pcp.npi, PROVIDER_RELATIONSHIP_UNKNOWN)
        : segment('NM1', 'P3', '2', sanitizeElement(pcp.organization_name ?? '', 60), null, null, null, null, 'XX', pcp.npi, PROVIDER_RELATIONSHIP_UNKNOWN),
    )
  }
  return out
}
