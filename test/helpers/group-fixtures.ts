/** Valid bodies for groups and installments; tests change one field to break one rule. */

let counter = 0
export const uniqueId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

export function producer(overrides: Record<string, unknown> = {}) {
  return {
    first_name: 'Pat',
    last_name: 'Broker',
    national_producer_number: '1234567',
    state_license_number: 'IL-778899',
    email: 'pat.broker@example.com',
    phone_number: '2175550100',
    signature_date: '2026-01-15',
    commission_split: 100,
    writing_producer: true,
    agency: { name: 'Prairie Benefits LLC', fein: '987654321', national_producer_number: '7654321' },
    ...overrides,
  }
}

export function groupBody(overrides: Record<string, unknown> = {}) {
  return {
    external_identifier: uniqueId('group'),
    insurance_market: 'small_group',
    employer: {
      organization_name: 'Acme Widgets Inc.',
      fein: '123456789',
      established_date: '2010-04-01',
      employer_type: 'corporation',
      census: { employees: 40, full_time_equivalent_employees: 35, eligible_employees: 32 },
    },
    producers_of_record: [producer()],
    primary_location: {
      external_identifier: 'hq',
      type: 'physical',
      employer_address: { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
    },
    ...overrides,
  }
}

export function installmentBody(overrides: Record<string, unknown> = {}) {
  return { group: { ...groupBody(), group_setup: { carrier_name: 'sandbox_edi' }, ...overrides } }
}
