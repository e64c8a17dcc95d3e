import { expect } from 'vitest'
import type { CensusDependentInputT, CensusSubscriberInputT } from '../../src/modules/census/census-input.schema.js'
import type { Edi834Coverage, Edi834Member } from '../../src/modules/edi-834/edi-834.model.js'
import { write834ToString } from '../../src/modules/edi-834/edi-834.writer.js'
import { installThroughApi, type ApiInstallation } from './carrier-side.js'
import { call, type Credential, type TestApp } from './test-app.js'

/**
 * A group for census tests and the carrier's census of it. The group is `installThroughApi`'s
 * (three families: Jane<x> Doe<n>, spouse John, child Sam, all on gold-ppo from 2027-01-01), with
 * the first subscriber given everything reconciliation compares: emails, phone numbers, tobacco
 * use, earnings, wage frequency, a region classification, and coverage ending 2027-12-31 for the
 * whole first family. `carrierCensus` then spells the same data the way carriers do (upper case,
 * ZIP+4, MM/DD/YYYY and CCYYMMDD dates, F/M, X12 codes), so it must reconcile without an error.
 */

/** The SSNs `installThroughApi` chose (carrier-side.ts keeps its own copy private). */
export const ssnOf = (family: number, member: number) => `1${String(family).padStart(2, '0')}${String(member + 1).padStart(2, '0')}${String(1000 + family).slice(-4)}`
export const lastFour = (ssn: string) => ssn.slice(-4)
const dashed = (ssn: string) => `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`
const letter = (family: number) => 'abcdefghijklmnopqrstuvwxyz'[family % 26]!

export const REGION_CODE = 'R-NORTH'
export const ANNUAL_EARNINGS = 6_500_000
export const EMAIL = 'jane.a@example.com'
export const PHONE = '2175550100'
export const FIRST_FAMILY_END_DATE = '2027-12-31'

export interface CensusGroup extends ApiInstallation {
  families: (ApiInstallation['families'][number] & { spouseId: string; childId: string })[]
  regionClassificationId: string
}

const ok = (res: { statusCode: number; body: string }, status = 201) => {
  expect(res.statusCode, res.body).toBe(status)
  return JSON.parse(res.body)
}

/** `installThroughApi` plus the first family's extra data, all through the API. */
export async function installForCensus(t: TestApp, partner: Credential, carrierName = 'aetna', families = 3): Promise<CensusGroup> {
  const install = await installThroughApi(t, partner, carrierName, families)
  const region = ok(
    await call(t.app, partner, 'POST', `/groups/${install.groupId}/employment_classifications`, {
      employment_classification: { external_identifier: 'north', description: 'North rating region', type: 'region', start_date: '2027-01-01', carrier_identifier: REGION_CODE },
    }),
  ).employment_classification
  const first = install.families[0]!
  const current = ok(await call(t.app, partner, 'GET', `/subscribers/${first.subscriberId}`), 200).subscriber
  ok(
    await call(t.app, partner, 'PUT', `/subscribers/${first.subscriberId}`, {
      subscriber: {
        external_identifier: current.external_identifier,
        location_id: current.location_id,
        first_name: current.first_name,
        last_name: current.last_name,
        birth_date: current.birth_date,
        gender: current.gender,
        marital_status: current.marital_status,
        tobacco_use: false,
        residential_address: current.residential_address,
        emails: [{ contact: EMAIL, type: 'personal' }],
        phone_numbers: [{ contact: PHONE, type: 'mobile' }],
        class: { employment_classification_id: region.id, effective_date: '2027-01-01' },
        employment_details: {
          start_date: '2019-03-01',
          status: 'full_time',
          annual_earnings: ANNUAL_EARNINGS,
          earnings_effective_date: '2027-01-01',
          wage_frequency: 'biweekly',
        },
      },
    }),
    200,
  )
  ok(
    await call(t.app, partner, 'POST', `/subscribers/${first.subscriberId}/qualifying_life_events`, {
      qualifying_life_event: {
        coverage_period_id: install.coveragePeriodId,
        event: 'open_enrollment',
        date: '2027-01-01',
        eligibility_start_date: '2027-01-01',
        plan_elections: {
          medical: {
            type: 'election',
            plan_id: install.planId,
            coverages: [first.subscriberId, ...first.dependentIds].map((member_id) => ({
              member_id,
              start_date: '2027-01-01',
              end_date: FIRST_FAMILY_END_DATE,
              status: 'employer_sponsored',
            })),
          },
        },
      },
    }),
  )
  return {
    ...install,
    regionClassificationId: region.id,
    families: install.families.map((f) => ({ ...f, spouseId: f.dependentIds[0]!, childId: f.dependentIds[1]! })),
  }
}

export type CarrierSubscriber = CensusSubscriberInputT & { dependents: CensusDependentInputT[] }

