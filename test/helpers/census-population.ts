import { expect } from 'vitest'
import type { CensusDependentInputT, CensusSubscriberInputT } from '../../src/modules/census/census-input.schema.js'
import { createInstallment } from './carrier-side.js'
import { call, type Credential, type TestApp } from './test-app.js'

/**
 * A generated population for census tests of some size (thousands of families): a seeded,
 * deterministic description of every family (names, birth dates, SSNs or none, 0 to 3
 * dependents, a medical plan and for some a dental one), installed through the API, and the
 * carrier's census of it spelt the carrier's way. Tests plant differences in the census.
 */

/** mulberry32: small, seeded, good enough to spread test data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!

/** In place, Fisher-Yates. */
export function shuffle<T>(random: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}

const FIRST = ['Jordan', 'Taylor', 'Morgan', 'Casey', 'Riley', 'Jamie', 'Avery', 'Quinn', 'Parker', 'Rowan', 'Dana', 'Blake']
const LAST = ['Nguyen', 'Garcia', 'Smith', 'Okafor', 'Kowalski', 'Haddad', 'Larsen', 'Moreau', 'Tanaka', 'Silva', 'Brennan', 'Ivanova']
const CHILD = ['Kim', 'Lee', 'Noa', 'Eli', 'Ari', 'Jo', 'Max', 'Ivy', 'Zoe', 'Ben']

const pad = (n: number, width: number) => String(n).padStart(width, '0')

/** Valid, distinct SSNs: (area, group) from the family, serial from the member. */
export function generatedSsn(family: number, member: number): string {
  const area = 100 + (family % 500)
  const group = 10 + (Math.floor(family / 500) % 89)
  return `${area}${group}${pad(1001 + member, 4)}`
}

export interface GeneratedMember {
  firstName: string
  lastName: string
  birthDate: string
  gender: 'female' | 'male'
  ssn: string | null
  relationship: 'self' | 'spouse' | 'child'
}

export interface GeneratedFamily {
  index: number
  subscriber: GeneratedMember & { maritalStatus: 'married' | 'single'; address: { address_line_1: string; city: string; state: string; zip: string } }
  dependents: GeneratedMember[]
  dental: boolean
}

function isoDate(random: () => number, fromYear: number, years: number): string {
  return `${fromYear + Math.floor(random() * years)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(1 + Math.floor(random() * 28), 2)}`
}

/** `count` families from `seed`: the same seed, the same families. */
export function generateFamilies(count: number, seed: number): GeneratedFamily[] {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, index): GeneratedFamily => {
    const lastName = `${pick(random, LAST)}${index % 7 === 0 ? '' : pad(index, 4)}`
    const married = random() < 0.6
    const dependents: GeneratedMember[] = []
    if (married) dependents.push({ firstName: pick(random, FIRST), lastName, birthDate: isoDate(random, 1960, 40), gender: random() < 0.5 ? 'female' : 'male', ssn: random() < 0.7 ? generatedSsn(index, 1) : null, relationship: 'spouse' })
    const children = Math.floor(random() * (married ? 3 : 2))
    for (let c = 0; c < children; c++) {
      dependents.push({ firstName: `${pick(random, CHILD)}${c}`, lastName, birthDate: isoDate(random, 2005, 20), gender: random() < 0.5 ? 'female' : 'male', ssn: random() < 0.4 ? generatedSsn(index, 2 + c) : null, relationship: 'child' })
    }
    return {
      index,
      subscriber: {
        firstName: pick(random, FIRST),
        lastName,
        birthDate: isoDate(random, 1960, 45),
        gender: random() < 0.5 ? 'female' : 'male',
        // The platform requires a subscriber's SSN; censuses without one are planted by the tests.
        ssn: generatedSsn(index, 0),
        relationship: 'self',
        maritalStatus: married ? 'married' : 'single',
        address: { address_line_1: `${10 + index} Elm St`, city: 'Springfield', state: 'IL', zip: '62704' },
      },
      dependents,
      dental: random() < 0.35,
    }
  })
}

export interface Population {
  groupId: string
  coveragePeriodId: string
  /** Plan ids by external identifier. */
  plans: { medical: string; dental: string }
  /** Per family (same index as the generated ones): the platform ids, dependents in order. */
  ids: { subscriberId: string; dependentIds: string[] }[]
  /** The installation's work order, opened by complete_setup: moving it to submitted sends the full file. */
  workOrderId: string
}

export const MEDICAL = 'gold-ppo'
export const DENTAL = 'dental-basic'
const COVERAGE_START = '2027-01-01'

const ok = (res: { statusCode: number; body: string }, status = 201) => {
  expect(res.statusCode, res.body).toBe(status)
  return JSON.parse(res.body)
}

