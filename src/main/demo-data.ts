/**
 * The made-up employer group `npm run demo` installs: three families, a medical and a dental plan,
 * a plan year starting next January. Every name, address and number here is fictitious; the SSNs
 * are valid in form only (the service refuses never-issued ones) and are never printed.
 */

/** Every SSN the demo sends, so its test can check none of them shows up in the output. */
export const DEMO_SSNS = ['212341001', '212341002', '212341003', '212341004', '212341005'] as const

export const DEMO_USER_EMAIL = 'jane.doe@example.com'

/** The plan year: next calendar year, signed off today, so the demo works whatever the date. */
export function planYear(today: Date = new Date()) {
  const year = today.getUTCFullYear() + 1
  return {
    start: `${year}-01-01`,
    end: `${year}-12-31`,
    signOff: today.toISOString().slice(0, 10),
  }
}

export function installmentBody() {
  return {
    group: {
      external_identifier: 'acme-widgets',
      insurance_market: 'small_group',
      employer: {
        organization_name: 'Acme Widgets Inc.',
        fein: '987654321',
        established_date: '2010-04-01',
        employer_type: 'corporation',
        census: { employees: 12, full_time_equivalent_employees: 11, eligible_employees: 10 },
      },
      group_setup: { carrier_name: 'sandbox_edi' },
      primary_location: {
        external_identifier: 'hq',
        type: 'physical',
        employer_address: { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
      },
      producers_of_record: [
        {
          first_name: 'Pat',
          last_name: 'Broker',
          national_producer_number: '1234567',
          email: 'pat.broker@example.com',
          signature_date: planYear().signOff,
          commission_split: 100,
          writing_producer: true,
          agency: null,
        },
      ],
    },
  }
}

export function coveragePeriodBody() {
  const year = planYear()
  return {
    coverage_period: {
      external_identifier: `plan-year-${year.start.slice(0, 4)}`,
      coverage_start_date: year.start,
      coverage_end_date: year.end,
      employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: year.signOff },
    },
  }
}

export const PLANS = [
  {
    plan: {
      external_identifier: 'gold-ppo',
      description: 'Gold PPO 500',
      product_line: 'medical',
      product_type: 'preferred_provider_organization',
      policy_premium_method: 'list_bill',
    },
  },
  {
    plan: { external_identifier: 'dental-base', description: 'Dental Base', product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' },
  },
] as const

const springfield = (addressLine1: string, zip: string) => ({ address_line_1: addressLine1, city: 'Springfield', state: 'IL', zip })
const employment = { start_date: '2019-03-01', status: 'full_time' }

/** Three families; the sandbox carrier's census will differ on the first's address, the second's birth date and the third's child. */
export function subscribersBody(locationId: string) {
  return {
    subscribers: [
      {
        external_identifier: 'emp-0001',
        location_id: locationId,
        first_name: 'Jane',
        last_name: 'Doe',
        birth_date: '1985-06-15',
        gender: 'female',
        social_security_number: DEMO_SSNS[0],
        marital_status: 'married',
        residential_address: springfield('12 Elm St', '62704'),
        emails: [{ contact: 'jane.doe@example.com', type: 'personal' }],
        employment_details: employment,
        dependents: [
          { external_identifier: 'emp-0001-spouse', first_name: 'John', last_name: 'Doe', birth_date: '1984-02-02', gender: 'male', subscriber_relationship: 'spouse', social_security_number: DEMO_SSNS[1] },
          { external_identifier: 'emp-0001-child', first_name: 'Sam', last_name: 'Doe', birth_date: '2015-09-09', gender: 'male', subscriber_relationship: 'child' },
        ],
      },
      {
        external_identifier: 'emp-0002',
        location_id: locationId,
        first_name: 'Carlos',
        last_name: 'Rivera',
        birth_date: '1979-03-22',
        gender: 'male',
        social_security_number: DEMO_SSNS[2],
        marital_status: 'married',
        residential_address: springfield('48 Oak Ave', '62702'),
        employment_details: employment,
        dependents: [
          { external_identifier: 'emp-0002-spouse', first_name: 'Maria', last_name: 'Rivera', birth_date: '1981-07-30', gender: 'female', subscriber_relationship: 'spouse', social_security_number: DEMO_SSNS[3] },
        ],
      },
      {
        external_identifier: 'emp-0003',
        location_id: locationId,
        first_name: 'Aisha',
        last_name: 'Khan',
        birth_date: '1990-11-05',
        gender: 'female',
        social_security_number: DEMO_SSNS[4],
        marital_status: 'single',
        residential_address: springfield('7 Lake Rd', '62703'),
        employment_details: employment,
        dependents: [{ external_identifier: 'emp-0003-child', first_name: 'Omar', last_name: 'Khan', birth_date: '2018-01-20', gender: 'male', subscriber_relationship: 'child' }],
      },
    ],
  }
}

/** Initial enrollment of the whole family in the medical plan, and of the subscriber alone in dental. */
export function qualifyingLifeEventBody(
  coveragePeriodId: string,
  plans: { medical: string; dental: string },
  subscriber: { id: string; external_identifier: string; dependents: readonly { id: string }[] },
) {
  const start = planYear().start
  const coverage = (memberId: string) => ({ member_id: memberId, start_date: start, status: 'employer_sponsored' })
  return {
    qualifying_life_event: {
      external_identifier: `${subscriber.external_identifier}-initial`,
      coverage_period_id: coveragePeriodId,
      event: 'initial_enrollment',
      date: start,
      eligibility_start_date: start,
      plan_elections: {
        medical: { type: 'election', plan_id: plans.medical, coverages: [subscriber.id, ...subscriber.dependents.map((d) => d.id)].map(coverage) },
        dental: { type: 'election', plan_id: plans.dental, coverages: [coverage(subscriber.id)] },
      },
    },
  }
}
