import type { Transaction } from 'kysely'
import type { Database, Db } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { turnOfEventLoop } from '../../lib/event-loop.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import type { CarrierConfig } from '../carriers/carriers.schema.js'
import { isFirstCoveragePeriodWithCarrier } from '../coverage-periods/coverage-periods.repo.js'
import { PRODUCT_LINES_ON_834 } from '../edi-834/edi-834.codes.js'
import type { Edi834Envelope, Edi834Header, Edi834Member } from '../edi-834/edi-834.model.js'
import { write834 } from '../edi-834/edi-834.writer.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { countEnrolled, enrolledSubscriberIds, loadFamilies, plansOfPeriod, type LoadedFamily, type LoadedPlan, type LoadWindow } from '../members/index.js'
import type { CarrierSettings } from './carrier-settings.js'
import { SEND_FILE_JOB, scheduleTransactionDelivery } from './carrier-delivery.jobs.js'
import * as repo from './carrier-delivery.repo.js'
import { toldViews } from './carrier-views.repo.js'
import { StagedViews } from './carrier-view-staging.js'
import { changeFileMembers, fullFileMembers, type ComposeContext, type ComposedFamily, type WrittenCoverage } from './edi-834-members.js'
import { BackgroundWrites, Change834Writer, ChunkWriter, JsonDocumentWriter, type ContentTarget, type WrittenContent } from './file-content-writer.js'
import { forgetEarlierAttempts, heldBackEvents, holdBackChangeFamilies, holdBackFullFamilies, loadHeldBack, MembersHeldBack, openPreSendErrors, PreSendCheck, recordHeldBack, settlePreSendErrors, type OpenPreSendError, type HeldBackMember } from './pre-send-check.js'

/**
 * Building a delivery's content, in named steps: load the delivery and its context
 * (loadBuild), compose and write its members (writeFullFile, writeChangeFile), record what was
 * written (BuildRecord), and queue the send (finishBuild).
 */

/**
 * Families read per page: four queries a page. 200 rather than 100: a 50,000-family full file took
 * about 10% less time (5.3-5.6 s against 4.7-5.1 s, builds alternated on the same data, 2026-11-26)
 * for the same memory, its database spending 0.3 CPU s less on half as many statements; 300 and
 * 400 gained nothing more. (100 was chosen when pages of 150 seemed to grow the heap: measured in
 * alternation, 200 does not.)
 */
const FAMILY_PAGE = 200
/** Pages read ahead of the one being written. */
const READ_AHEAD = 2
/** Pages of subscriber ids read at once. */
const ID_PAGES = 10
/** Families written between two turns of the event loop. */
const YIELD_EVERY = 20
/** Coverage transmissions per insert. */
const TRANSMISSION_BATCH = 2000
/** Passes of a full file, at most: each one after the first leaves out what the one before found. */
const MAX_PASSES = 4

export interface BuildDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
}

type Tx = Transaction<Database>

/**
 * Builds a delivery's content into chunks and records what it carried (coverage transmissions and
 * the carrier's view of each member it told about), in one transaction, then queues the send. A
 * build that failed part-way left nothing (the transaction rolled back), so running it again
 * starts clean; a delivery already built is not built twice.
 *
 * An 834's members are checked against the rule table first (pre-send-check.ts): a change file
 * leaves the failing ones out as it is composed (it writes its header last); a full file has written its totals before
 * its members, so a pass that found failing members rolls back, records them, and the file is
 * built again without them (members changing meanwhile may take another pass). Only the passes
 * of one call share what they held back: a retried job checks everyone again.
 */
export async function buildFileDelivery(deps: BuildDeps, deliveryId: string): Promise<void> {
  // What an earlier attempt's passes held back may be fixed by now: this attempt looks again.
  await deps.db.transaction().execute((tx) => forgetEarlierAttempts(tx, deliveryId))
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
    const build = await loadBuild(tx, deps, deliveryId)
    if (!build) return
    const record = new BuildRecord(build)
    const content = build.delivery.kind === 'full' ? await writeFullFile(build, record) : await writeChangeFile(build, record)
    if (!content) {
      await settleCheck(build, record)
      await skipDelivery(tx, build.delivery.id, build.now)
      return
    }
    await record.finish()
    await settleCheck(build, record)
    await finishBuild(build, record, content)
  })
}

