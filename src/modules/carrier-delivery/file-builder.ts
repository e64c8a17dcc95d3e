import { createHash } from 'node:crypto'
import { sql, type Transaction } from 'kysely'
import type { Database, Db } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { uuidv7 } from '../../lib/ids.js'
import { Utf8Accumulator } from '../../lib/utf8-accumulator.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { PRODUCT_LINES_ON_834 } from '../edi-834/edi-834.codes.js'
import type { Edi834Header, Edi834Member } from '../edi-834/edi-834.model.js'
import { write834 } from '../edi-834/edi-834.writer.js'
import type { CarrierSettings } from './carrier-settings.js'
import { SEND_FILE_JOB, scheduleTransactionDelivery } from './carrier-delivery.jobs.js'
import type { CarrierRecord } from './carrier-view.js'
import { StagedViews } from './carrier-view-staging.js'
import { changeFileMembers, fullFileMembers, type ComposeContext, type ComposedFamily, type WrittenCoverage } from './edi-834-members.js'
import { countEnrolled, enrolledSubscriberIds, loadFamilies, plansOfPeriod, type LoadedFamily, type LoadedPlan, type LoadWindow } from '../members/index.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { heldBackEvents, holdBackChangeFamilies, holdBackFullFamilies, loadHeldBack, MembersHeldBack, openPreSendErrors, PreSendCheck, recordHeldBack, settlePreSendErrors } from './pre-send-check.js'

/** Families read per page. */
const FAMILY_PAGE = 150
/** Pages read ahead of the one being written. */
const READ_AHEAD = 2
/** Pages of subscriber ids read at once. */
const ID_PAGES = 10
/** Families written between two turns of the event loop. */
const YIELD_EVERY = 20
/** Inserts issued but not yet finished, at most. */
const MAX_OUTSTANDING_WRITES = 2
/** Coverage transmissions per insert. */
const TRANSMISSION_BATCH = 2000
/** Content is stored in chunks of about this size, written as the file is generated. */
const CHUNK_BYTES = 1024 * 1024

export interface BuildDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
}

type Tx = Transaction<Database>

/**
 * Writes the build issues without waiting for each: the connection runs them in order while this
 * process composes the next members, so the database and the writer work at once. At most a few
 * are outstanding (memory stays flat); `drain` waits for all and rethrows the first failure, which
 * rolls the build's transaction back.
 */
class BackgroundWrites {
  private readonly outstanding: Promise<unknown>[] = []

  async add(write: Promise<unknown>): Promise<void> {
    // Keep rejections from going unhandled while they wait their turn in drain().
    write.catch(() => {})
    this.outstanding.push(write)
    if (this.outstanding.length > MAX_OUTSTANDING_WRITES) await this.outstanding.shift()
  }

  async drain(): Promise<void> {
    while (this.outstanding.length > 0) await this.outstanding.shift()
  }
}

/**
 * Appends content to the delivery's chunks, sealed, counting and hashing the plain bytes as it
 * goes. Text is copied as it comes into one reusable buffer (see Utf8Accumulator).
 */
class ChunkWriter {
  private readonly pending = new Utf8Accumulator(CHUNK_BYTES + 256 * 1024)
  private seq = 0
  readonly hash = createHash('sha256')
  bytes = 0

  constructor(
    private readonly tx: Tx,
    private readonly deliveryId: string,
    private readonly ssn: SsnProtection,
    private readonly writes: BackgroundWrites,
  ) {}

  async write(text: string): Promise<void> {
    this.pending.append(text)
    if (this.pending.length >= CHUNK_BYTES) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return
    const plain = this.pending.bytes()
    this.hash.update(plain)
    this.bytes += plain.length
    // Sealing copies the bytes, so the buffer is free for the next chunk once this returns.
    const { data, keyId } = this.ssn.sealBytes(plain)
    this.pending.clear()
    await this.writes.add(this.tx.insertInto('file_delivery_chunks').values({ file_delivery_id: this.deliveryId, seq: this.seq++, key_id: keyId, data }).execute())
  }
}

/** ISA13 for the next file to this carrier: per carrier, increasing, wrapping after 999,999,999. */
export async function nextControlNumber(tx: Tx, carrierName: string): Promise<number> {
  const row = await sql<{ last_value: number }>`
    INSERT INTO carrier_control_numbers (carrier_name, last_value) VALUES (${carrierName}, 1)
    ON CONFLICT (carrier_name) DO UPDATE SET last_value = CASE WHEN carrier_control_numbers.last_value >= 999999999 THEN 1
                                                                ELSE carrier_control_numbers.last_value + 1 END
    RETURNING last_value`.execute(tx)
  return row.rows[0]!.last_value
}

