import { sql } from 'kysely'
import type { Executor, SandboxDeliveryOutcome } from '../../db/schema.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { RosterMember } from '../edi-834/edi-834.roster.js'

/**
 * The sandbox carrier's own tables (migrations/0012_sandbox_rosters.sql): its roster per coverage
 * period, the deliveries it took, its acknowledgement numbering and its deliberate differences.
 * SSNs are kept sealed with the service's SsnProtection, as the service keeps its own.
 */

// ---- What it reads of the service's tables: the period it serves and its work order ----

/** The coverage period as a sandbox carrier sees it (it is the carrier named on it). */
export async function findServedPeriod(db: Executor, coveragePeriodId: string) {
  return db
    .selectFrom('coverage_periods')
    .select(['id', 'account_id', 'group_id', 'carrier_name', 'carrier_group_number', 'coverage_start_date', 'coverage_end_date'])
    .where('id', '=', coveragePeriodId)
    .executeTakeFirst()
}

/** The work order installing the period, if any. */
export async function findWorkOrderOfPeriod(db: Executor, coveragePeriodId: string) {
  return db.selectFrom('work_orders').select(['id', 'status']).where('coverage_period_id', '=', coveragePeriodId).executeTakeFirst()
}

// ---- Its own tables ----

/** Rows written per statement: one JSON parameter each, so a 150,000-member full file is 150 round trips. */
const WRITE_BATCH = 1000

/**
 * Takes the coverage period's roster lock for the transaction (creating its row the first time):
 * two sandbox jobs of one period apply deliveries one after the other, never interleaved.
 */
export async function lockRoster(tx: Executor, coveragePeriodId: string): Promise<{ differencesChosen: boolean }> {
  await tx.insertInto('sandbox_rosters').values({ coverage_period_id: coveragePeriodId }).onConflict((oc) => oc.doNothing()).execute()
  const row = await tx.selectFrom('sandbox_rosters').select('differences_chosen_at').where('coverage_period_id', '=', coveragePeriodId).forUpdate().executeTakeFirstOrThrow()
  return { differencesChosen: row.differences_chosen_at !== null }
}

export async function markDifferencesChosen(tx: Executor, coveragePeriodId: string, at: Date): Promise<void> {
  await tx.updateTable('sandbox_rosters').set({ differences_chosen_at: at, updated_at: at }).where('coverage_period_id', '=', coveragePeriodId).execute()
}

export interface ReceivedDelivery {
  id: string
  kind: 'full' | 'change'
  channel: 'edi' | 'api'
}

/** The period's sent deliveries the sandbox has not taken yet, in the order they were sent. */
export async function deliveriesNotTaken(tx: Executor, coveragePeriodId: string): Promise<ReceivedDelivery[]> {
  return tx
    .selectFrom('file_deliveries as d')
    .select(['d.id', 'd.kind', 'd.channel'])
    .where('d.coverage_period_id', '=', coveragePeriodId)
    .where('d.status', '=', 'sent')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('sandbox_applied_deliveries as a').select('a.file_delivery_id').whereRef('a.file_delivery_id', '=', 'd.id'))))
    .orderBy('d.sent_at')
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute()
}

export interface TakenDelivery {
  outcome: SandboxDeliveryOutcome
  detail: string | null
  ta1: string | null
  ack999: string | null
}

export async function recordTaken(tx: Executor, coveragePeriodId: string, deliveryId: string, taken: TakenDelivery): Promise<void> {
  await tx
    .insertInto('sandbox_applied_deliveries')
    .values({
      file_delivery_id: deliveryId,
      coverage_period_id: coveragePeriodId,
      outcome: taken.outcome,
      detail: taken.detail === null ? null : taken.detail.slice(0, 1000),
      ta1: taken.ta1,
      ack_999: taken.ack999,
      // Nothing to hand over: answered already.
      answered_at: taken.ta1 === null && taken.ack999 === null ? new Date() : null,
    })
    .execute()
}