// ---- Step 1: the delivery and its context ----

/** A delivery being built, and everything its steps read once. */
interface Build extends Awaited<ReturnType<typeof repo.loadDeliveryContext>> {
  tx: Tx
  deps: BuildDeps
  delivery: repo.FileDeliveryRow
  carrier: CarrierConfig | undefined
  now: Date
  today: string
  window: LoadWindow
  context: ComposeContext
  /**
   * An 834 has no insurance line code for accident, critical illness or hospital indemnity
   * plans: those reach the carrier outside the file, so they are neither written nor recorded.
   */
  productLines: readonly string[] | null
  /** The rule table checks 834 members only: an api carrier's JSON document has no X12 rules. */
  check: PreSendCheck | null
  /** Open errors of the check before sending, on the coverage period. */
  open: OpenPreSendError[]
  /** A full file's members held back by an earlier pass of this build (pre-send-check.ts). */
  known: HeldBackMember[]
}

/** The delivery, locked, with its context; null when it needs no build (gone, built, or no longer pending). */
async function loadBuild(tx: Tx, deps: BuildDeps, deliveryId: string): Promise<Build | null> {
  const delivery = await repo.lockDelivery(tx, deliveryId)
  if (!delivery || delivery.sha256 !== null || delivery.status !== 'pending') return null
  const { cp, group, producers } = await repo.loadDeliveryContext(tx, delivery.coverage_period_id)
  const now = new Date()
  const today = now.toISOString().slice(0, 10)
  const window: LoadWindow = { coveragePeriodId: cp.id, startDate: cp.coverage_start_date, endDate: cp.coverage_end_date }
  const renewal = !(await isFirstCoveragePeriodWithCarrier(tx, cp.group_id, cp.carrier_name, cp.id))
  const context: ComposeContext = { ssn: deps.ssn, groupPolicyNumber: cp.carrier_group_number, window, today, plans: await plansOfPeriod(tx, cp.id), renewal }
  const edi = delivery.channel === 'edi'
  const open = edi ? await openPreSendErrors(tx, cp.id) : []
  const planIdOf = new Map([...context.plans.values()].map((plan) => [plan.plan_external_identifier, plan.plan_id]))
  const known = edi ? await loadHeldBack(tx, delivery.id) : []
  const check = edi ? new PreSendCheck(known, planIdOf, new Set(open.flatMap((e) => (e.member_id ? [e.member_id] : [])))) : null
  const carrier = deps.carriers.find(cp.carrier_name)
  return { tx, deps, delivery, cp, group, producers, carrier, now, today, window, context, productLines: edi ? PRODUCT_LINES_ON_834 : null, check, open, known }
}

/** The family with only the spans the file can carry. */
function sendable(build: Build, family: LoadedFamily): LoadedFamily {
  const lines = build.productLines
  if (!lines) return family
  return { subscriber: family.subscriber, dependents: family.dependents, spans: family.spans.filter((span) => lines.includes(span.product_line)), coverages: family.coverages, events: family.events, latestEvent: family.latestEvent, enrolledAsNew: family.enrolledAsNew, coverageEvents: family.coverageEvents, spanHistory: family.spanHistory }
}

// ---- Step 2: what was written, recorded as it is written ----

/**
 * What the file carried: coverage transmissions, the carrier's views (staged until it is sent),
 * the families a change file must follow up, and the counts. Recorded in batches while the file
 * is written: a full file's 200,000 coverages are never all held.
 */
class BuildRecord {
  readonly writes = new BackgroundWrites()
  private readonly written: WrittenCoverage[] = []
  private readonly views: StagedViews
  /**
   * Families whose full file could not say everything, as the follow-up needs them: only the two
   * ids, not the loaded family (a renewal with a plan change dated later for everyone would
   * otherwise hold every family of the file until its end).
   */
  private readonly followUps: { subscriberId: string; latestEventId: string | null }[] = []
  memberCount = 0
  /**
   * The transactions in this delivery of the families with held-back members, for their errors
   * (and, for a change file's families held back whole, to end them in `errors`). Only those: a
   * change file's 10,000 families need not all be held to the end for the few that fail.
   */
  readonly transactionsOf = new Map<string, string[]>()
  /** A change file's transactions of families held back whole: they are not carried. */
  heldTransactions = 0

