import type { Insertable } from 'kysely'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import type { Db, Executor, GroupRow, GroupsTable, ProducersOfRecordTable } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { Address } from '../common/address.js'
import { duplicateGroupIdentifier, duplicateLocationIdentifier, groupNotFound, groupValidationFailed } from './groups.errors.js'
import * as repo from './groups.repo.js'
import { duplicateLocationIdentifiers, groupCoreProblems, locationProblems, newGroupProblems } from './groups.rules.js'
import { todayUtc } from '../../lib/clock.js'
import { checkIfMatch, type IfMatch } from '../../lib/etag.js'
import type { Agency, CreateLocationInput, Group, GroupCore, GroupFilters, Location, LocationInputT, NewGroup, Producer } from './groups.schema.js'


function presentAddress(row: repo.LocationRow): Address {
  const address: Address = { address_line_1: row.address_line_1, city: row.city, state: row.state as Address['state'], zip: row.zip }
  if (row.address_line_2 !== null) address.address_line_2 = row.address_line_2
  if (row.fips_county_code !== null) address.fips_county_code = row.fips_county_code
  return address
}

export function presentLocation(row: repo.LocationRow): Location {
  return {
    id: row.id,
    group_id: row.group_id,
    external_identifier: row.external_identifier,
    type: row.type as Location['type'],
    primary: row.is_primary,
    employer_address: presentAddress(row),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

function presentProducer(row: repo.ProducerRow): Producer {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    national_producer_number: row.national_producer_number,
    state_license_number: row.state_license_number,
    email: row.email,
    phone_number: row.phone_number,
    signature_date: row.signature_date,
    commission_split: Number(row.commission_split),
    writing_producer: row.writing_producer,
    // Written by this module from a validated AgencySchema value (jsonb comes back parsed).
    agency: (row.agency as Agency | null) ?? null,
  }
}

function presentGroup(row: GroupRow, locations: repo.LocationRow[], producers: repo.ProducerRow[]): Group {
  return {
    id: row.id,
    account_id: row.account_id,
    external_identifier: row.external_identifier,
    insurance_market: row.insurance_market,
    phase: row.phase,
    employer: {
      organization_name: row.organization_name,
      fein: row.fein,
      established_date: row.established_date,
      employer_type: row.employer_type,
      census:
        row.census_employees === null || row.census_eligible_employees === null
          ? null
          : { employees: row.census_employees, full_time_equivalent_employees: row.census_full_time_equivalent, eligible_employees: row.census_eligible_employees },
    },
    producer_agency: (row.producer_agency as Agency | null) ?? null,
    locations: locations.map(presentLocation),
    producers_of_record: producers.map(presentProducer),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

/** Groups with their locations and producers, in three queries whatever the number of groups. */
export async function presentGroups(db: Executor, rows: readonly GroupRow[]): Promise<Group[]> {
  const ids = rows.map((row) => row.id)
  const [locations, producers] = await Promise.all([repo.locationsOf(db, ids), repo.producersOf(db, ids)])
  return rows.map((row) =>
    presentGroup(
      row,
      locations.filter((l) => l.group_id === row.id),
      producers.filter((p) => p.group_id === row.id),
    ),
  )
}

function coreColumns(input: GroupCore) {
  return {
    external_identifier: input.external_identifier,
    organization_name: input.employer.organization_name,
    insurance_market: input.insurance_market,
    fein: input.employer.fein,
    established_date: input.employer.established_date ?? null,
    employer_type: input.employer.employer_type,
    census_employees: input.employer.census.employees,
    census_full_time_equivalent: input.employer.census.full_time_equivalent_employees,
    census_eligible_employees: input.employer.census.eligible_employees,
    producer_agency: input.producer_agency ? JSON.stringify(input.producer_agency) : null,
  } satisfies Partial<Insertable<GroupsTable>>
}

function producerRows(accountId: string, groupId: string, input: GroupCore): Insertable<ProducersOfRecordTable>[] {
  return (input.producers_of_record ?? []).map((p, position) => ({
    id: uuidv7(),
    account_id: accountId,
    group_id: groupId,
    position,
    first_name: p.first_name ?? null,
    last_name: p.last_name,
    national_producer_number: p.national_producer_number,
    state_license_number: p.state_license_number ?? null,
    email: p.email,
    phone_number: p.phone_number ?? null,
    signature_date: p.signature_date,
    commission_split: p.commission_split.toFixed(2),
    writing_producer: p.writing_producer ?? false,
    agency: p.agency ? JSON.stringify(p.agency) : null,
  }))
}

function locationRow(accountId: string, groupId: string, input: LocationInputT, primary: boolean) {
  const a = input.employer_address
  return {
    id: uuidv7(),
    account_id: accountId,
    group_id: groupId,
    external_identifier: input.external_identifier,
    type: input.type,
    is_primary: primary,
    address_line_1: a.address_line_1,
    address_line_2: a.address_line_2 ?? null,
    city: a.city,
    state: a.state,
    zip: a.zip,
    fips_county_code: a.fips_county_code ?? null,
  }
}

/**
 * Checks a new group (POST /groups, POST /group_installments): 422 listing every rule broken,
 * with `extraProblems` (the installment's carrier) among them; then 409 for repeated location ids.
 */
export function assertValidNewGroup(input: NewGroup, base: string, extraProblems: FieldProblem[] = []): void {
  const problems = [...newGroupProblems(input, base, todayUtc()), ...extraProblems]
  if (problems.length > 0) throw groupValidationFailed(problems)
  const duplicates = duplicateLocationIdentifiers(input, base)
  if (duplicates.length > 0) throw duplicateLocationIdentifier(duplicates)
}

/** Inserts a checked new group with its locations and producers, and audits it, in `tx`. */
export async function insertNewGroup(tx: Executor, actor: Actor, input: NewGroup, base: string): Promise<GroupRow> {
  const accountId = actor.accountId
  const groupId = uuidv7()
  let row: GroupRow
  try {
    row = await repo.insertGroup(tx, { id: groupId, account_id: accountId, ...coreColumns(input) })
  } catch (error) {
    if (isUniqueViolation(error, repo.GROUP_IDENTIFIER_CONSTRAINT)) throw duplicateGroupIdentifier(`${base}/external_identifier`)
    throw error
  }
  const locations = await repo.insertLocations(tx, [
    locationRow(accountId, groupId, input.primary_location, true),
    ...(input.secondary_locations ?? []).map((location) => locationRow(accountId, groupId, location, false)),
  ])
  await repo.replaceProducers(tx, groupId, producerRows(accountId, groupId, input))
  await recordAuditEvent(tx, actor, { accountId, action: 'group.created', resourceType: 'group', resourceId: groupId })
  for (const location of locations) {
    await recordAuditEvent(tx, actor, { accountId, action: 'location.created', resourceType: 'location', resourceId: location.id })
  }
  return row
}

export function createGroupsService({ db }: { db: Db }) {
  return {
    async createGroup(actor: Actor, input: NewGroup): Promise<Group> {
      assertValidNewGroup(input, '/group')
      return db.transaction().execute(async (tx) => {
        const row = await insertNewGroup(tx, actor, input, '/group')
        return (await presentGroups(tx, [row]))[0]!
      })
    },

    async getGroup(actor: Actor, id: string): Promise<Group> {
      const row = await repo.findGroup(db, accountScopeOf(actor), id)
      if (!row) throw groupNotFound()
      return (await presentGroups(db, [row]))[0]!
    },

    async listGroups(actor: Actor, filters: GroupFilters, pageReq: PageRequest) {
      const { items, total } = await repo.listGroups(db, accountScopeOf(actor), { ...filters, search: filters.search?.trim() || undefined }, pageReq)
      return { items: await presentGroups(db, items), total }
    },

    /**
     * Replaces the employer data, market, external_identifier and producers; locations stay. With
     * `ifMatch`, only while the group is still the version the client read (checked under the lock).
     */
    async updateGroup(actor: Actor, id: string, input: GroupCore, ifMatch?: IfMatch): Promise<Group> {
      const problems = groupCoreProblems(input, '/group', todayUtc())
      return db.transaction().execute(async (tx) => {
        const current = await repo.findGroupForUpdate(tx, accountScopeOf(actor), id)
        if (!current) throw groupNotFound()
        if (problems.length > 0) throw groupValidationFailed(problems)
        if (ifMatch !== undefined) checkIfMatch(ifMatch, (await presentGroups(tx, [current]))[0])
        let row: GroupRow
        try {
          row = await repo.updateGroup(tx, id, { ...coreColumns(input), updated_at: new Date() })
        } catch (error) {
          if (isUniqueViolation(error, repo.GROUP_IDENTIFIER_CONSTRAINT)) throw duplicateGroupIdentifier('/group/external_identifier')
          throw error
        }
        await repo.replaceProducers(tx, id, producerRows(row.account_id, id, input))
        await recordAuditEvent(tx, actor, { accountId: row.account_id, action: 'group.updated', resourceType: 'group', resourceId: id })
        return (await presentGroups(tx, [row]))[0]!
      })
    },

    /** Adds a location; with `primary` it becomes the primary one and the previous stays as secondary. */
    async addLocation(actor: Actor, groupId: string, input: CreateLocationInput): Promise<Location> {
      const { primary = false, ...location } = input
      const problems = locationProblems(location, '/location', primary)
      return db.transaction().execute(async (tx) => {
        const group = await repo.findGroupForUpdate(tx, accountScopeOf(actor), groupId)
        if (!group) throw groupNotFound()
        if (problems.length > 0) throw groupValidationFailed(problems)
        const now = new Date()
        if (primary) await repo.unflagPrimaryLocation(tx, groupId, now)
        let inserted: repo.LocationRow[]
        try {
          inserted = await repo.insertLocations(tx, [{ ...locationRow(group.account_id, groupId, location, primary), created_at: now, updated_at: now }])
        } catch (error) {
          if (isUniqueViolation(error, repo.LOCATION_IDENTIFIER_CONSTRAINT)) {
            throw duplicateLocationIdentifier([{ pointer: '/location/external_identifier', detail: 'is already used by another location of the group', code: 'duplicate' }])
          }
          throw error
        }
        const row = inserted[0]!
        await recordAuditEvent(tx, actor, { accountId: group.account_id, action: 'location.created', resourceType: 'location', resourceId: row.id })
        return presentLocation(row)
      })
    },
  }
}

export type GroupsService = ReturnType<typeof createGroupsService>
