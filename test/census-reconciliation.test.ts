import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CensusRequest } from '../src/modules/census/census.schema.js'
import { RECONCILIATION_RESOLUTION } from '../src/modules/census/census.service.js'
import { discrepancyMessage, type DiscrepancyKind, type DiscrepancyParameter } from '../src/modules/errors/discrepancy-messages.js'
import type { ErrorResource } from '../src/modules/errors/errors.schema.js'
import {
  ANNUAL_EARNINGS,
  auditFile,
  carrierCensus,
  EMAIL,
  FIRST_FAMILY_END_DATE,
  installForCensus,
  lastFour,
  PHONE,
  REGION_CODE,
  ssnOf,
  type CarrierSubscriber,
  type CensusGroup,
} from './helpers/census-fixtures.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Census reconciliation end to end, through the API an operator uses: post the carrier's census
 * (POST /coverage_periods/{id}/census_requests), then read what it did (the census request, its
 * subscribers, the coverage period's reconciliation errors). Each test installs its own group
 * (helpers/census-fixtures.ts) and starts from `carrierCensus()`, the platform's data in the
 * carrier's spellings, which reconciles without an error.
 */

let t: TestApp
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

interface Setup {
  partner: Credential
  g: CensusGroup
}

async function setUp(): Promise<Setup> {
  const partner = await t.newPartner()
  return { partner, g: await installForCensus(t, partner) }
}

const masked = (ssn: string) => `***-**-${lastFour(ssn)}`

function postCensus(g: CensusGroup, body: Record<string, unknown>, credential: Credential = operator) {
  return call(t.app, credential, 'POST', `/coverage_periods/${g.coveragePeriodId}/census_requests`, { census_request: body })
}

/** Posts a census that must be reconciled as a new census request (201), and answers it. */
async function reconcile(g: CensusGroup, census: CarrierSubscriber[] | { x12_834: string }, asOf?: string): Promise<CensusRequest> {
  const body = Array.isArray(census) ? { subscribers: census } : census
  const res = await postCensus(g, { ...body, ...(asOf ? { as_of: asOf } : {}) })
  expect(res.statusCode, res.body).toBe(201)
  const created = res.json().census_request as CensusRequest
  expect(created).toMatchObject({ coverage_period_id: g.coveragePeriodId, group_id: g.groupId, status: 'completed', format: Array.isArray(census) ? 'json' : 'x12_834' })
  return created
}

/** Every reconciliation error of the coverage period, whatever its status, oldest first. */
async function reconciliationErrors(g: CensusGroup): Promise<ErrorResource[]> {
  const res = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/errors?source=reconciliation&per_page=100`)
  expect(res.statusCode, res.body).toBe(200)
  const errors = res.json().errors as ErrorResource[]
  for (const error of errors) expect(error.source).toBe('reconciliation')
  return errors.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1))
}

const unresolved = async (g: CensusGroup) => (await reconciliationErrors(g)).filter((e) => e.status !== 'resolved')

async function getError(id: string): Promise<ErrorResource> {
  const res = await call(t.app, operator, 'GET', `/errors/${id}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().error
}

async function getCensus(id: string): Promise<CensusRequest> {
  const res = await call(t.app, operator, 'GET', `/census_requests/${id}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().census_request
}

/** A short, comparable view of errors: "parameter kind member". */
const summary = (errors: readonly ErrorResource[], g: CensusGroup) => {
  const names = new Map<string | null, string>([[null, '-']])
  g.families.forEach((f, i) => {
    names.set(f.subscriberId, `subscriber${i}`)
    names.set(f.spouseId, `spouse${i}`)
    names.set(f.childId, `child${i}`)
  })
  return errors.map((e) => `${e.discrepancy.parameter} ${e.discrepancy.kind} ${names.get(e.member_id) ?? e.member_id}`).sort()
}

const NO_CHANGE = { discrepancy_count: 0, errors_created: 0, errors_reopened: 0, errors_resolved: 0 }

// ---------------------------------------------------------------------------------------------
// 1. Every parameter: the same value spelt differently, a different value, fixed, back again.
// ---------------------------------------------------------------------------------------------

interface ParameterCase {
  parameter: DiscrepancyParameter
  /** Another carrier spelling of the platform's value: no error. */
  same: (census: CarrierSubscriber[], g: CensusGroup) => void
  /** A real difference: exactly one error. */
  differ: (census: CarrierSubscriber[], g: CensusGroup) => void
  kind: DiscrepancyKind
  carrier: unknown
  platform: unknown
  /** The platform member the error is on (null: a member the platform lacks). */
  member: (g: CensusGroup) => string | null
  /** The error names the plan. */
  onPlan?: boolean
  /** Census members matched by the differing census (default 9, all). */
  matched?: number
  /** Anything else to check on the error or the census request that raised it. */
  also?: (error: ErrorResource, census: CensusRequest) => void
}

const subscriber0 = (g: CensusGroup) => g.families[0]!.subscriberId
const jane = (census: CarrierSubscriber[]) => census[0]!
const employment = (census: CarrierSubscriber[]) => jane(census).employment_details!
const coverage0 = (census: CarrierSubscriber[]) => jane(census).coverages![0]!

const PARAMETER_CASES: ParameterCase[] = [
  {
    parameter: 'birth_date',
    same: (c) => void (jane(c).birth_date = '19850615'),
    differ: (c) => void (jane(c).birth_date = '06/16/1985'),
    kind: 'carrier_value_differs',
    carrier: '06/16/1985',
    platform: '1985-06-15',
    member: subscriber0,
  },
  {
    parameter: 'gender',
    same: (c) => void (jane(c).gender = 'female'),
    differ: (c) => void (jane(c).gender = 'M'),
    kind: 'carrier_value_differs',
    carrier: 'M',
    platform: 'female',
    member: subscriber0,
  },
  {
    parameter: 'marital_status',
    same: (c) => void (jane(c).marital_status = 'Married'),
    differ: (c) => void (jane(c).marital_status = 'I'), // X12: single
    kind: 'carrier_value_differs',
    carrier: 'I',
    platform: 'married',
    member: subscriber0,
  },
  {
    parameter: 'residential_address',
    same: (c) => void (jane(c).residential_address = { address_line_1: '12 Elm St.', city: 'Springfield', state: 'IL', zip: '627040001' }),
    differ: (c) => void (jane(c).residential_address!.address_line_1 = '99 OAK AVENUE'),
    kind: 'carrier_value_differs',
    carrier: { address_line_1: '99 OAK AVENUE', city: 'SPRINGFIELD', state: 'il', zip: '62704-0001' },
    platform: { address_line_1: '12 Elm St', city: 'Springfield', state: 'IL', zip: '62704' },
    member: subscriber0,
  },
  {
    parameter: 'employment_start_date',
    same: (c) => void (employment(c).start_date = '3/1/2019'),
    differ: (c) => void (employment(c).start_date = '04/01/2019'),
    kind: 'carrier_value_differs',
    carrier: '04/01/2019',
    platform: '2019-03-01',
    member: subscriber0,
  },
  {
    parameter: 'employment_status',
    same: (c) => void (employment(c).status = 'Full-Time'),
    differ: (c) => void (employment(c).status = 'PART TIME'),
    kind: 'carrier_value_differs',
    carrier: 'PART TIME',
    platform: 'full_time',
    member: subscriber0,
  },
  {
    parameter: 'annual_earnings',
    same: (c) => void (employment(c).annual_earnings = ANNUAL_EARNINGS),
    differ: (c) => void (employment(c).annual_earnings = '7000000'),
    kind: 'carrier_value_differs',
    carrier: '7000000',
    platform: ANNUAL_EARNINGS,
    member: subscriber0,
  },
  {
    parameter: 'earnings_effective_date',
    same: (c) => void (employment(c).earnings_effective_date = '2027-01-01'),
    differ: (c) => void (employment(c).earnings_effective_date = '02/01/2027'),
    kind: 'carrier_value_differs',
    carrier: '02/01/2027',
    platform: '2027-01-01',
    member: subscriber0,
  },
  {
    parameter: 'wage_frequency',
    same: (c) => void (employment(c).wage_frequency = 'biweekly'),
    differ: (c) => void (employment(c).wage_frequency = 'WEEKLY'),
    kind: 'carrier_value_differs',
    carrier: 'WEEKLY',
    platform: 'biweekly',
    member: subscriber0,
  },
  {
    parameter: 'emails',
    same: (c) => void (jane(c).emails = [{ contact: ` ${EMAIL.replace('jane', 'Jane')} `, type: 'work' }, { contact: EMAIL.toUpperCase() }]),
    differ: (c) => void (jane(c).emails = [{ contact: 'jane.other@example.com' }]),
    kind: 'carrier_value_differs',
    carrier: ['jane.other@example.com'],
    platform: [EMAIL],
    member: subscriber0,
  },
  {
    parameter: 'phone_numbers',
    same: (c) => void (jane(c).phone_numbers = [{ contact: '+1 217-555-0100' }]),
    differ: (c) => void (jane(c).phone_numbers = [{ contact: '217.555.0199' }]),
    kind: 'carrier_value_differs',
    carrier: ['217.555.0199'],
    platform: [PHONE],
    member: subscriber0,
  },
  {
    parameter: 'tobacco_use',
    same: (c) => void (jane(c).tobacco_use = false),
    differ: (c) => void (jane(c).tobacco_use = 'Y'),
    kind: 'carrier_value_differs',
    carrier: 'Y',
    platform: false,
    member: subscriber0,
  },
  {
    // The carrier's SSN differs: the member is still matched (name, birth date, relationship).
    parameter: 'social_security_number',
    same: (c) => void (jane(c).social_security_number = ssnOf(0, 0)),
    differ: (c) => void (jane(c).social_security_number = '100-01-9999'),
    kind: 'carrier_value_differs',
    carrier: '***-**-9999',
    platform: masked(ssnOf(0, 0)),
    member: subscriber0,
  },
  {
    // The subscriber's employment classification of type region, by its carrier identifier.
    parameter: 'region',
    same: (c) => void (jane(c).region = REGION_CODE.toLowerCase().replace('-', ' ')),
    differ: (c) => void (jane(c).region = 'R-SOUTH'),
    kind: 'carrier_value_differs',
    carrier: 'R-SOUTH',
    platform: REGION_CODE,
    member: subscriber0,
  },
  {
    parameter: 'plan_start_date',
    same: (c) => void (coverage0(c).start_date = '2027-01-01'),
    differ: (c) => void (coverage0(c).start_date = '02/01/2027'),
    kind: 'carrier_value_differs',
    carrier: '02/01/2027',
    platform: '2027-01-01',
    member: subscriber0,
    onPlan: true,
  },
  {
    parameter: 'plan_end_date',
    same: (c) => void (coverage0(c).end_date = '12/31/2027'),
    differ: (c) => void (coverage0(c).end_date = '06/30/2027'),
    kind: 'carrier_value_differs',
    carrier: '06/30/2027',
    platform: FIRST_FAMILY_END_DATE,
    member: subscriber0,
    onPlan: true,
  },
  {
    // The plan named by its id instead of its external identifier is the same coverage.
    parameter: 'coverage',
    same: (c, g) => void (jane(c).coverages = [{ plan_id: g.planId, start_date: '01/01/2027', end_date: '12/31/2027' }]),
    differ: (c) => void (jane(c).coverages = []),
    kind: 'carrier_missing',
    carrier: null,
    platform: { plan: 'gold-ppo', start_date: '2027-01-01', end_date: FIRST_FAMILY_END_DATE },
    member: subscriber0,
    onPlan: true,
  },
  {
    // A plan the coverage period does not have: the census request says so too.
    parameter: 'plan_id',
    same: (c) => void (coverage0(c).plan_external_identifier = 'Gold-Ppo'),
    differ: (c) => void jane(c).coverages!.push({ plan_external_identifier: 'SILVER-HMO', start_date: '01/01/2027' }),
    kind: 'value_invalid',
    carrier: 'SILVER-HMO',
    platform: null,
    member: subscriber0,
    also: (error, census) => {
      const problem = 'Unknown plan "SILVER-HMO": no plan of the coverage period has this id or external identifier.'
      expect(census.errors).toEqual([problem])
      expect(error.census_requests!.errors).toEqual([problem])
    },
  },
  {
    // Same: matched by name, birth date and relationship alone (no SSN sent), names spelt apart.
    // Differ: a subscriber the platform does not have.
    parameter: 'subscriber',
    same: (c) => {
      delete c[1]!.social_security_number
      c[1]!.first_name = 'jane-b'
      c[1]!.last_name = 'Doe 2'
    },
    differ: (c) =>
      void c.push({ first_name: 'PAT', last_name: 'NEWHIRE', birth_date: '07/04/1990', gender: 'M', social_security_number: '200-11-2222', dependents: [] }),
    kind: 'platform_missing',
    carrier: { first_name: 'PAT', last_name: 'NEWHIRE', birth_date: '07/04/1990' },
    platform: null,
    member: () => null,
  },
  {
    // Same: the child as X12 "adopted child" (09) and in lower case. Differ: the carrier lacks the child.
    parameter: 'dependent',
    same: (c) => Object.assign(jane(c).dependents[1]!, { subscriber_relationship: '09', first_name: 'sam' }),
    differ: (c) => void jane(c).dependents.splice(1, 1),
    kind: 'carrier_missing',
    carrier: null,
    platform: { first_name: 'Sam', last_name: 'Doe1', birth_date: '2015-09-09', relationship: 'child' },
    member: (g) => g.families[0]!.childId,
    matched: 8,
  },
]

describe('POST /coverage_periods/{id}/census_requests: each parameter', () => {
  it('when the census is the platform in carrier spellings, then every member matches and nothing is raised', async () => {
    const { g } = await setUp()
    const census = await reconcile(g, carrierCensus())
    expect(census).toMatchObject({ subscriber_count: 3, member_count: 9, matched_count: 9, ...NO_CHANGE, errors: [] })
    expect(await reconciliationErrors(g)).toEqual([])
  })

  it.each(PARAMETER_CASES)(
    'when $parameter differs, then one error; fixed, it is resolved; back, the same error reopens',
    async (c) => {
      const { g } = await setUp()
      const census = () => carrierCensus()
      const variant = (change: (census: CarrierSubscriber[], g: CensusGroup) => void) => {
        const subscribers = census()
        change(subscribers, g)
        return subscribers
      }

      // (a) The platform's value in the carrier's spelling: nothing.
      expect(await reconcile(g, census())).toMatchObject({ matched_count: 9, ...NO_CHANGE })
      expect(await reconcile(g, variant(c.same))).toMatchObject({ matched_count: 9, ...NO_CHANGE })
      expect(await reconciliationErrors(g)).toEqual([])

      // (b) A different value: exactly one error, in the catalogue's words, linked to the census.
      const differing = variant(c.differ)
      const raisedBy = await reconcile(g, differing)
      expect(raisedBy).toMatchObject({ matched_count: c.matched ?? 9, discrepancy_count: 1, errors_created: 1, errors_reopened: 0, errors_resolved: 0 })
      const errors = await reconciliationErrors(g)
      expect(errors).toHaveLength(1)
      const error = errors[0]!
      const catalogue = discrepancyMessage(c.parameter, c.kind)
      expect(error).toMatchObject({
        coverage_period_id: g.coveragePeriodId,
        group_id: g.groupId,
        source: 'reconciliation',
        status: 'unresolved',
        message: catalogue.message,
        severity: catalogue.severity,
        assignee: catalogue.assignee,
        member_id: c.member(g),
        plan_id: c.onPlan ? g.planId : null,
        created_by: null,
        resolution: null,
        reopened_at: null,
        census_requests: { id: raisedBy.id, status: 'completed', coverage_period_id: g.coveragePeriodId },
      })
      expect(error.discrepancy).toEqual({ parameter: c.parameter, kind: c.kind, carrier: c.carrier, platform: c.platform })
      expect(await getError(error.id)).toMatchObject({ ...error, comments: [] })
      c.also?.(error, raisedBy)

      // (c) Fixed at the carrier: resolved by reconciliation, linked to the census that fixed it.
      const fixedBy = await reconcile(g, census())
      expect(fixedBy).toMatchObject({ matched_count: 9, ...NO_CHANGE, errors_resolved: 1 })
      const resolved = await getError(error.id)
      expect(resolved).toMatchObject({
        status: 'resolved',
        resolution: { resolved_by: 'reconciliation', message: RECONCILIATION_RESOLUTION },
        resolution_message: RECONCILIATION_RESOLUTION,
        census_requests: { id: fixedBy.id },
      })

      // (d) The difference back: the same error reopens; no second one.
      const reopenedBy = await reconcile(g, differing)
      expect(reopenedBy).toMatchObject({ discrepancy_count: 1, errors_created: 0, errors_reopened: 1, errors_resolved: 0 })
      const reopened = await getError(error.id)
      expect(reopened).toMatchObject({
        status: 'unresolved',
        resolution: null,
        resolution_message: null,
        message: catalogue.message,
        census_requests: { id: reopenedBy.id },
      })
      expect(reopened.reopened_at).not.toBeNull()
      expect(reopened.discrepancy).toEqual(error.discrepancy)
      expect((await reconciliationErrors(g)).map((e) => e.id)).toEqual([error.id])
    },
  )
})

// ---------------------------------------------------------------------------------------------
// 2. The same census again.
// ---------------------------------------------------------------------------------------------

describe('the same census posted again', () => {
  it('when the latest census is posted again, then 200 with the same census request and nothing changes', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    jane(census).gender = 'M'
    census.splice(2, 1)
    const first = await reconcile(g, census, '2027-01-20')
    expect(first).toMatchObject({ errors_created: 4 })
    const before = await reconciliationErrors(g)

    const again = await postCensus(g, { as_of: '2027-01-20', subscribers: census })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().census_request).toEqual(first)

    const after = await reconciliationErrors(g)
    expect(after.map((e) => [e.id, e.status, e.updated_at, e.census_requests?.id])).toEqual(before.map((e) => [e.id, e.status, e.updated_at, e.census_requests?.id]))
    const list = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/census_requests`)
    expect(list.json().census_requests.map((c: CensusRequest) => c.id)).toEqual([first.id])
    expect(list.headers.total).toBe('1')
  })
})