/** The carrier's census of `families` families, equal to the platform's data but spelt its own way. */
export function carrierCensus(families = 3): CarrierSubscriber[] {
  return Array.from({ length: families }, (_, i): CarrierSubscriber => {
    const last = `DOE${i + 1}`
    const coverage = () => ({ plan_external_identifier: 'GOLD-PPO', start_date: '01/01/2027', ...(i === 0 ? { end_date: '20271231' } : {}) })
    return {
      first_name: `JANE${letter(i).toUpperCase()}`,
      last_name: last,
      birth_date: '06/15/1985',
      gender: 'F',
      social_security_number: dashed(ssnOf(i, 0)),
      marital_status: 'M',
      residential_address: { address_line_1: `${12 + i} ELM STREET`, city: 'SPRINGFIELD', state: 'il', zip: '62704-0001' },
      employment_details: {
        start_date: '03/01/2019',
        status: 'FULL TIME',
        ...(i === 0 ? { annual_earnings: String(ANNUAL_EARNINGS), earnings_effective_date: '20270101', wage_frequency: 'BI-WEEKLY' } : {}),
      },
      ...(i === 0
        ? { emails: [{ contact: EMAIL.toUpperCase() }], phone_numbers: [{ contact: '(217) 555-0100' }], tobacco_use: 'N', region: 'r-north' }
        : {}),
      coverages: [coverage()],
      dependents: [
        { first_name: 'JOHN', last_name: last, birth_date: '02/02/1984', gender: 'M', social_security_number: ssnOf(i, 1), subscriber_relationship: '01', coverages: [coverage()] },
        { first_name: 'SAM', last_name: last, birth_date: '20150909', gender: 'M', subscriber_relationship: '19', coverages: [coverage()] },
      ],
    }
  })
}

/** The carrier's records of the whole group as an 834 audit file carries them (maintenance audit). */
function auditMembers(families: number, planDescription: string): Edi834Member[] {
  const members: Edi834Member[] = []
  for (let i = 0; i < families; i++) {
    const coverage = (level: Edi834Coverage['coverageLevel']): Edi834Coverage => ({
      maintenance: 'audit',
      productLine: 'medical',
      productType: 'preferred_provider_organization',
      planDescription,
      planExternalIdentifier: 'gold-ppo',
      coverageLevel: level,
      startDate: '2027-01-01',
      endDate: i === 0 ? FIRST_FAMILY_END_DATE : null,
      maintenanceEffectiveDate: null,
      volume: null,
      primaryCareProvider: null,
    })
    const base = {
      maintenance: 'audit' as const,
      reason: 'audit' as const,
      benefitStatus: 'active' as const,
      cobraQualifyingEvent: null,
      handicapped: null,
      subscriberIdentifier: `emp-${String(i + 1).padStart(4, '0')}`,
      groupPolicyNumber: null,
      carrierMemberId: null,
      employmentEndDate: null,
      cobraStartDate: null,
      eligibilityStartDate: '2027-01-01',
      eligibilityEndDate: null,
      maintenanceEffectiveDate: null,
      middleName: null,
      mailingAddress: null,
      reportingCategories: [],
    }
    members.push({
      ...base,
      subscriber: true,
      relationship: 'self',
      employmentStatus: 'full_time',
      memberId: `family-${i}-subscriber`,
      employmentStartDate: '2019-03-01',
      firstName: `JANE${letter(i).toUpperCase()}`,
      lastName: `DOE${i + 1}`,
      ssn: ssnOf(i, 0),
      phone: i === 0 ? PHONE : null,
      email: i === 0 ? EMAIL : null,
      residentialAddress: { address_line_1: `${12 + i} ELM ST`, city: 'SPRINGFIELD', state: 'IL', zip: '627040001' },
      birthDate: '1985-06-15',
      gender: 'female',
      maritalStatus: 'married',
      tobaccoUse: i === 0 ? false : null,
      coverages: [coverage('family')],
    })
    for (const [j, dependent] of [
      { relationship: 'spouse' as const, firstName: 'JOHN', birthDate: '1984-02-02', ssn: ssnOf(i, 1) },
      { relationship: 'child' as const, firstName: 'SAM', birthDate: '2015-09-09', ssn: null },
    ].entries()) {
      members.push({
        ...base,
        ...dependent,
        subscriber: false,
        employmentStatus: null,
        memberId: `family-${i}-dependent-${j}`,
        employmentStartDate: null,
        lastName: `DOE${i + 1}`,
        phone: null,
        email: null,
        residentialAddress: null,
        gender: 'male',
        maritalStatus: null,
        tobaccoUse: null,
        coverages: [coverage('family')],
      })
    }
  }
  return members
}

/**
 * An 834 audit file (BGN08 verify, every loop maintenance audit) of the group as the carrier
 * holds it; `change` may alter the members first (a difference to find).
 */
export async function auditFile(families = 3, change: (members: Edi834Member[]) => void = () => {}): Promise<string> {
  const members = auditMembers(families, 'Gold PPO 500')
  change(members)
  return write834ToString(
    {
      senderQualifier: 'ZZ',
      senderId: 'AETNA',
      receiverQualifier: 'ZZ',
      receiverId: 'ENROLLSYNC',
      applicationSenderCode: 'AETNA',
      applicationReceiverCode: 'ENROLLSYNC',
      interchangeControlNumber: 1201,
      usage: 'T',
      createdAt: new Date('2027-01-20T09:00:00Z'),
    },
    {
      reference: 'AUDIT-2027-01-20',
      action: 'verify',
      masterPolicyNumber: null,
      effectiveDate: '2027-01-20',
      totals: { subscribers: members.filter((m) => m.subscriber).length, dependents: members.filter((m) => !m.subscriber).length },
      sponsor: { name: 'Acme Widgets Inc.', fein: '123456789', groupExternalIdentifier: 'acme' },
      payer: { name: 'Aetna', carrierName: 'aetna' },
      brokers: [],
    },
    members,
  )
}
