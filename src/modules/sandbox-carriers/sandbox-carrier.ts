import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../../db/schema.js'
import { systemActor } from '../../lib/actor.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import type { CarrierConfig } from '../carriers/carriers.schema.js'
import { membersInForce } from '../carrier-delivery/edi-834-members.js'
import { loadAllFamilies, plansOfPeriod, referenceDate, windowOf, type LoadedFamily, type LoadedPlan } from '../carrier-delivery/family-loader.js'
import { todayUtc } from '../../lib/clock.js'
import type { CensusService } from '../census/census.service.js'
import { censusSubscribersFrom834 } from '../census/census-from-834.js'
import type { Edi834Member } from '../edi-834/edi-834.model.js'
import { write834ToString } from '../edi-834/edi-834.writer.js'
import type { WorkOrderTransitionsService } from '../work-orders/work-order-transitions.service.js'

/**
 * A sandbox carrier: it behaves like a real one so the whole life cycle can be tried on one
 * machine. Sent a group in full, it installs it (completes the work order with a group number of
 * its own) and answers with a census; sent changes, it takes them and answers with a census again.
 *
 * Its census holds a few deliberate discrepancies, chosen once per coverage period and kept (in
 * sandbox_carrier_differences) until a platform change to that member reaches it: the first
 * subscriber's address differs, the second's birth date, and one dependent is missing. Everything
 * else differs only in spelling (upper-case names, ZIP+4, F/M genders, MM/DD/YYYY dates on the
 * api sandbox), which reconciliation must see through.
 */
export interface SandboxDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  transitions: WorkOrderTransitionsService
  census: CensusService
}

const carrierMemberIdOf = (memberId: string) => `SBX-${createHash('sha256').update(memberId).digest('hex').slice(0, 10).toUpperCase()}`
const groupNumberOf = (coveragePeriodId: string) => `SBX-${coveragePeriodId.replace(/-/g, '').slice(-8).toUpperCase()}`