// ---------------------------------------------------------------------------------------------
// 3. Members one side lacks.
// ---------------------------------------------------------------------------------------------

describe('members missing on one side', () => {
  it('when the carrier lacks a family and a spouse, then carrier_missing errors for each platform member, assigned to the operator', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    census.splice(1, 1)
    jane(census).dependents.splice(0, 1)
    const raisedBy = await reconcile(g, census)
    expect(raisedBy).toMatchObject({ subscriber_count: 2, member_count: 5, matched_count: 5, discrepancy_count: 4, errors_created: 4 })
    const errors = await reconciliationErrors(g)
    expect(summary(errors, g)).toEqual(['dependent carrier_missing child1', 'dependent carrier_missing spouse0', 'dependent carrier_missing spouse1', 'subscriber carrier_missing subscriber1'])
    for (const error of errors) {
      expect(error).toMatchObject({ assignee: 'service', severity: 'failure', plan_id: null, status: 'unresolved', census_requests: { id: raisedBy.id } })
      expect(error.message).toBe(discrepancyMessage(error.discrepancy.parameter, 'carrier_missing').message)
      expect(error.discrepancy.carrier).toBeNull()
    }
    const byMember = new Map(errors.map((e) => [e.member_id, e.discrepancy.platform]))
    expect(byMember.get(g.families[1]!.subscriberId)).toEqual({ first_name: 'Janeb', last_name: 'Doe2', birth_date: '1985-06-15' })
    expect(byMember.get(g.families[0]!.spouseId)).toEqual({ first_name: 'John', last_name: 'Doe1', birth_date: '1984-02-02', relationship: 'spouse' })
  })

  it('when the carrier has subscribers the platform lacks, then one platform_missing error each, without a member, never merged', async () => {
    const { g } = await setUp()
    const pat = { first_name: 'PAT', last_name: 'NEWHIRE', birth_date: '07/04/1990', gender: 'M', dependents: [] }
    // Same name, another birth date: another person.
    const patToo = { ...pat, birth_date: '08/09/1991' }
    const kim = { first_name: 'KIM', last_name: 'LATE', birth_date: '01/02/1970', gender: 'F', carrier_member_id: 'AET-9001', dependents: [] }
    const census = [...carrierCensus(), pat, patToo, kim]
    const raisedBy = await reconcile(g, census)
    expect(raisedBy).toMatchObject({ subscriber_count: 6, member_count: 12, matched_count: 9, discrepancy_count: 3, errors_created: 3 })
    const errors = await reconciliationErrors(g)
    expect(summary(errors, g)).toEqual(['subscriber platform_missing -', 'subscriber platform_missing -', 'subscriber platform_missing -'])
    expect(errors.map((e) => e.discrepancy.carrier)).toEqual(
      expect.arrayContaining([
        { first_name: 'PAT', last_name: 'NEWHIRE', birth_date: '07/04/1990' },
        { first_name: 'PAT', last_name: 'NEWHIRE', birth_date: '08/09/1991' },
        { first_name: 'KIM', last_name: 'LATE', birth_date: '01/02/1970', carrier_member_id: 'AET-9001' },
      ]),
    )
    for (const error of errors) {
      expect(error).toMatchObject({ member_id: null, plan_id: null, assignee: 'partner', message: discrepancyMessage('subscriber', 'platform_missing').message })
      expect(error.discrepancy.platform).toBeNull()
    }

    // The carrier drops one of them: only that one is resolved; the others stay as they were.
    const next = await reconcile(g, [...carrierCensus(), pat, kim])
    expect(next).toMatchObject({ discrepancy_count: 2, errors_created: 0, errors_reopened: 0, errors_resolved: 1 })
    const after = await reconciliationErrors(g)
    const resolved = after.filter((e) => e.status === 'resolved')
    expect(resolved.map((e) => e.discrepancy.carrier)).toEqual([{ first_name: 'PAT', last_name: 'NEWHIRE', birth_date: '08/09/1991' }])
    expect(after.filter((e) => e.status === 'unresolved')).toHaveLength(2)
  })

  it('when the carrier has a dependent the platform lacks, then platform_missing on the family of the matched subscriber', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    jane(census).dependents.push({ first_name: 'MAX', last_name: 'DOE1', birth_date: '03/03/2019', gender: 'M', subscriber_relationship: '19' })
    expect(await reconcile(g, census)).toMatchObject({ member_count: 10, matched_count: 9, discrepancy_count: 1, errors_created: 1 })
    const [error, ...rest] = await reconciliationErrors(g)
    expect(rest).toEqual([])
    expect(error).toMatchObject({
      member_id: g.families[0]!.subscriberId,
      message: discrepancyMessage('dependent', 'platform_missing').message,
      discrepancy: { parameter: 'dependent', kind: 'platform_missing', platform: null, carrier: { first_name: 'MAX', last_name: 'DOE1', birth_date: '03/03/2019', relationship: '19' } },
    })
  })
})

