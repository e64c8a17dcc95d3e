import type { Selectable } from 'kysely'
import type { CoveragePeriodsTable, Db, GroupRow, MembersTable, PlansTable } from '../../src/db/schema.js'
import { uuidv7 } from '../../src/lib/ids.js'
import { insertGroupWithLocation, type InstalledGroup } from './installation-factories.js'

/**
 * Steps 2, 3, 5 and 6 (and PCP selections) written straight into the tables, so the complete
 * setup tests depend on none of those endpoints. Every row belongs to the group's account.
 */

export type CoveragePeriodRow = Selectable<CoveragePeriodsTable>
export type PlanRow = Selectable<PlansTable>
export type MemberRow = Selectable<MembersTable>

let sequence = 0
const next = () => (sequence++).toString(36)

type Owner = Pick<GroupRow, 'id' | 'account_id'>

/** A coverage period of the group; linked to the group's installment unless `link: false`. */
export async function insertCoveragePeriod(db: Db, group: Owner, { carrierName = 'sandbox_edi', link = true } = {}): Promise<CoveragePeriodRow> {
  const row = await db
    .insertInto('coverage_periods')
    .values({
      id: uuidv7(),
      account_id: group.account_id,
      group_id: group.id,
      external_identifier: `cp-${next()}`,
      carrier_name: carrierName,
      coverage_start_date: '2027-01-01',
      coverage_end_date: '2027-12-31',
      sign_off_name: 'Pat Smith',
      sign_off_title: 'CFO',
      sign_off_date: '2026-10-15',
      distribution_format: 'edi',
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  if (link) {
    await db.updateTable('group_installments').set({ coverage_period_id: row.id }).where('group_id', '=', group.id).where('coverage_period_id', 'is', null).execute()
  }
  return row
}

export async function insertPlan(
  db: Db,
  coveragePeriod: Pick<CoveragePeriodRow, 'id' | 'account_id'>,
  { productLine = 'medical', productType = 'preferred_provider_organization' as string | null } = {},
): Promise<PlanRow> {
  return db
    .insertInto('plans')
    .values({
      id: uuidv7(),
      account_id: coveragePeriod.account_id,
      coverage_period_id: coveragePeriod.id,
      external_identifier: `plan-${next()}`,
      description: `${productLine} ${productType ?? ''}`.trim(),
      product_line: productLine,
      product_type: productType,
      premium_level: productLine === 'dental' || productLine === 'vision' ? 'base' : null,
      voluntary: false,
      policy_premium_method: 'list_bill',
      riders: '[]',
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** A subscriber of the group, or (with `subscriberId`) one of its dependents. */
export async function insertMember(db: Db, group: Owner, { subscriberId = null as string | null, firstName = 'Jane' } = {}): Promise<MemberRow> {
  return db
    .insertInto('members')
    .values({
      id: uuidv7(),
      account_id: group.account_id,
      group_id: group.id,
      subscriber_id: subscriberId,
      kind: subscriberId ? 'dependent' : 'subscriber',
      external_identifier: `member-${next()}`,
      first_name: firstName,
      last_name: 'Doe',
      birth_date: subscriberId ? '2015-06-01' : '1985-03-14',
      gender: 'female',
      subscriber_relationship: subscriberId ? 'child' : null,
      emails: '[]',
      phone_numbers: '[]',
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export interface ElectionSpec {
  /** plan_elections key; unique per event (medical, dental, vision...). */
  key: string
  /** The plan elected; omitted for a waiver. */
  plan?: Pick<PlanRow, 'id'>
  /** Members covered by the election. */
  members?: readonly Pick<MemberRow, 'id'>[]
}

/** A qualifying life event of the subscriber on the coverage period, with its elections and coverages. */
export async function insertLifeEvent(
  db: Db,
  subscriber: Pick<MemberRow, 'id' | 'account_id'>,
  coveragePeriod: Pick<CoveragePeriodRow, 'id'>,
  elections: readonly ElectionSpec[] = [],
): Promise<string> {
  const eventId = uuidv7()
  const accountId = subscriber.account_id
  await db
    .insertInto('qualifying_life_events')
    .values({ id: eventId, account_id: accountId, subscriber_id: subscriber.id, coverage_period_id: coveragePeriod.id, event: 'initial_enrollment', date: '2027-01-01', eligibility_start_date: '2027-01-01' })
    .execute()
  for (const election of elections) {
    const electionId = uuidv7()
    await db
      .insertInto('plan_elections')
      .values({
        id: electionId,
        account_id: accountId,
        qualifying_life_event_id: eventId,
        election_key: election.key,
        type: election.plan ? 'election' : 'waiver',
        plan_id: election.plan?.id ?? null,
        waiver_signature_date: election.plan ? null : '2026-11-15',
        waiver_reason: election.plan ? null : 'covered_elsewhere',
      })
      .execute()
    for (const member of election.plan ? (election.members ?? []) : []) {
      await db
        .insertInto('coverages')
        .values({ id: uuidv7(), account_id: accountId, plan_election_id: electionId, plan_id: election.plan!.id, member_id: member.id, start_date: '2027-01-01', status: 'employer_sponsored' })
        .execute()
    }
  }
  return eventId
}

export async function insertProviderSelection(db: Db, member: Pick<MemberRow, 'id' | 'account_id'>, plan: Pick<PlanRow, 'id'>): Promise<void> {
  await db
    .insertInto('provider_selections')
    .values({ id: uuidv7(), account_id: member.account_id, member_id: member.id, plan_id: plan.id, npi: '1234567893', last_name: 'Welby', effective_date: '2027-01-01' })
    .execute()
}

export async function insertProducer(db: Db, group: Owner, commissionSplit: number, position = 0): Promise<void> {
  await db
    .insertInto('producers_of_record')
    .values({
      id: uuidv7(),
      account_id: group.account_id,
      group_id: group.id,
      position,
      last_name: 'Broker',
      national_producer_number: '1234567',
      email: 'pat.broker@example.com',
      signature_date: '2026-10-15',
      commission_split: commissionSplit,
      writing_producer: position === 0,
    })
    .execute()
}

export interface ReadySetup extends InstalledGroup {
  coveragePeriod: CoveragePeriodRow
  plan: PlanRow
  subscriber: MemberRow
}

/**
 * Everything complete setup needs: a group with its installment, a linked coverage period of
 * `carrierName`, one PPO medical plan, one producer with 100%, and a subscriber with an
 * initial enrollment electing the plan.
 */
export async function insertReadySetup(db: Db, accountId: string, { carrierName = 'sandbox_edi' } = {}): Promise<ReadySetup> {
  const installed = await insertGroupWithLocation(db, accountId, { carrierName })
  const coveragePeriod = await insertCoveragePeriod(db, installed.group, { carrierName })
  const plan = await insertPlan(db, coveragePeriod)
  await insertProducer(db, installed.group, 100)
  const subscriber = await insertMember(db, installed.group)
  await insertLifeEvent(db, subscriber, coveragePeriod, [{ key: 'medical', plan, members: [subscriber] }])
  return { ...installed, coveragePeriod, plan, subscriber }
}