/** Families of a full file, page by page, in id order. */
async function* allFamilies(tx: Tx, window: LoadWindow, plans: ReadonlyMap<string, LoadedPlan>): AsyncGenerator<LoadedFamily> {
  // Subscriber ids a few pages at a time, not all 50,000 at once: what the build holds stays
  // small, and so does the heap V8 lets grow around it (about four times what is live).
  const ids = enrolledSubscriberIds(tx, window.coveragePeriodId, FAMILY_PAGE * ID_PAGES)
  const pages = (async function* () {
    let page: string[] = []
    for await (const id of ids) {
      page.push(id)
      if (page.length === FAMILY_PAGE) {
        yield page
        page = []
      }
    }
    if (page.length > 0) yield page
  })()
  // Pages are asked for READ_AHEAD ahead of the one being written: the database reads them while
  // this process composes and writes, so the two cores work at once instead of taking turns.
  const ahead: Promise<LoadedFamily[] | null>[] = []
  const readAhead = () => {
    const families = pages.next().then((page) => (page.done ? null : loadFamilies(tx, window, page.value, { plans })))
    // Awaited in its turn, which rethrows; until then a failure must not count as unhandled.
    families.catch(() => {})
    ahead.push(families)
  }
  for (let i = 0; i < READ_AHEAD; i++) readAhead()
  for (;;) {
    const families = await ahead.shift()!
    if (families === null) return
    readAhead()
    for (const [index, family] of families.entries()) {
      yield family
      // Writing a page runs on resolved promises only; without a turn of the event loop now and
      // then, the answers to the next pages' queries would wait until this page is written.
      if (index % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve))
    }
  }
}

/** What the carrier was last told about the members of these families, on this connection. */
async function toldViews(tx: Tx, coveragePeriodId: string, subscriberIds: readonly string[]): Promise<Map<string, { records: CarrierRecord[]; digest: string }>> {
  const rows = await sql<{ member_id: string; records: string; member_digest: string }>`
    SELECT member_id, records, member_digest FROM carrier_views
     WHERE coverage_period_id = ${coveragePeriodId} AND subscriber_id = ANY(${[...subscriberIds]}::uuid[])`.execute(tx)
  return new Map(rows.rows.map((row) => [row.member_id, { records: JSON.parse(row.records) as CarrierRecord[], digest: row.member_digest }]))
}

/**
 * A delivery with nothing to tell is skipped: no file, its transactions in sync. A change
 * delivery whose changes the carrier already holds (or that were undone before the file was made),
 * or a full file of a coverage period nobody is covered in yet.
 */
async function skipDelivery(tx: Tx, deliveryId: string, now: Date): Promise<void> {
  await tx.updateTable('file_deliveries').set({ status: 'skipped', content_as_of: now, member_count: 0, updated_at: now }).where('id', '=', deliveryId).execute()
  await tx
    .updateTable('member_transactions')
    .set({ status: 'synced', submitted_at: now, completed_at: now, updated_at: now })
    .where('file_delivery_id', '=', deliveryId)
    // Those of families held back by the check before sending stay in errors.
    .where('status', '=', 'pending')
    .execute()
  await refreshFamilyStatuses(tx, { fileDeliveryId: deliveryId }, now)
  const delivery = await tx.selectFrom('file_deliveries').select('coverage_period_id').where('id', '=', deliveryId).executeTakeFirstOrThrow()
  await scheduleTransactionDelivery(tx, delivery.coverage_period_id, now, 0)
}

/** Passes of a full file, at most: each one after the first leaves out what the one before found. */
const MAX_PASSES = 4

/**
 * Builds a delivery's content into chunks and records what it carried (coverage transmissions and
 * the carrier's view of each member it told about), in one transaction, then queues the send. A
 * build that failed part-way left nothing (the transaction rolled back), so running it again
 * starts clean; a delivery already built is not built twice.
 *
 * An 834's members are checked against the rule table first (pre-send-check.ts): a change file
 * leaves the failing ones out as it is composed whole; a full file has written its totals before
 * its members, so a pass that found failing members rolls back, records them, and the file is
 * built again without them (members changing meanwhile may take another pass).
 */
