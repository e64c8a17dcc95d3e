import type { Db } from '../../db/schema.js'
import { systemActor } from '../../lib/actor.js'
import { todayUtc } from '../../lib/clock.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { AcknowledgementReceiver } from '../acknowledgements/index.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import type { CarrierConfig } from '../carriers/carriers.schema.js'
import { censusSubscribersFrom834, type CensusService } from '../census/index.js'
import { write834ToString } from '../edi-834/edi-834.writer.js'
import type { WorkOrderTransitionsService } from '../work-orders/work-order-transitions.service.js'
import { censusDate, censusRecords, chooseDifferences } from './sandbox-census.js'
import { takeDelivery } from './sandbox-intake.js'
import {
  addDifferences,
  deliveriesNotTaken,
  dropDifferences,
  findServedPeriod,
  findWorkOrderOfPeriod,
  loadDifferences,
  loadRosterMembers,
  lockRoster,
  markAnswered,
  markDifferencesChosen,
  recordTaken,
  unansweredAcknowledgements,
} from './sandbox-roster.repo.js'

/**
 * A sandbox carrier: it behaves like a real one so the whole life cycle can be tried on one
 * machine, and like a real one it knows only what it was sent. It keeps its own roster per
 * coverage period (sandbox-roster.repo.ts), built from the deliveries it received, in the order
 * they were sent; answers every 834 with a TA1 and a 999 (sandbox-intake.ts), handed to the
 * service as any carrier's acknowledgements are; and answers with a census of its roster on the
 * census date (sandbox-census.ts). Sent a group in full, it first installs it (completes the work
 * order with a group number of its own). A wrong file therefore shows up the way it would with a
 * real carrier: as a rejection, or as reconciliation errors on its next census.
 */
export interface SandboxDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  transitions: WorkOrderTransitionsService
  census: CensusService
  /** Where its TA1s and 999s go: the service's one way in for acknowledgements. */
  acknowledgements: AcknowledgementReceiver
}

const groupNumberOf = (coveragePeriodId: string) => `SBX-${coveragePeriodId.replace(/-/g, '').slice(-8).toUpperCase()}`

const usDate = <T>(isoDate: T): T | string => (typeof isoDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(isoDate) ? `${isoDate.slice(5, 7)}/${isoDate.slice(8)}/${isoDate.slice(0, 4)}` : isoDate)

type CoveragePeriod = { id: string; account_id: string; group_id: string; carrier_name: string; carrier_group_number: string | null; coverage_start_date: string; coverage_end_date: string | null }

export function createSandboxCarrier(deps: SandboxDeps) {
  const { db } = deps

  const periodOf = (coveragePeriodId: string) => findServedPeriod(db, coveragePeriodId)

  /**
   * Takes every sent delivery of the period it has not taken yet, in the order they were sent, in
   * one transaction under the period's roster lock: run twice, it takes nothing twice. The
   * deliberate differences of a member go when a file it applies touches that member; they are
   * chosen after the first full file it applies.
   */
  async function takeDeliveries(cp: CoveragePeriod, carrier: CarrierConfig): Promise<void> {
    await db.transaction().execute(async (tx) => {
      let { differencesChosen } = await lockRoster(tx, cp.id)
      for (const delivery of await deliveriesNotTaken(tx, cp.id)) {
        const intake = await takeDelivery(tx, deps.ssn, cp.id, carrier.name, delivery)
        await recordTaken(tx, cp.id, delivery.id, intake)
        if (!intake.applied) continue
        await dropDifferences(tx, cp.id, intake.applied.action === 'replace' ? 'all' : intake.applied.memberIds)
        if (intake.roster && !differencesChosen) {
          await addDifferences(tx, cp.id, chooseDifferences(intake.roster.members()))
          await markDifferencesChosen(tx, cp.id, new Date())
          differencesChosen = true
        }
      }
    })
  }

  /**
   * Hands the acknowledgements it built to the service, after they are committed with the
   * delivery they answer: a job stopped in between hands them on its next run (the receiver keeps
   * one copy of a text per carrier). Outside the transaction, because the receiver writes through
   * its own.
   */
  async function answerAcknowledgements(cp: CoveragePeriod, carrier: CarrierConfig): Promise<void> {
    for (const row of await unansweredAcknowledgements(db, cp.id)) {
      for (const text of [row.ta1, row.ack_999]) {
        if (text !== null) await deps.acknowledgements.receive({ carrierName: carrier.name, text, source: 'sandbox', receivedAt: new Date() })
      }
      await markAnswered(db, row.file_delivery_id, new Date())
    }
  }

  /** Answers with a census of its roster on the census date, in its own format (834 audit file or JSON). */
  async function answerWithCensus(cp: CoveragePeriod, carrier: CarrierConfig): Promise<void> {
    const members = censusRecords(
      await loadRosterMembers(db, deps.ssn, cp.id),
      censusDate(cp, todayUtc()),
      await loadDifferences(db, cp.id),
      cp.carrier_group_number,
    )
    const today = todayUtc()
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

  /** Takes what it was sent, acknowledges it, and answers with a census. */
  async function takeAndAnswer(cp: CoveragePeriod, carrier: CarrierConfig, options: { census: boolean }): Promise<void> {
    await takeDeliveries(cp, carrier)
    await answerAcknowledgements(cp, carrier)
    if (options.census) await answerWithCensus(cp, carrier)
  }

  return {
    /**
     * Installs a group sent in full: completes its work order with a group number, then takes
     * what it was sent and answers with a census. When the operations team moved the order
     * meanwhile (asked for information, cancelled), it still reads and acknowledges the file but
     * sends no census: it installed nothing.
     */
    async install(coveragePeriodId: string): Promise<void> {
      const cp = await periodOf(coveragePeriodId)
      const carrier = cp && deps.carriers.find(cp.carrier_name)
      if (!cp || !carrier?.sandbox) return
      const workOrder = await findWorkOrderOfPeriod(db, cp.id)
      if (workOrder?.status === 'submitted') {
        await deps.transitions.transition(
          systemActor(cp.account_id),
          workOrder.id,
          { status: 'completed', message: `Installed by ${carrier.display_name}.`, carrier_group_number: cp.carrier_group_number ?? groupNumberOf(cp.id) },
          { by: carrier.display_name },
        )
      }
      const installed = workOrder?.status === 'submitted' || workOrder?.status === 'completed'
      // Read again: the installation gave the period its group number.
      await takeAndAnswer((await periodOf(cp.id)) ?? cp, carrier, { census: installed })
    },

    /** Takes the changes it was sent, acknowledges them, and answers with a census. */
    async answer(coveragePeriodId: string): Promise<void> {
      const cp = await periodOf(coveragePeriodId)
      const carrier = cp && deps.carriers.find(cp.carrier_name)
      if (!cp || !carrier?.sandbox) return
      await takeAndAnswer(cp, carrier, { census: true })
    },
  }
}

export type SandboxCarrier = ReturnType<typeof createSandboxCarrier>
