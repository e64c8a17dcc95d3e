import { sql } from 'kysely'
import { executeNamed } from '../../db/prepared.js'
import { arrayLiteral } from '../../db/array-literal.js'
import type { Executor } from '../../db/schema.js'
import { RULES, type MatchRule } from './match.js'

/**
 * Pairing a census's subscribers with the platform's in the database, so neither side's list is
 * held in this process: each side's keys under the four rules (match.ts's ruleKeys) go into
 * temporary tables of the census's transaction, and each rule is one statement over everyone,
 * strongest first, exactly as matchMembers pairs them in memory:
 *  - a carrier member id held twice on one side is no identity and is not used;
 *  - under each rule, among members not paired yet, the k-th census subscriber holding a key (in
 *    census order) takes the k-th platform subscriber holding it (in id order), which is what
 *    matchGroup's "earliest free candidate" does.
 * The tables go away with the transaction (ON COMMIT DROP).
 */

export type RuleKeys = readonly (string | null)[]

export async function createMatchingTables(tx: Executor): Promise<void> {
  await sql`CREATE TEMP TABLE census_platform_keys (ord integer PRIMARY KEY, member_id uuid NOT NULL, k0 text, k1 text, k2 text, k3 text) ON COMMIT DROP`.execute(tx)
  await sql`CREATE TEMP TABLE census_carrier_keys (position integer PRIMARY KEY, k0 text, k1 text, k2 text, k3 text) ON COMMIT DROP`.execute(tx)
  await sql`CREATE TEMP TABLE census_subscriber_pairs (position integer PRIMARY KEY, ord integer NOT NULL UNIQUE, rule smallint NOT NULL) ON COMMIT DROP`.execute(tx)
}

/** Each rule's key as one array: the rows travel as five arrays, so a batch is one short statement. */
const keyColumns = (rows: readonly { keys: RuleKeys }[]) => [0, 1, 2, 3].map((rule) => arrayLiteral(rows.map((row) => row.keys[rule] ?? null)))

export async function insertCarrierKeys(tx: Executor, rows: readonly { position: number; keys: RuleKeys }[]): Promise<void> {
  if (rows.length === 0) return
  const [k0, k1, k2, k3] = keyColumns(rows)
  await executeNamed(tx, sql`INSERT INTO census_carrier_keys (position, k0, k1, k2, k3)
            SELECT * FROM unnest(${arrayLiteral(rows.map((row) => row.position))}::integer[], ${k0}::text[], ${k1}::text[], ${k2}::text[], ${k3}::text[])`)
}

export async function insertPlatformKeys(tx: Executor, rows: readonly { ord: number; memberId: string; keys: RuleKeys }[]): Promise<void> {
  if (rows.length === 0) return
  const [k0, k1, k2, k3] = keyColumns(rows)
  await executeNamed(tx, sql`INSERT INTO census_platform_keys (ord, member_id, k0, k1, k2, k3)
            SELECT * FROM unnest(${arrayLiteral(rows.map((row) => row.ord))}::integer[], ${arrayLiteral(rows.map((row) => row.memberId))}::uuid[], ${k0}::text[], ${k1}::text[], ${k2}::text[], ${k3}::text[])`)
}

/** Pairs the subscribers, rule by rule, strongest first. */
export async function pairSubscribers(tx: Executor): Promise<void> {
  for (const table of ['census_platform_keys', 'census_carrier_keys']) {
    await sql`UPDATE ${sql.table(table)} SET k0 = NULL WHERE k0 IN (SELECT k0 FROM ${sql.table(table)} WHERE k0 IS NOT NULL GROUP BY k0 HAVING count(*) > 1)`.execute(tx)
    await sql`ANALYZE ${sql.table(table)}`.execute(tx)
  }
  for (let rule = 0; rule < RULES.length; rule++) {
    const key = sql.ref(`k${rule}`)
    await sql`
      INSERT INTO census_subscriber_pairs (position, ord, rule)
      SELECT c.position, p.ord, ${rule}::smallint
        FROM (SELECT position, ${key} AS key, row_number() OVER (PARTITION BY ${key} ORDER BY position) AS rank
                FROM census_carrier_keys c
               WHERE ${key} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM census_subscriber_pairs m WHERE m.position = c.position)) c
        JOIN (SELECT ord, ${key} AS key, row_number() OVER (PARTITION BY ${key} ORDER BY ord) AS rank
                FROM census_platform_keys p
               WHERE ${key} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM census_subscriber_pairs m WHERE m.ord = p.ord)) p
          ON p.key = c.key AND p.rank = c.rank`.execute(tx)
  }
}

export interface SubscriberPairRow {
  position: number
  memberId: string
  matchedBy: MatchRule
}

/** The pairs of census positions [from, to), in position order. */
export async function pairsBetween(tx: Executor, from: number, to: number): Promise<SubscriberPairRow[]> {
  const rows = await executeNamed(tx, sql<{ position: number; member_id: string; rule: number }>`
    SELECT m.position, p.member_id, m.rule FROM census_subscriber_pairs m JOIN census_platform_keys p ON p.ord = m.ord
     WHERE m.position >= ${from} AND m.position < ${to} ORDER BY m.position`)
  return rows.rows.map((row) => ({ position: row.position, memberId: row.member_id, matchedBy: RULES[row.rule]! }))
}

/** Platform subscribers no census subscriber paired, in id order, `limit` after `afterOrd`. */
export async function unpairedPlatformSubscribers(tx: Executor, afterOrd: number, limit: number): Promise<{ ord: number; memberId: string }[]> {
  const rows = await executeNamed(tx, sql<{ ord: number; member_id: string }>`
    SELECT p.ord, p.member_id FROM census_platform_keys p
     WHERE p.ord > ${afterOrd} AND NOT EXISTS (SELECT 1 FROM census_subscriber_pairs m WHERE m.ord = p.ord)
     ORDER BY p.ord LIMIT ${limit}`)
  return rows.rows.map((row) => ({ ord: row.ord, memberId: row.member_id }))
}