  private readonly tx: Tx

  constructor(private readonly build: Build) {
    this.tx = build.tx
    this.views = new StagedViews(build.delivery.id)
  }

  /**
   * The family's members the check lets through, their coverages and views recorded.
   * `transactionIds`: the family's transactions in a change delivery.
   */
  keep(composed: ComposedFamily, family: LoadedFamily, transactionIds: readonly string[] = []): readonly Edi834Member[] {
    const check = this.build.check
    const members = check ? check.family(family.subscriber.id, composed.members) : composed.members
    this.memberCount += members.length
    if (members.length === composed.members.length) {
      this.written.push(...composed.written)
      for (const view of composed.views) this.views.add(view)
      if (composed.needsFollowUp) this.followUps.push(followUpOf(family))
      return members
    }
    // Members held back: the carrier is told nothing of them, so their views stay as they were
    // and the next change file of the family tells them once their data passes.
    if (transactionIds.length > 0) this.transactionsOf.set(family.subscriber.id, [...transactionIds])
    const sent = new Set(members.map((m) => m.memberId))
    this.written.push(...composed.written.filter((w) => sent.has(w.memberId)))
    for (const view of composed.views) if (sent.has(view.memberId)) this.views.add(view)
    if (composed.needsFollowUp && members.length > 0) this.followUps.push(followUpOf(family))
    return members
  }

  /** Records what was written so far when a batch is full. */
  async recordIfFull(): Promise<void> {
    if (this.written.length >= TRANSMISSION_BATCH || this.views.full) await this.record()
  }

  /** Records (and forgets) what was written so far. */
  private async record(): Promise<void> {
    while (this.written.length > 0) {
      const batch = this.written.splice(0, TRANSMISSION_BATCH)
      await this.writes.add(repo.insertCoverageTransmissions(this.tx, this.build.delivery, batch, this.build.now))
    }
    // The carrier's view changes once the file is sent (carrier-delivery.service.ts, settle), not before.
    await this.writes.add(this.views.write(this.tx))
  }

  /**
   * The rest recorded and every write finished. What a full file could not say (a plan change
   * after its effective date, a level from a later date) follows in a change file, queued once
   * the full file is sent.
   */
  async finish(): Promise<void> {
    await this.record()
    await this.writes.drain()
    if (this.followUps.length > 0) await repo.insertFollowUps(this.tx, this.build.delivery, this.followUps, this.build.now)
  }
}

/** What a follow-up change file needs of a family: whose it is and the event it follows. */
function followUpOf(family: LoadedFamily): { subscriberId: string; latestEventId: string | null } {
  return { subscriberId: family.subscriber.id, latestEventId: family.latestEvent?.id ?? null }
}

/** The held-back members' errors raised and the fixed ones resolved, with the file (or its skipping). */
async function settleCheck(build: Build, record: BuildRecord): Promise<void> {
  const { tx, check, delivery, cp, now } = build
  if (!check) return
  // A full file's held-back members were found by an earlier pass; a change file's by this one.
  const held = delivery.kind === 'full' ? build.known : check.found
  if (delivery.kind === 'full') await holdBackFullFamilies(tx, delivery, held, record.transactionsOf, now)
  const outcome = { accountId: delivery.account_id, coveragePeriodId: cp.id, groupId: cp.group_id, held, transactionsOf: record.transactionsOf, open: build.open, checked: check.checked }
  await settlePreSendErrors(tx, outcome, now)
}

// ---- Step 3: the members ----

/** A full file's member loops, and the totals the header needs before them; null: nothing to tell. */
interface Composed {
  members: AsyncIterable<Edi834Member>
  totals: { subscribers: number; dependents: number }
}