export async function buildFileDelivery(deps: BuildDeps, deliveryId: string): Promise<void> {
  for (let pass = 1; ; pass++) {
    try {
      return await buildOnce(deps, deliveryId)
    } catch (error) {
      if (!(error instanceof MembersHeldBack) || pass >= MAX_PASSES) throw error
      await deps.db.transaction().execute((tx) => recordHeldBack(tx, deliveryId, error.members))
    }
  }
}

async function buildOnce(deps: BuildDeps, deliveryId: string): Promise<void> {
  // One snapshot for the whole build: a full file counts its members before it pages them, and an
  // event committing meanwhile must not change the count or the pages.
  await deps.db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const delivery = await tx.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).forUpdate().executeTakeFirst()
    if (!delivery || delivery.sha256 !== null || delivery.status !== 'pending') return
    const cp = await tx.selectFrom('coverage_periods').selectAll().where('id', '=', delivery.coverage_period_id).executeTakeFirstOrThrow()
    const group = await tx.selectFrom('groups').selectAll().where('id', '=', cp.group_id).executeTakeFirstOrThrow()
    const producers = await tx.selectFrom('producers_of_record').selectAll().where('group_id', '=', group.id).orderBy('position').limit(2).execute()
    const carrier = deps.carriers.find(cp.carrier_name)
    const now = new Date()
    const today = now.toISOString().slice(0, 10)
    const controlNumber = delivery.interchange_control_number ?? 0
    const window: LoadWindow = { coveragePeriodId: cp.id, startDate: cp.coverage_start_date, endDate: cp.coverage_end_date }
    const context: ComposeContext = { ssn: deps.ssn, groupPolicyNumber: cp.carrier_group_number, window, today, plans: await plansOfPeriod(tx, cp.id) }
    // An 834 has no insurance line code for accident, critical illness or hospital indemnity
    // plans: those reach the carrier outside the file, so they are neither written nor recorded.
    const productLines = delivery.channel === 'edi' ? PRODUCT_LINES_ON_834 : null
    // The rule table checks 834 members only: an api carrier's JSON document has no X12 rules.
    const open = delivery.channel === 'edi' ? await openPreSendErrors(tx, cp.id) : []
    const planIdOf = new Map([...context.plans.values()].map((plan) => [plan.plan_external_identifier, plan.plan_id]))
    // A full file's members held back by an earlier pass of this build (pre-send-check.ts).
    const known = delivery.channel === 'edi' ? await loadHeldBack(tx, delivery.id) : []
    const check = delivery.channel === 'edi' ? new PreSendCheck(known, planIdOf, new Set(open.flatMap((e) => (e.member_id ? [e.member_id] : [])))) : null
    const sendable = (family: LoadedFamily): LoadedFamily =>
      productLines
        ? { subscriber: family.subscriber, dependents: family.dependents, spans: family.spans.filter((span) => productLines.includes(span.product_line)), coverages: family.coverages, events: family.events, latestEvent: family.latestEvent }
        : family

    const written: WrittenCoverage[] = []
    const views = new StagedViews(delivery.id)
    const followUps: LoadedFamily[] = []
    const writes = new BackgroundWrites()
    /** Records (and forgets) what was written so far: a full file's 200,000 coverages are never all held. */
    const recordWritten = async () => {
      while (written.length > 0) {
        const batch = written.splice(0, TRANSMISSION_BATCH)
        // Columns as arrays, one statement per batch: a few parameters instead of eleven per row.
        await writes.add(sql`
          INSERT INTO coverage_transmissions
            (id, member_id, plan_id, transaction_id, maintenance, start_date, end_date, account_id, coverage_period_id, file_delivery_id, created_at)
          SELECT t.*, ${delivery.account_id}, ${cp.id}, ${delivery.id}, ${now}
            FROM unnest(${batch.map(() => uuidv7())}::uuid[], ${batch.map((w) => w.memberId)}::uuid[], ${batch.map((w) => w.planId)}::uuid[], ${batch.map((w) => w.transactionId)}::uuid[],
                        ${batch.map((w) => w.maintenance)}::text[], ${batch.map((w) => w.startDate)}::date[], ${batch.map((w) => w.endDate)}::date[]) AS t`.execute(tx))
      }
      // The carrier's view changes once the file is sent (delivery-sent.ts), not before.
      await writes.add(views.write(tx))
    }
    let memberCount = 0
    const keep = (composed: ComposedFamily, family: LoadedFamily): readonly Edi834Member[] => {
      const members = check ? check.family(family.subscriber.id, composed.members) : composed.members
      memberCount += members.length
      if (members.length === composed.members.length) {
        written.push(...composed.written)
        for (const view of composed.views) views.add(view)
        if (composed.needsFollowUp) followUps.push(family)
        return members
      }
      // Members held back: the carrier is told nothing of them, so their views stay as they were
      // and the next change file of the family tells them once their data passes.
      const sent = new Set(members.map((m) => m.memberId))
      written.push(...composed.written.filter((w) => sent.has(w.memberId)))
      for (const view of composed.views) if (sent.has(view.memberId)) views.add(view)
      if (composed.needsFollowUp && members.length > 0) followUps.push(family)
      return members
    }

    // The member loops, and the totals the header needs before them.
    let members: AsyncIterable<Edi834Member> | Edi834Member[]
    let totals: { subscribers: number; dependents: number }
    /** The family's transactions in this delivery, for the errors of its held-back members. */
    const transactionsOf = new Map<string, string[]>()
    /** A change file's transactions of families held back whole: they are not carried. */
    let heldTransactions = 0
    /** The held-back members' errors raised and the fixed ones resolved, with the file (or its skipping). */
    const settleCheck = async () => {
      if (!check) return
      // A full file's held-back members were found by an earlier pass; a change file's by this one.
      const held = delivery.kind === 'full' ? known : check.found
      if (delivery.kind === 'full') await holdBackFullFamilies(tx, delivery, held, transactionsOf, now)
      await settlePreSendErrors(tx, { accountId: delivery.account_id, coveragePeriodId: cp.id, groupId: cp.group_id, held, transactionsOf, open, checked: check.checked }, now)
    }
    if (delivery.kind === 'full') {
      totals = await countEnrolled(tx, window, productLines, check?.excluded)
      // An 834 needs at least one member loop: a renewal submitted before any election has
      // nothing to send yet (its elections then travel as change files).
      if (totals.subscribers === 0) {
        await settleCheck()
        await skipDelivery(tx, delivery.id, now)
        return
      }
      members = (async function* () {
        for await (const family of allFamilies(tx, window, context.plans)) {
          yield* keep(fullFileMembers(sendable(family), context), family)
          if (written.length >= TRANSMISSION_BATCH || views.full) await recordWritten()
        }
        // Thrown before the writer sees the end: its totals, written first, counted these members.
        if (check && check.found.length > 0) throw new MembersHeldBack(check.found)
      })()
    } else {
      const transactions = await tx
        .selectFrom('member_transactions')
        .select(['id', 'subscriber_id', 'qualifying_life_event_id'])
        .where('file_delivery_id', '=', delivery.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      // Per family, its latest transaction and its life events in this file, oldest first: their codes name the loops.
      const latestOf = new Map<string, { transactionId: string; eventIds: string[] }>()
      // An 834 family's events it was held back with earlier come first (pre-send-check.ts).
      const earlier = check ? await heldBackEvents(tx, cp.id, delivery.id, [...new Set(transactions.map((t) => t.subscriber_id))]) : new Map<string, string[]>()
      for (const t of transactions) {
        transactionsOf.set(t.subscriber_id, [...(transactionsOf.get(t.subscriber_id) ?? []), t.id])
        const eventIds = latestOf.get(t.subscriber_id)?.eventIds ?? [...(earlier.get(t.subscriber_id) ?? [])]
        if (t.qualifying_life_event_id && !eventIds.includes(t.qualifying_life_event_id)) eventIds.push(t.qualifying_life_event_id)
        latestOf.set(t.subscriber_id, { transactionId: t.id, eventIds })
      }
      const subscriberIds = [...latestOf.keys()]
      const told = await toldViews(tx, cp.id, subscriberIds)
      // A change file is small: composed whole, so its totals are known before it is written.
      const composed: Edi834Member[] = []
      const sentFamilies = new Set<string>()
      for (const family of await loadFamilies(tx, window, subscriberIds, { today, allEvents: true, plans: context.plans })) {
        const latest = latestOf.get(family.subscriber.id)!
        const events = latest.eventIds.flatMap((id) => family.events.find((e) => e.id === id) ?? [])
        const kept = keep(changeFileMembers(sendable(family), told, events, latest.transactionId, context), family)
        if (kept.length > 0) sentFamilies.add(family.subscriber.id)
        composed.push(...kept)
      }
      if (check && check.found.length > 0) {
        const heldFamilies = [...new Set(check.found.map((m) => m.subscriberId))].filter((id) => !sentFamilies.has(id))
        heldTransactions = await holdBackChangeFamilies(tx, cp.id, heldFamilies, transactionsOf, now)
        await recordHeldBack(tx, delivery.id, check.found)
      }
      if (composed.length === 0) {
        await settleCheck()
        await skipDelivery(tx, delivery.id, now)
        return
      }
      totals = { subscribers: composed.filter((m) => m.subscriber).length, dependents: composed.filter((m) => !m.subscriber).length }
      members = composed
    }

    const out = new ChunkWriter(tx, delivery.id, deps.ssn, writes)
    if (delivery.channel === 'edi') {
      const header: Edi834Header = {
        reference: delivery.id.replace(/-/g, '').slice(0, 30),
        action: delivery.kind === 'full' ? 'replace' : 'change',
        masterPolicyNumber: cp.carrier_group_number,
        effectiveDate: delivery.kind === 'full' ? cp.coverage_start_date : today,
        totals,
        sponsor: { name: group.organization_name, fein: group.fein, groupExternalIdentifier: group.external_identifier },
        payer: { name: carrier?.display_name ?? cp.carrier_name, carrierName: cp.carrier_name },
        brokers: producers.map((p) => ({ name: [p.first_name, p.last_name].filter(Boolean).join(' '), nationalProducerNumber: p.national_producer_number })),
      }
      const envelope = {
        senderQualifier: deps.settings.ediSenderQualifier,
        senderId: deps.settings.ediSenderId,
        receiverQualifier: 'ZZ',
        receiverId: cp.carrier_name.toUpperCase().slice(0, 15),
        applicationSenderCode: deps.settings.ediSenderId,
        applicationReceiverCode: cp.carrier_name.toUpperCase().slice(0, 15),
        interchangeControlNumber: controlNumber,
        usage: carrier?.sandbox ? ('T' as const) : ('P' as const),
        createdAt: now,
      }
      for await (const chunk of write834(envelope, header, members, check ? { segmentsOf: check.segmentsOf } : {})) await out.write(chunk)
    } else {
      // An api carrier receives a JSON document of the same members (see docs/decisions.md).
      await out.write(`{"kind":${JSON.stringify(delivery.kind)},"coverage_period_id":${JSON.stringify(cp.id)},"carrier_group_number":${JSON.stringify(cp.carrier_group_number)},"members":[`)
      let first = true
      for await (const member of members) {
        await out.write((first ? '' : ',') + JSON.stringify(member))
        first = false
      }
      await out.write(']}')
    }
    await out.flush()

    await recordWritten()
    await writes.drain()
    // What a full file could not say (a plan change after its effective date, a level from a later
    // date) follows in a change file, queued once the full file is sent (see deliveries.ts).
    if (followUps.length > 0) {
      await insertFollowUps(tx, delivery, followUps, now)
    }
    await settleCheck()
    await tx
      .updateTable('file_deliveries')
      .set({
        content_as_of: sql<Date>`transaction_timestamp()`,
        byte_size: out.bytes,
        sha256: out.hash.digest('hex'),
        member_count: memberCount,
        // A full file carries one installation transaction per family, written once it is sent.
        ...(delivery.kind === 'full' ? { transaction_count: totals.subscribers } : heldTransactions > 0 ? { transaction_count: sql<number>`transaction_count - ${heldTransactions}` } : {}),
        updated_at: now,
      })
      .where('id', '=', delivery.id)
      .execute()
    await enqueueJob(tx, SEND_FILE_JOB, { file_delivery_id: delivery.id })
  })
}

/** Pending transactions for the families a full file could not tell everything about. */
async function insertFollowUps(tx: Tx, delivery: { account_id: string; coverage_period_id: string; group_id: string }, families: readonly LoadedFamily[], now: Date): Promise<void> {
  for (let start = 0; start < families.length; start += 1000) {
    await tx
      .insertInto('member_transactions')
      .values(
        families.slice(start, start + 1000).map((family) => ({
          id: uuidv7(),
          account_id: delivery.account_id,
          coverage_period_id: delivery.coverage_period_id,
          group_id: delivery.group_id,
          subscriber_id: family.subscriber.id,
          member_id: family.subscriber.id,
          kind: 'qualifying_life_event' as const,
          qualifying_life_event_id: family.latestEvent?.id ?? null,
          file_delivery_id: null,
          created_at: now,
          submitted_at: null,
          completed_at: null,
          updated_at: now,
        })),
      )
      .execute()
  }
}