/** The families installed through the API, up to complete setup (subscribers in bulk, one life event each). */
export async function installPopulation(t: TestApp, partner: Credential, families: readonly GeneratedFamily[], carrierName = 'aetna'): Promise<Population> {
  const tag = Math.random().toString(36).slice(2, 8)
  const { groupId, locationId } = await createInstallment(t, partner, carrierName, `gen-${tag}`)
  const cp = ok(
    await call(t.app, partner, 'POST', `/groups/${groupId}/coverage_periods`, {
      coverage_period: { external_identifier: 'plan-year-2027', coverage_start_date: COVERAGE_START, coverage_end_date: '2027-12-31', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
    }),
  ).coverage_period
  const plan = async (body: Record<string, unknown>) => ok(await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/plans`, { plan: body })).plan.id as string
  const plans = {
    medical: await plan({ external_identifier: MEDICAL, description: 'Gold PPO 500', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' }),
    dental: await plan({ external_identifier: DENTAL, description: 'Dental Basic', product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' }),
  }
  const ids: Population['ids'] = []
  // Bodies of some 400 families stay under the test app's 1 MB body limit.
  for (let start = 0; start < families.length; start += 400) {
    const created = ok(
      await call(t.app, partner, 'POST', `/groups/${groupId}/subscribers`, {
        subscribers: families.slice(start, start + 400).map((f) => ({
          external_identifier: `emp-${pad(f.index, 5)}`,
          location_id: locationId,
          first_name: f.subscriber.firstName,
          last_name: f.subscriber.lastName,
          birth_date: f.subscriber.birthDate,
          gender: f.subscriber.gender,
          ...(f.subscriber.ssn ? { social_security_number: f.subscriber.ssn } : {}),
          marital_status: f.subscriber.maritalStatus,
          residential_address: f.subscriber.address,
          employment_details: { start_date: '2019-03-01', status: 'full_time' },
          dependents: f.dependents.map((d, j) => ({
            external_identifier: `emp-${pad(f.index, 5)}-${j}`,
            first_name: d.firstName,
            last_name: d.lastName,
            birth_date: d.birthDate,
            gender: d.gender,
            subscriber_relationship: d.relationship,
            ...(d.ssn ? { social_security_number: d.ssn } : {}),
          })),
        })),
      }),
    ).subscribers as { id: string; dependents: { id: string }[] }[]
    for (const s of created) ids.push({ subscriberId: s.id, dependentIds: s.dependents.map((d) => d.id) })
  }
  for (const [i, family] of families.entries()) {
    const members = [ids[i]!.subscriberId, ...ids[i]!.dependentIds]
    const election = (planId: string) => ({ type: 'election', plan_id: planId, coverages: members.map((member_id) => ({ member_id, start_date: COVERAGE_START, status: 'employer_sponsored' })) })
    ok(
      await call(t.app, partner, 'POST', `/subscribers/${ids[i]!.subscriberId}/qualifying_life_events`, {
        qualifying_life_event: {
          coverage_period_id: cp.id,
          event: 'initial_enrollment',
          date: COVERAGE_START,
          eligibility_start_date: COVERAGE_START,
          plan_elections: { medical: election(plans.medical), ...(family.dental ? { dental: election(plans.dental) } : {}) },
        },
      }),
    )
  }
  const workOrder = ok(await call(t.app, partner, 'POST', `/coverage_periods/${cp.id}/complete_setup`)).work_order
  return { groupId, coveragePeriodId: cp.id, plans, ids, workOrderId: workOrder.id }
}

export type GeneratedCensusSubscriber = CensusSubscriberInputT & { dependents: CensusDependentInputT[] }

const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`
const dashed = (ssn: string) => `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`
const RELATIONSHIP_CODE = { self: '18', spouse: '01', child: '19' } as const

/** The carrier's record of one family, equal to the platform's but spelt the carrier's way. */
export function carrierRecord(family: GeneratedFamily): GeneratedCensusSubscriber {
  const coverages = () => [
    { plan_external_identifier: MEDICAL.toUpperCase(), start_date: usDate(COVERAGE_START) },
    ...(family.dental ? [{ plan_external_identifier: DENTAL, start_date: COVERAGE_START.replaceAll('-', '') }] : []),
  ]
  const s = family.subscriber
  return {
    first_name: s.firstName.toUpperCase(),
    last_name: s.lastName.toUpperCase(),
    birth_date: usDate(s.birthDate),
    gender: s.gender === 'female' ? 'F' : 'M',
    ...(s.ssn ? { social_security_number: dashed(s.ssn) } : {}),
    marital_status: s.maritalStatus === 'married' ? 'M' : 'I',
    residential_address: { ...s.address, address_line_1: s.address.address_line_1.toUpperCase(), zip: `${s.address.zip}-0001` },
    employment_details: { start_date: '03/01/2019', status: 'FULL TIME' },
    coverages: coverages(),
    dependents: family.dependents.map((d) => ({
      first_name: d.firstName.toUpperCase(),
      last_name: d.lastName.toUpperCase(),
      birth_date: usDate(d.birthDate),
      gender: d.gender === 'female' ? 'F' : 'M',
      ...(d.ssn ? { social_security_number: d.ssn } : {}),
      subscriber_relationship: RELATIONSHIP_CODE[d.relationship],
      coverages: coverages(),
    })),
  }
}
