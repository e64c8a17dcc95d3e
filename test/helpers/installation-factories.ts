import type { Insertable, Selectable } from 'kysely'
import type { Db, GroupInstallmentsTable, GroupRow, GroupsTable, LocationsTable } from '../../src/db/schema.js'
import { uuidv7 } from '../../src/lib/ids.js'

/**
 * Installation data written straight into the tables, for tests that need a group (step 1)
 * without going through POST /group_installments. Every row belongs to `accountId`.
 */

export type GroupInstallmentRow = Selectable<GroupInstallmentsTable>
export type LocationRow = Selectable<LocationsTable>

let sequence = 0
const nextSuffix = () => `${Date.now().toString(36)}-${(sequence++).toString(36)}`

/** A group with employer data; external_identifier is unique unless given. */
export async function insertGroup(
  db: Db,
  accountId: string,
  overrides: Partial<Omit<Insertable<GroupsTable>, 'id' | 'account_id'>> = {},
): Promise<GroupRow> {
  return db
    .insertInto('groups')
    .values({
      id: uuidv7(),
      account_id: accountId,
      external_identifier: `group-${nextSuffix()}`,
      organization_name: 'Acme Widgets Inc.',
      insurance_market: 'small_group',
      fein: '123456789',
      established_date: '2001-04-01',
      employer_type: 'corporation',
      census_employees: 25,
      census_full_time_equivalent: 22,
      census_eligible_employees: 20,
      ...overrides,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The group_installments row of a group (step 1): no coverage period linked yet. */
export async function insertGroupInstallment(
  db: Db,
  group: Pick<GroupRow, 'id' | 'account_id'>,
  { carrierName = 'sandbox_edi' }: { carrierName?: string } = {},
): Promise<GroupInstallmentRow> {
  return db
    .insertInto('group_installments')
    .values({ id: uuidv7(), account_id: group.account_id, group_id: group.id, carrier_name: carrierName, coverage_period_id: null })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The primary (physical) location of a group, in Springfield, Illinois. */
export async function insertPrimaryLocation(
  db: Db,
  group: Pick<GroupRow, 'id' | 'account_id'>,
  overrides: Partial<Omit<Insertable<LocationsTable>, 'id' | 'account_id' | 'group_id' | 'is_primary'>> = {},
): Promise<LocationRow> {
  return db
    .insertInto('locations')
    .values({
      id: uuidv7(),
      account_id: group.account_id,
      group_id: group.id,
      external_identifier: `location-${nextSuffix()}`,
      type: 'physical',
      is_primary: true,
      address_line_1: '100 Main Street',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      fips_county_code: '17167',
      ...overrides,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export interface InstalledGroup {
  group: GroupRow
  location: LocationRow
  installment: GroupInstallmentRow | null
}

/** A group with its primary location, and with an installment unless `installment: false`. */
export async function insertGroupWithLocation(
  db: Db,
  accountId: string,
  { installment = true, carrierName }: { installment?: boolean; carrierName?: string } = {},
): Promise<InstalledGroup> {
  const group = await insertGroup(db, accountId)
  const location = await insertPrimaryLocation(db, group)
  const installmentRow = installment ? await insertGroupInstallment(db, group, carrierName ? { carrierName } : {}) : null
  return { group, location, installment: installmentRow }
}