/** Acknowledgements built but not handed to the service yet (a job that stopped in between), oldest first. */
export async function unansweredAcknowledgements(db: Executor, coveragePeriodId: string) {
  return db
    .selectFrom('sandbox_applied_deliveries')
    .select(['file_delivery_id', 'ta1', 'ack_999'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .where('answered_at', 'is', null)
    .orderBy('seq')
    .execute()
}

export async function markAnswered(db: Executor, deliveryId: string, at: Date): Promise<void> {
  await db.updateTable('sandbox_applied_deliveries').set({ answered_at: at }).where('file_delivery_id', '=', deliveryId).execute()
}

/** The next ISA13 of the sandbox carrier's own interchanges: per carrier, wrapping after 999,999,999. */
export async function nextSandboxControlNumber(tx: Executor, carrierName: string): Promise<number> {
  const row = await sql<{ last_value: number }>`
    INSERT INTO sandbox_control_numbers (carrier_name, last_value) VALUES (${carrierName}, 1)
    ON CONFLICT (carrier_name) DO UPDATE SET last_value = CASE WHEN sandbox_control_numbers.last_value >= 999999999 THEN 1
                                                               ELSE sandbox_control_numbers.last_value + 1 END
    RETURNING last_value`.execute(tx)
  return Number(row.rows[0]!.last_value)
}

type StoredRow = { record: unknown; ssn_ciphertext: string | null; ssn_key_id: string | null }

function memberOf(ssn: SsnProtection, row: StoredRow): RosterMember {
  // jsonb comes back parsed from pg; the record was written from a RosterMember.
  const record = row.record as RosterMember
  return { ...record, ssn: row.ssn_ciphertext !== null && row.ssn_key_id !== null ? ssn.open(row.ssn_ciphertext, row.ssn_key_id) : null }
}

/**
 * Every member the sandbox holds for the period, in no particular order: the census sorts its
 * families itself, and sorting 150,000 text keys in the database cost seconds on PGlite.
 */
export async function loadRosterMembers(db: Executor, ssn: SsnProtection, coveragePeriodId: string): Promise<RosterMember[]> {
  const rows = await db
    .selectFrom('sandbox_roster_members')
    .select(['record', 'ssn_ciphertext', 'ssn_key_id'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .execute()
  return rows.map((row) => memberOf(ssn, row))
}

/** The members of these ids the sandbox holds (those it never had are left out). */
export async function loadRosterMembersById(db: Executor, ssn: SsnProtection, coveragePeriodId: string, memberIds: readonly string[]): Promise<RosterMember[]> {
  const out: RosterMember[] = []
  for (let i = 0; i < memberIds.length; i += WRITE_BATCH) {
    const rows = await db
      .selectFrom('sandbox_roster_members')
      .select(['record', 'ssn_ciphertext', 'ssn_key_id'])
      .where('coverage_period_id', '=', coveragePeriodId)
      .where('member_id', 'in', memberIds.slice(i, i + WRITE_BATCH))
      .execute()
    for (const row of rows) out.push(memberOf(ssn, row))
  }
  return out
}

/**
 * Writes these members back (replacing what was held for them). With `replaceAll`, the period's
 * roster becomes exactly these members (a full file).
 */
export async function saveRosterMembers(
  tx: Executor,
  ssn: SsnProtection,
  coveragePeriodId: string,
  members: readonly RosterMember[],
  options: { replaceAll: boolean },
): Promise<void> {
  if (options.replaceAll) await tx.deleteFrom('sandbox_roster_members').where('coverage_period_id', '=', coveragePeriodId).execute()
  for (let i = 0; i < members.length; i += WRITE_BATCH) {
    const batch = members.slice(i, i + WRITE_BATCH).map(({ ssn: plain, ...record }) => {
      const sealed = plain ? ssn.seal(plain) : null
      return { member_id: record.memberId, record: { ...record, ssn: null }, ssn_ciphertext: sealed?.ciphertext ?? null, ssn_key_id: sealed?.keyId ?? null }
    })
    // After the delete of a full file nothing can conflict: the plain insert is the cheaper one.
    const onConflict = options.replaceAll
      ? sql``
      : sql`ON CONFLICT (coverage_period_id, member_id) DO UPDATE
              SET record = excluded.record, ssn_ciphertext = excluded.ssn_ciphertext, ssn_key_id = excluded.ssn_key_id`
    await sql`
      INSERT INTO sandbox_roster_members (coverage_period_id, member_id, record, ssn_ciphertext, ssn_key_id)
      SELECT ${coveragePeriodId}::uuid, r->>'member_id', r->'record', r->>'ssn_ciphertext', r->>'ssn_key_id'
        FROM jsonb_array_elements(${JSON.stringify(batch)}::jsonb) r
      ${onConflict}`.execute(tx)
  }
}

/** The deliberate differences the sandbox keeps for the period, by member id. */
export async function loadDifferences(db: Executor, coveragePeriodId: string): Promise<Map<string, Set<string>>> {
  const rows = await db.selectFrom('sandbox_carrier_differences').select(['member_id', 'parameter']).where('coverage_period_id', '=', coveragePeriodId).execute()
  const differences = new Map<string, Set<string>>()
  for (const row of rows) differences.set(row.member_id, (differences.get(row.member_id) ?? new Set()).add(row.parameter))
  return differences
}

export async function addDifferences(tx: Executor, coveragePeriodId: string, chosen: readonly { member_id: string; parameter: string }[]): Promise<void> {
  if (chosen.length === 0) return
  await tx
    .insertInto('sandbox_carrier_differences')
    .values(chosen.map((c) => ({ coverage_period_id: coveragePeriodId, ...c })))
    .onConflict((oc) => oc.doNothing())
    .execute()
}

/**
 * A file that touched these members replaced what the sandbox held for them, its differences
 * included; a full file ('all') replaced everything.
 */
export async function dropDifferences(tx: Executor, coveragePeriodId: string, memberIds: readonly string[] | 'all'): Promise<void> {
  if (memberIds === 'all') {
    await tx.deleteFrom('sandbox_carrier_differences').where('coverage_period_id', '=', coveragePeriodId).execute()
    return
  }
  for (let i = 0; i < memberIds.length; i += WRITE_BATCH) {
    await tx
      .deleteFrom('sandbox_carrier_differences')
      .where('coverage_period_id', '=', coveragePeriodId)
      .where('member_id', 'in', memberIds.slice(i, i + WRITE_BATCH))
      .execute()
  }
}