// ---------------------------------------------------------------------------------------------
// 4. Matching.
// ---------------------------------------------------------------------------------------------

describe('matching census members to platform members', () => {
  /** The carrier's ids on every member; `rename` spells family 0 so that only the id can match it. */
  const withCarrierIds = (rename: boolean, idCase: (id: string) => string = (id) => id) =>
    carrierCensus().map((subscriber, i) => {
      const family = i === 0 && rename
      const member = <M extends { last_name: string; social_security_number?: string | null }>(m: M, j: number) => {
        const copy = { ...m, carrier_member_id: idCase(`AET-${i}-${j}`) }
        if (!family) return copy
        delete copy.social_security_number
        return { ...copy, last_name: 'SMITH-WESSON' }
      }
      return { ...member(subscriber, 0), dependents: subscriber.dependents.map((d, j) => member(d, j + 1)) }
    })

  it('when a census gave carrier member ids, then a later one matching only by those ids still matches, and the members show nothing new', async () => {
    const { partner, g } = await setUp()
    // Before the carrier's ids are known, a family renamed and without SSNs cannot be matched.
    const unknown = await reconcile(g, withCarrierIds(true))
    expect(unknown).toMatchObject({ matched_count: 6, errors_created: 6 })
    expect(summary(await reconciliationErrors(g), g)).toEqual([
      'dependent carrier_missing child0',
      'dependent carrier_missing spouse0',
      'dependent platform_missing -',
      'dependent platform_missing -',
      'subscriber carrier_missing subscriber0',
      'subscriber platform_missing -',
    ])

    const subscribersBefore = (await call(t.app, partner, 'GET', `/groups/${g.groupId}/subscribers`)).json()
    const learnt = await reconcile(g, withCarrierIds(false))
    expect(learnt).toMatchObject({ matched_count: 9, discrepancy_count: 0, errors_resolved: 6 })
    // What the carrier calls the members is the service's business: the partner sees no change.
    expect((await call(t.app, partner, 'GET', `/groups/${g.groupId}/subscribers`)).json()).toEqual(subscribersBefore)

    // Renamed and without SSNs, in lower case: matched by the learnt ids, and names are not compared.
    const byId = await reconcile(g, withCarrierIds(true, (id) => id.toLowerCase()))
    expect(byId).toMatchObject({ matched_count: 9, ...NO_CHANGE })
    expect(await unresolved(g)).toEqual([])
    const subscribers = (await call(t.app, operator, 'GET', `/census_requests/${byId.id}/subscribers`)).json().subscribers
    expect(subscribers.map((s: { matched_subscriber_id: string }) => s.matched_subscriber_id)).toEqual(g.families.map((f) => f.subscriberId))

    // A birth date that differs too is a birth date error, not a missing member.
    const wrongBirthDate = withCarrierIds(true)
    jane(wrongBirthDate).birth_date = '07/15/1985'
    expect(await reconcile(g, wrongBirthDate)).toMatchObject({ matched_count: 9, discrepancy_count: 1, errors_created: 1 })
    expect(summary(await unresolved(g), g)).toEqual(['birth_date carrier_value_differs subscriber0'])
  })

  it('when the carrier gives a whole family one member id, then the id does not pair its members with each other', async () => {
    const { g } = await setUp()
    // Many carriers file dependents under the subscriber's member id.
    const familyIds = () =>
      carrierCensus().map((subscriber, i) => ({ ...subscriber, carrier_member_id: `AET-${i}`, dependents: subscriber.dependents.map((d) => ({ ...d, carrier_member_id: `AET-${i}` })) }))
    expect(await reconcile(g, familyIds())).toMatchObject({ matched_count: 9, ...NO_CHANGE })
    // The same census with each family's dependents listed child first.
    const reordered = familyIds().map((subscriber) => ({ ...subscriber, dependents: [...subscriber.dependents].reverse() }))
    expect(await reconcile(g, reordered)).toMatchObject({ matched_count: 9, ...NO_CHANGE })
    expect(await reconciliationErrors(g)).toEqual([])
  })

  it('when a dependent has the right SSN and name but another birth date, then a birth_date error rather than a missing dependent', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    jane(census).dependents[0]!.birth_date = '02/03/1984'
    expect(await reconcile(g, census)).toMatchObject({ matched_count: 9, discrepancy_count: 1, errors_created: 1 })
    const [error, ...rest] = await reconciliationErrors(g)
    expect(rest).toEqual([])
    expect(error).toMatchObject({
      member_id: g.families[0]!.spouseId,
      discrepancy: { parameter: 'birth_date', kind: 'carrier_value_differs', carrier: '02/03/1984', platform: '1984-02-02' },
    })
  })
})