const shiftDay = (isoDate: string) => {
  const date = new Date(`${isoDate}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + (date.getUTCDate() > 27 ? -1 : 1))
  return date.toISOString().slice(0, 10)
}
const usDate = <T>(isoDate: T): T | string => (typeof isoDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(isoDate) ? `${isoDate.slice(5, 7)}/${isoDate.slice(8)}/${isoDate.slice(0, 4)}` : isoDate)

export function createSandboxCarrier(deps: SandboxDeps) {
  const { db } = deps

  /** Chooses the deliberate differences once per coverage period (in family id order). */
  async function chooseDifferences(coveragePeriodId: string, families: readonly LoadedFamily[]): Promise<void> {
    const chosen: { member_id: string; parameter: string }[] = []
    if (families[0]) chosen.push({ member_id: families[0].subscriber.id, parameter: 'residential_address' })
    if (families[1]) chosen.push({ member_id: families[1].subscriber.id, parameter: 'birth_date' })
    const withDependent = families.slice(2).find((f) => f.dependents.length > 0) ?? families.find((f) => f.dependents.length > 0)
    if (withDependent) chosen.push({ member_id: withDependent.dependents[0]!.id, parameter: 'dependent' })
    if (chosen.length === 0) return
    await db
      .insertInto('sandbox_carrier_differences')
      .values(chosen.map((c) => ({ coverage_period_id: coveragePeriodId, ...c })))
      .onConflict((oc) => oc.doNothing())
      .execute()
  }

  /** The carrier's records: the platform's families as the carrier holds them. */
  function recordsHeld(
    families: readonly LoadedFamily[],
    differences: ReadonlyMap<string, ReadonlySet<string>>,
    cp: { id: string; coverage_start_date: string; coverage_end_date: string | null; carrier_group_number: string | null },
    plans: ReadonlyMap<string, LoadedPlan>,
  ): Edi834Member[] {
    const members: Edi834Member[] = []
    const window = windowOf(cp)
    const date = referenceDate(window, todayUtc())
    for (const family of families) {
      for (const member of membersInForce(family, { ssn: deps.ssn, groupPolicyNumber: cp.carrier_group_number, window, today: date, plans }, date)) {
        const differs = differences.get(member.memberId) ?? new Set<string>()
        if (differs.has('dependent')) continue
        members.push({
          ...member,
          maintenance: 'audit',
          reason: 'audit',
          carrierMemberId: carrierMemberIdOf(member.memberId),
          firstName: member.firstName.toUpperCase(),
          lastName: member.lastName.toUpperCase(),
          birthDate: differs.has('birth_date') ? shiftDay(member.birthDate) : member.birthDate,
          residentialAddress: member.residentialAddress
            ? {
                ...member.residentialAddress,
                address_line_1: differs.has('residential_address') ? '1 Carrier Records Way' : member.residentialAddress.address_line_1.toUpperCase(),
                city: member.residentialAddress.city.toUpperCase(),
                zip: member.residentialAddress.zip.length === 5 ? `${member.residentialAddress.zip}-0001` : member.residentialAddress.zip,
              }
            : null,
          coverages: member.coverages.map((c) => ({ ...c, maintenance: 'audit' })),
        })
      }
    }
    return members
  }

  /** Answers with a census of everything it holds, in its own format (834 audit file or JSON). */
  async function answerWithCensus(coveragePeriodId: string, carrier: CarrierConfig, loaded?: readonly LoadedFamily[]): Promise<void> {
    const cp = await db.selectFrom('coverage_periods').selectAll().where('id', '=', coveragePeriodId).executeTakeFirstOrThrow()
    // The changes it was sent replace what it held for those members, differences included.
    await sql`
      DELETE FROM sandbox_carrier_differences d
       WHERE d.coverage_period_id = ${cp.id}
         AND EXISTS (SELECT 1 FROM member_transactions t
                      WHERE t.coverage_period_id = d.coverage_period_id AND t.status = 'submitted' AND t.kind <> 'installation'
                        AND (t.member_id = d.member_id OR (t.kind = 'qualifying_life_event' AND t.subscriber_id = d.member_id)))`.execute(db)
    const families = loaded ?? (await loadAllFamilies(db, windowOf(cp)))
    const rows = await db.selectFrom('sandbox_carrier_differences').select(['member_id', 'parameter']).where('coverage_period_id', '=', cp.id).execute()
    const differences = new Map<string, Set<string>>()
    for (const row of rows) differences.set(row.member_id, (differences.get(row.member_id) ?? new Set()).add(row.parameter))
    const members = recordsHeld(families, differences, cp, await plansOfPeriod(db, cp.id))
    const today = new Date().toISOString().slice(0, 10)
    const actor = systemActor(cp.account_id)
    if (carrier.distribution_format === 'edi') {
      const text = await write834ToString(
        {
          senderQualifier: 'ZZ',
          senderId: carrier.name.toUpperCase().slice(0, 15),
          receiverQualifier: 'ZZ',
          receiverId: 'ENROLLSYNC',
          applicationSenderCode: carrier.name.toUpperCase().slice(0, 15),
          applicationReceiverCode: 'ENROLLSYNC',
          interchangeControlNumber: Math.floor(Date.now() / 1000) % 999_999_999 || 1,
          usage: 'T',
          createdAt: new Date(),
        },
        {
          reference: `AUDIT${Date.now()}`,
          action: 'verify',
          masterPolicyNumber: cp.carrier_group_number,
          effectiveDate: today,
          totals: { subscribers: members.filter((m) => m.subscriber).length, dependents: members.filter((m) => !m.subscriber).length },
          sponsor: { name: 'Sandbox employer', fein: null, groupExternalIdentifier: cp.group_id.slice(0, 30) },
          payer: { name: carrier.display_name, carrierName: carrier.name },
          brokers: [],
        },
        members,
      )
      await deps.census.submitCensus(actor, cp.id, { as_of: today, x12_834: text }, { submittedBy: carrier.display_name })
    } else {
      // The api sandbox writes dates the American way and genders as letters.
      const subscribers = censusSubscribersFrom834(members).map((s) => ({
        ...s,
        birth_date: usDate(s.birth_date),
        gender: String(s.gender ?? '').charAt(0).toUpperCase(),
        dependents: (s.dependents ?? []).map((d) => ({ ...d, birth_date: usDate(d.birth_date) })),
      }))
      await deps.census.submitCensus(actor, cp.id, { as_of: today, subscribers }, { submittedBy: carrier.display_name })
    }
  }

  return {
    /** Installs a submitted group: completes its work order, then answers with a census. */
    async install(coveragePeriodId: string): Promise<void> {
      const cp = await db.selectFrom('coverage_periods').selectAll().where('id', '=', coveragePeriodId).executeTakeFirst()
      const carrier = cp && deps.carriers.find(cp.carrier_name)
      if (!cp || !carrier?.sandbox) return
      const workOrder = await db.selectFrom('work_orders').select(['id', 'status']).where('coverage_period_id', '=', cp.id).executeTakeFirst()
      // The operations team may have moved the order meanwhile (asked for information, cancelled).
      if (workOrder?.status !== 'submitted') return
      await deps.transitions.transition(
        systemActor(cp.account_id),
        workOrder.id,
        { status: 'completed', message: `Installed by ${carrier.display_name}.`, carrier_group_number: cp.carrier_group_number ?? groupNumberOf(cp.id) },
        { by: carrier.display_name },
      )
      const families = await loadAllFamilies(db, windowOf(cp))
      await chooseDifferences(cp.id, families)
      await answerWithCensus(cp.id, carrier, families)
    },

    /** Takes the changes it was sent and answers with a census. */
    async answer(coveragePeriodId: string): Promise<void> {
      const cp = await db.selectFrom('coverage_periods').select(['id', 'carrier_name']).where('id', '=', coveragePeriodId).executeTakeFirst()
      const carrier = cp && deps.carriers.find(cp.carrier_name)
      if (!cp || !carrier?.sandbox) return
      await answerWithCensus(cp.id, carrier)
    },
  }
}

export type SandboxCarrier = ReturnType<typeof createSandboxCarrier>