/** A full file: counted first, then composed page by page as it is written. */
async function composeFullFile(build: Build, record: BuildRecord): Promise<Composed | null> {
  const { tx, window, context, check } = build
  const totals = await countEnrolled(tx, window, build.productLines, check?.excluded)
  // An 834 needs at least one member loop: a renewal submitted before any election has
  // nothing to send yet (its elections then travel as change files).
  if (totals.subscribers === 0) return null
  const members = (async function* () {
    for await (const family of allFamilies(tx, window, context.plans)) {
      yield* record.keep(fullFileMembers(sendable(build, family), context), family)
      await record.recordIfFull()
    }
    // Thrown before the writer sees the end: its totals, written first, counted these members.
    if (check && check.found.length > 0) throw new MembersHeldBack(check.found)
  })()
  return { members, totals }
}

/**
 * A change file, written as its families are composed, page by page: its header's totals are
 * known only once every member is (the check may hold some back), so its member loops are stored
 * first and the header last, in the chunk left free before them (Change834Writer). Holding the
 * loops for the header grew the process by 212 MB for 10,000 changed families (bench/RESULTS.md,
 * issue 16); so did holding every changed family's rows and views at once before that.
 */
async function writeChangeFile(build: Build, record: BuildRecord): Promise<WrittenContent | null> {
  const { tx, cp, delivery, check, context } = build
  const target = contentTarget(build, record.writes)
  const out =
    delivery.channel === 'edi'
      ? new Change834Writer(target, check?.segmentsOf, (totals) => ({ envelope: envelopeOf(build), header: headerOf(build, totals) }))
      : new JsonDocumentWriter(target, jsonOpening(build))
  // Families the check held back whole (none of their members in the file), in the order found.
  const heldFamilies: string[] = []
  for await (const page of repo.changedFamilyPages(tx, delivery.id, FAMILY_PAGE)) {
    const subscriberIds = page.map((changed) => changed.subscriber_id)
    const changesOf = new Map(page.map((changed) => [changed.subscriber_id, changed]))
    // An 834 family's events it was held back with earlier come first (pre-send-check.ts).
    const earlier = check ? await heldBackEvents(tx, cp.id, delivery.id, subscriberIds) : new Map<string, string[]>()
    const told = await toldViews(tx, cp.id, subscriberIds)
    for (const family of await loadFamilies(tx, build.window, subscriberIds, { today: build.today, allEvents: true, cobraHistory: true, plans: context.plans })) {
      const changes = changesOf.get(family.subscriber.id)!
      // Its life events in this file, oldest first, each once: their codes name the loops; its latest transaction names them too.
      const eventIds = new Set([...(earlier.get(family.subscriber.id) ?? []), ...changes.event_ids])
      const events = [...eventIds].flatMap((id) => family.events.find((e) => e.id === id) ?? [])
      const latestTransactionId = changes.transaction_ids[changes.transaction_ids.length - 1]!
      const foundBefore = check?.found.length ?? 0
      const kept = record.keep(changeFileMembers(sendable(build, family), told, events, latestTransactionId, context), family, changes.transaction_ids)
      if (kept.length === 0 && check && check.found.length > foundBefore) heldFamilies.push(family.subscriber.id)
      for (const member of kept) await out.add(member)
    }
    await record.recordIfFull()
  }
  if (check && check.found.length > 0) {
    record.heldTransactions = await holdBackChangeFamilies(tx, cp.id, heldFamilies, record.transactionsOf, build.now)
    await recordHeldBack(tx, delivery.id, check.found)
  }
  // Nothing kept, nothing stored: a writer stores nothing before its first member loop.
  if (out.members === 0) return null
  return out.finish()
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
    const families = pages.next().then((page) => (page.done ? null : loadFamilies(tx, window, page.value, { cobraHistory: true, plans })))
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
      if (index % YIELD_EVERY === YIELD_EVERY - 1) await turnOfEventLoop()
    }
  }
}

// ---- Step 4: the content ----

