import type { Db } from '../../src/db/schema.js'
import { uuidv7 } from '../../src/lib/ids.js'

export interface GroupFixture {
  groupId: string
  locationId: string
  classificationId: string
}

/**
 * A group with a primary location and one employment classification, inserted directly so the
 * member tests do not depend on the group, location and classification endpoints.
 */
export async function insertGroupFixture(db: Db, accountId: string, label = 'acme'): Promise<GroupFixture> {
  const groupId = uuidv7()
  const locationId = uuidv7()
  const classificationId = uuidv7()
  await db
    .insertInto('groups')
    .values({ id: groupId, account_id: accountId, external_identifier: `${label}-${groupId}`, organization_name: 'Acme Widgets Inc.', insurance_market: 'small_group', created_at: new Date(), updated_at: new Date() })
    .execute()
  await db
    .insertInto('locations')
    .values({
      id: locationId,
      account_id: accountId,
      group_id: groupId,
      external_identifier: 'hq',
      type: 'physical',
      is_primary: true,
      address_line_1: '100 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      fips_county_code: '17167',
      created_at: new Date(),
      updated_at: new Date(),
    })
    .execute()
  await db
    .insertInto('employment_classifications')
    .values({
      id: classificationId,
      account_id: accountId,
      group_id: groupId,
      external_identifier: 'salaried',
      description: 'Salaried employees',
      type: 'class',
      start_date: '2020-01-01',
      created_at: new Date(),
      updated_at: new Date(),
    })
    .execute()
  return { groupId, locationId, classificationId }
}

/** A valid SSN that differs per n (area 100-899, group 01-99, serial 0001-9999). */
export function ssnFor(n: number): string {
  const area = 100 + (n % 565)
  const group = 1 + (Math.floor(n / 565) % 99)
  const serial = 1 + (n % 9999)
  return `${area}${String(group).padStart(2, '0')}${String(serial).padStart(4, '0')}`
}

export function dependentBody(n: number, overrides: Record<string, unknown> = {}) {
  return {
    external_identifier: `dep-${n}`,
    first_name: 'Sam',
    last_name: 'Doe',
    birth_date: '2015-06-01',
    gender: 'male',
    subscriber_relationship: 'child',
    social_security_number: ssnFor(n + 500_000),
    ...overrides,
  }
}

export function subscriberBody(fixture: GroupFixture, n: number, overrides: Record<string, unknown> = {}) {
  return {
    external_identifier: `emp-${n}`,
    location_id: fixture.locationId,
    first_name: 'Jane',
    last_name: `Doe${n}`,
    birth_date: '1985-03-14',
    gender: 'female',
    social_security_number: ssnFor(n),
    marital_status: 'married',
    residential_address: { address_line_1: '1 Elm St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
    emails: [{ contact: `jane${n}@example.com`, type: 'personal' }],
    phone_numbers: [{ contact: '5555550123', type: 'mobile' }],
    class: { employment_classification_id: fixture.classificationId, effective_date: '2026-01-01' },
    employment_details: { start_date: '2020-02-01', status: 'full_time', annual_earnings: 6_500_000, wage_frequency: 'biweekly', hours_per_week: 40 },
    dependents: [
      dependentBody(n * 10, { first_name: 'Sam' }),
      dependentBody(n * 10 + 1, { subscriber_relationship: 'spouse', birth_date: '1984-01-02', gender: 'male', first_name: 'Alex' }),
    ],
    ...overrides,
  }
}