// ---------------------------------------------------------------------------------------------
// 5. The 834 audit file as a census.
// ---------------------------------------------------------------------------------------------

describe('an 834 audit file as the census', () => {
  it('when the 834 equals the platform, then no error; with one change, one error', async () => {
    const { g } = await setUp()
    const equal = await reconcile(g, { x12_834: await auditFile() })
    expect(equal).toMatchObject({ format: 'x12_834', subscriber_count: 3, member_count: 9, matched_count: 9, ...NO_CHANGE, errors: [] })
    expect(await reconciliationErrors(g)).toEqual([])

    const changed = await auditFile(3, (members) => {
      members.find((m) => m.firstName === 'JOHN' && m.lastName === 'DOE2')!.birthDate = '1984-02-03'
    })
    const raisedBy = await reconcile(g, { x12_834: changed })
    expect(raisedBy).toMatchObject({ matched_count: 9, discrepancy_count: 1, errors_created: 1 })
    const [error, ...rest] = await reconciliationErrors(g)
    expect(rest).toEqual([])
    expect(error).toMatchObject({
      member_id: g.families[1]!.spouseId,
      census_requests: { id: raisedBy.id },
      discrepancy: { parameter: 'birth_date', kind: 'carrier_value_differs', carrier: '1984-02-03', platform: '1984-02-02' },
    })

    // Its subscribers are shown like a JSON census's, SSNs masked.
    const shown = (await call(t.app, operator, 'GET', `/census_requests/${raisedBy.id}/subscribers`)).json().subscribers
    expect(shown).toHaveLength(3)
    expect(shown[0].subscriber).toMatchObject({ first_name: 'JANEA', social_security_number: masked(ssnOf(0, 0)) })
    expect(JSON.stringify(shown)).not.toContain(ssnOf(0, 0))
  })

  it('when x12_834 cannot be read or is cut short, then 422 census_invalid pointing at it, and nothing is recorded', async () => {
    const { g } = await setUp()
    const file = await auditFile()
    // Cut after the first family: read as it is, the other two families would seem missing at the carrier.
    const cutShort = file.slice(0, file.indexOf('INS*Y', file.indexOf('INS*Y') + 1))
    for (const broken of [cutShort, file.replace('*834*', '*835*'), file.replace('DMG*D8*19850615', 'DMG*D8*19851315'), `ISA*${'x'.repeat(200)}~`]) {
      const res = await postCensus(g, { x12_834: broken })
      expect(res.statusCode, res.body).toBe(422)
      expect(res.json()).toMatchObject({ code: 'census_invalid', errors: [{ pointer: '/census_request/x12_834' }] })
    }
    const list = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/census_requests`)
    expect(list.json().census_requests).toEqual([])
  })

  it('when neither or both of subscribers and x12_834 are sent, then 422 census_invalid', async () => {
    const { g } = await setUp()
    const file = await auditFile()
    for (const body of [{ as_of: '2027-01-20' }, { subscribers: carrierCensus(), x12_834: file }]) {
      const res = await postCensus(g, body)
      expect(res.statusCode, res.body).toBe(422)
      expect(res.json()).toMatchObject({ code: 'census_invalid', errors: [{ pointer: '/census_request' }] })
    }
  })
})

// ---------------------------------------------------------------------------------------------
// 6. What the census does not carry.
// ---------------------------------------------------------------------------------------------

describe('fields the census does not carry', () => {
  const strip = (census: CarrierSubscriber[]) =>
    census.map(({ employment_details: _e, emails: _m, phone_numbers: _p, tobacco_use: _t, region: _r, marital_status: _s, residential_address: _a, ...rest }) => rest)

  it('when the census has no employment details, contacts, tobacco use, region, marital status or address, then none of them is compared', async () => {
    const { g } = await setUp()
    expect(await reconcile(g, strip(carrierCensus()))).toMatchObject({ matched_count: 9, ...NO_CHANGE })
    expect(await reconciliationErrors(g)).toEqual([])
    // An empty employment_details carries nothing either.
    const empty = carrierCensus()
    jane(empty).employment_details = {}
    expect(await reconcile(g, empty)).toMatchObject(NO_CHANGE)
  })

  it('when a carrier value cannot be read, then value_invalid rather than a difference', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    jane(census).gender = 'Q'
    jane(census).dependents[0]!.birth_date = '02/30/1984'
    expect(await reconcile(g, census)).toMatchObject({ matched_count: 9, discrepancy_count: 2, errors_created: 2 })
    const errors = await reconciliationErrors(g)
    expect(summary(errors, g)).toEqual(['birth_date value_invalid spouse0', 'gender value_invalid subscriber0'])
    for (const error of errors) {
      expect(error).toMatchObject({ assignee: 'partner', message: discrepancyMessage(error.discrepancy.parameter, 'value_invalid').message })
    }
    expect(errors.find((e) => e.discrepancy.parameter === 'gender')!.discrepancy).toEqual({ parameter: 'gender', kind: 'value_invalid', carrier: 'Q', platform: 'female' })
  })

  it('when the census carries a field empty, then the carrier lacks it', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    jane(census).employment_details = { annual_earnings: null }
    expect(await reconcile(g, census)).toMatchObject({ discrepancy_count: 1, errors_created: 1 })
    const [error, ...rest] = await reconciliationErrors(g)
    expect(rest).toEqual([])
    expect(error).toMatchObject({
      member_id: g.families[0]!.subscriberId,
      assignee: 'service',
      discrepancy: { parameter: 'annual_earnings', kind: 'carrier_missing', carrier: null, platform: ANNUAL_EARNINGS },
    })
  })

  it('when an error is open on a field a later census does not carry, then that census leaves it open', async () => {
    const { g } = await setUp()
    const census = carrierCensus()
    employment(census).annual_earnings = '7000000'
    await reconcile(g, census)
    const [error] = await reconciliationErrors(g)
    // An 834 has no earnings at all, nor a JSON census without employment details: they say nothing about them.
    const silent834 = await reconcile(g, { x12_834: await auditFile() })
    expect(silent834).toMatchObject(NO_CHANGE)
    const withoutEmployment = carrierCensus()
    delete jane(withoutEmployment).employment_details
    expect(await reconcile(g, withoutEmployment)).toMatchObject(NO_CHANGE)
    expect(await getError(error!.id)).toMatchObject({ status: 'unresolved', resolution: null, census_requests: { id: expect.any(String) } })
    // A census that carries the earnings again, equal: now it is resolved.
    expect(await reconcile(g, carrierCensus())).toMatchObject({ ...NO_CHANGE, errors_resolved: 1 })
    expect(await getError(error!.id)).toMatchObject({ status: 'resolved', resolution: { resolved_by: 'reconciliation' } })
  })
})

// ---------------------------------------------------------------------------------------------
// 7. Who may post, what is shown.
// ---------------------------------------------------------------------------------------------

describe('access and what is shown', () => {
  it('when a partner posts a census, then 403; for an unknown coverage period, 404', async () => {
    const { partner, g } = await setUp()
    const forbidden = await postCensus(g, { subscribers: carrierCensus() }, partner)
    expect(forbidden.statusCode, forbidden.body).toBe(403)
    expect(forbidden.json()).toMatchObject({ code: 'forbidden' })
    const missing = await call(t.app, operator, 'POST', '/coverage_periods/01a20230-0000-7000-8000-000000000000/census_requests', { census_request: { subscribers: carrierCensus() } })
    expect(missing.statusCode, missing.body).toBe(404)
    expect(missing.json()).toMatchObject({ code: 'coverage_period_not_found' })
    const list = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/census_requests`)
    expect(list.json().census_requests).toEqual([])
  })

  it('when the census subscribers are read, then as sent with every SSN masked, each with the subscriber it matched', async () => {
    const { partner, g } = await setUp()
    const census = carrierCensus()
    // A line break inside a value: the stored copy travels to the database a subscriber per line (census.repo.ts).
    census.push({ first_name: 'PAT', last_name: 'NEW\nHIRE', birth_date: '07/04/1990', social_security_number: '200112222', dependents: [] })
    const created = await reconcile(g, census)
    for (const reader of [operator, partner]) {
      const res = await call(t.app, reader, 'GET', `/census_requests/${created.id}/subscribers`)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.headers['cache-control']).toBe('no-store')
      const shown = res.json().subscribers as { position: number; matched_subscriber_id: string | null; subscriber: CarrierSubscriber }[]
      expect(shown.map((s) => [s.position, s.matched_subscriber_id])).toEqual([...g.families.map((f, i) => [i, f.subscriberId]), [3, null]])
      expect(shown[0]!.subscriber).toEqual({
        ...census[0],
        social_security_number: masked(ssnOf(0, 0)),
        dependents: [{ ...census[0]!.dependents[0], social_security_number: masked(ssnOf(0, 1)) }, census[0]!.dependents[1]],
      })
      expect(shown[3]!.subscriber).toEqual({ ...census[3], social_security_number: '***-**-2222' })
      for (const ssn of [ssnOf(0, 0), ssnOf(0, 1), ssnOf(1, 0), '200112222', '100-01-1000']) expect(res.body).not.toContain(ssn)
    }
  })

  it('when censuses are listed by as_of, then only those produced that day', async () => {
    const { g } = await setUp()
    const first = await reconcile(g, carrierCensus(), '2027-01-20')
    const changed = carrierCensus()
    jane(changed).gender = 'M'
    const second = await reconcile(g, changed, '2027-01-21')
    const list = (asOf: string) => call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/census_requests?as_of=${asOf}`).then((r) => r.json().census_requests.map((c: CensusRequest) => c.id))
    expect(await list('2027-01-20')).toEqual([first.id])
    expect(await list('2027-01-21')).toEqual([second.id])
    expect(await getCensus(second.id)).toEqual(second)
  })
})

// ---------------------------------------------------------------------------------------------
// 8. The census request's counters.
// ---------------------------------------------------------------------------------------------

describe('the counters of a census request', () => {
  it('when censuses open, resolve and reopen errors, then each census request counts what it did', async () => {
    const { g } = await setUp()
    // Family 1 missing (3 members), a new family of 2, two values differing on subscriber 0.
    const messy = carrierCensus()
    messy.splice(1, 1)
    jane(messy).birth_date = '06/16/1985'
    jane(messy).gender = 'M'
    messy.push({
      first_name: 'PAT',
      last_name: 'NEWHIRE',
      birth_date: '07/04/1990',
      dependents: [{ first_name: 'LEE', last_name: 'NEWHIRE', birth_date: '05/05/2020', subscriber_relationship: 'child' }],
    })
    const first = await reconcile(g, messy)
    expect(first).toMatchObject({
      subscriber_count: 3,
      member_count: 8,
      matched_count: 6,
      discrepancy_count: 7,
      errors_created: 7,
      errors_reopened: 0,
      errors_resolved: 0,
    })
    expect(await getCensus(first.id)).toEqual(first)

    // Everything fixed but the gender: six resolved, the gender error still open (not counted again).
    const almost = carrierCensus()
    jane(almost).gender = 'M'
    const second = await reconcile(g, almost)
    expect(second).toMatchObject({ subscriber_count: 3, member_count: 9, matched_count: 9, discrepancy_count: 1, errors_created: 0, errors_reopened: 0, errors_resolved: 6 })

    // The first census again: the six reopen, nothing new.
    const third = await reconcile(g, messy)
    expect(third).toMatchObject({ matched_count: 6, discrepancy_count: 7, errors_created: 0, errors_reopened: 6, errors_resolved: 0 })
    const errors = await reconciliationErrors(g)
    expect(errors).toHaveLength(7)
    expect(errors.every((e) => e.status === 'unresolved' && e.census_requests?.id === third.id)).toBe(true)
    expect(errors.filter((e) => e.reopened_at !== null)).toHaveLength(6)
  })
})