/** A full file: counted, then composed and written page by page (composeFullFile). */
async function writeFullFile(build: Build, record: BuildRecord): Promise<WrittenContent | null> {
  const composed = await composeFullFile(build, record)
  if (!composed) return null
  const { delivery, check } = build
  if (delivery.channel !== 'edi') {
    const out = new JsonDocumentWriter(contentTarget(build, record.writes), jsonOpening(build))
    for await (const member of composed.members) await out.add(member)
    return { ...(await out.finish()), totals: composed.totals }
  }
  const out = new ChunkWriter(contentTarget(build, record.writes))
  for await (const chunk of write834(envelopeOf(build), headerOf(build, composed.totals), composed.members, check ? { segmentsOf: check.segmentsOf } : {})) await out.write(chunk)
  await out.flush()
  return { bytes: out.bytes, sha256: out.hash.digest('hex'), totals: composed.totals }
}

/** Where a delivery's content goes: its chunks, in the build's transaction. */
function contentTarget(build: Build, writes: BackgroundWrites): ContentTarget {
  return { tx: build.tx, deliveryId: build.delivery.id, ssn: build.deps.ssn, writes }
}

/** An api carrier's document opens with what the members are (see docs/decisions.md). */
function jsonOpening(build: Build): string {
  const { delivery, cp } = build
  return `{"kind":${JSON.stringify(delivery.kind)},"coverage_period_id":${JSON.stringify(cp.id)},"carrier_group_number":${JSON.stringify(cp.carrier_group_number)},"members":[`
}

function headerOf(build: Build, totals: WrittenContent['totals']): Edi834Header {
  const { delivery, cp, group, carrier } = build
  return {
    reference: delivery.id.replace(/-/g, '').slice(0, 30),
    action: delivery.kind === 'full' ? 'replace' : 'change',
    masterPolicyNumber: cp.carrier_group_number,
    effectiveDate: delivery.kind === 'full' ? cp.coverage_start_date : build.today,
    totals,
    sponsor: { name: group.organization_name, fein: group.fein, groupExternalIdentifier: group.external_identifier },
    payer: { name: carrier?.display_name ?? cp.carrier_name, carrierName: cp.carrier_name },
    brokers: build.producers.map((p) => ({ name: [p.first_name, p.last_name].filter(Boolean).join(' '), nationalProducerNumber: p.national_producer_number })),
  }
}

function envelopeOf(build: Build): Edi834Envelope {
  const { settings } = build.deps
  const receiver = build.cp.carrier_name.toUpperCase().slice(0, 15)
  return {
    senderQualifier: settings.ediSenderQualifier,
    senderId: settings.ediSenderId,
    receiverQualifier: 'ZZ',
    receiverId: receiver,
    applicationSenderCode: settings.ediSenderId,
    applicationReceiverCode: receiver,
    interchangeControlNumber: build.delivery.interchange_control_number ?? 0,
    usage: build.carrier?.sandbox ? 'T' : 'P',
    createdAt: build.now,
  }
}

// ---- Step 5: built, and the send queued; or skipped ----

async function finishBuild(build: Build, record: BuildRecord, content: WrittenContent): Promise<void> {
  const { tx, delivery, now } = build
  await repo.markBuilt(
    tx,
    delivery.id,
    {
      bytes: content.bytes,
      sha256: content.sha256,
      memberCount: record.memberCount,
      // A full file carries one installation transaction per family, written once it is sent.
      transactionCount: delivery.kind === 'full' ? content.totals.subscribers : null,
      heldTransactions: record.heldTransactions,
    },
    now,
  )
  await enqueueJob(tx, SEND_FILE_JOB, { file_delivery_id: delivery.id })
}

/**
 * A delivery with nothing to tell is skipped: no file, its transactions in sync. A change
 * delivery whose changes the carrier already holds (or that were undone before the file was made),
 * or a full file of a coverage period nobody is covered in yet.
 */
async function skipDelivery(tx: Tx, deliveryId: string, now: Date): Promise<void> {
  const coveragePeriodId = await repo.markSkipped(tx, deliveryId, now)
  await refreshFamilyStatuses(tx, { fileDeliveryId: deliveryId }, now)
  await scheduleTransactionDelivery(tx, coveragePeriodId, now, 0)
}
