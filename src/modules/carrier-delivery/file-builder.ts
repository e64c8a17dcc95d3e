import { createHash } from 'node:crypto'
import { sql, type Transaction } from 'kysely'
import type { Database, Db } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { uuidv7 } from '../../lib/ids.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { PRODUCT_LINES_ON_834 } from '../edi-834/edi-834.codes.js'
import type { Edi834Header, Edi834Member } from '../edi-834/edi-834.model.js'
import { write834 } from '../edi-834/edi-834.writer.js'
import type { CarrierSettings } from './carrier-settings.js'
import { SEND_FILE_JOB } from './carrier-jobs.js'
import { changeFileMembers, fullFileMembers, type FamilyChanges, type WrittenCoverage } from './edi-834-members.js'
import { countEnrolled, enrolledSubscriberPage, loadFamilies, type LoadedFamily } from './family-loader.js'

/** Families read per page; a page's members are written before the next is read. */
const FAMILY_PAGE = 150
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
 * goes. Text is gathered as text and turned into bytes once per chunk: one buffer per chunk
 * instead of one per write keeps the memory waiting for the garbage collector small.
 */
class ChunkWriter {
  private pendingText = ''
  private pendingBytes = 0
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
    this.pendingText += text
    this.pendingBytes += Buffer.byteLength(text, 'utf8')
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return
    const plain = Buffer.from(this.pendingText, 'utf8')
    this.pendingText = ''
    this.pendingBytes = 0
    this.hash.update(plain)
    this.bytes += plain.length
    const { data, keyId } = this.ssn.sealBytes(plain)
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
async function* allFamilies(tx: Tx, coveragePeriodId: string): AsyncGenerator<LoadedFamily> {
  const loadPage = async (after: string | null) => {
    const ids = await enrolledSubscriberPage(tx, coveragePeriodId, after, FAMILY_PAGE)
    return { ids, families: ids.length === 0 ? [] : await loadFamilies(tx, coveragePeriodId, ids) }
  }
  // The next page is asked for before this one is written: the database reads it while this
  // process composes and writes, so the two cores work at once instead of taking turns.
  let next = loadPage(null)
  for (;;) {
    const { ids, families } = await next
    if (ids.length === 0) return
    next = loadPage(ids[ids.length - 1]!)
    for (const [index, family] of families.entries()) {
      yield family
      // Writing a page runs on resolved promises only; without a turn of the event loop now and
      // then, the answers to the next page's queries would wait until this page is written.
      if (index % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve))
    }
  }
}

/**
 * Builds a delivery's content into chunks and records what it carried (coverage transmissions),
 * in one transaction, then queues the send. A build that failed part-way left nothing (the
 * transaction rolled back), so running it again starts clean; a delivery already built is not
 * built twice.
 */
export async function buildFileDelivery(deps: BuildDeps, deliveryId: string): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const delivery = await tx.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).forUpdate().executeTakeFirst()
    if (!delivery || delivery.sha256 !== null) return
    const cp = await tx.selectFrom('coverage_periods').selectAll().where('id', '=', delivery.coverage_period_id).executeTakeFirstOrThrow()
    const group = await tx.selectFrom('groups').selectAll().where('id', '=', cp.group_id).executeTakeFirstOrThrow()
    const producers = await tx.selectFrom('producers_of_record').selectAll().where('group_id', '=', group.id).orderBy('position').limit(2).execute()
    const carrier = deps.carriers.find(cp.carrier_name)
    const now = new Date()
    const today = now.toISOString().slice(0, 10)
    const controlNumber = delivery.interchange_control_number ?? 0
    const written: WrittenCoverage[] = []
    const writes = new BackgroundWrites()
    /** Records (and forgets) what was written so far: a full file's 200,000 coverages are never all held. */
    const recordTransmissions = async () => {
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
    }

    const out = new ChunkWriter(tx, delivery.id, deps.ssn, writes)

    // The families and, for a change file, what changed in each.
    let families: AsyncIterable<LoadedFamily>
    let totals: { subscribers: number; dependents: number }
    const changesOf = new Map<string, FamilyChanges['transactions'][number][]>()
    if (delivery.kind === 'full') {
      totals = await countEnrolled(tx, cp.id)
      families = allFamilies(tx, cp.id)
    } else {
      const transactions = await tx
        .selectFrom('member_transactions')
        .select(['id', 'kind', 'member_id', 'subscriber_id', 'qualifying_life_event_id'])
        .where('file_delivery_id', '=', delivery.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      for (const t of transactions) changesOf.set(t.subscriber_id, [...(changesOf.get(t.subscriber_id) ?? []), t])
      const loaded = await loadFamilies(tx, cp.id, [...changesOf.keys()])
      families = (async function* () {
        yield* loaded
      })()
      totals = { subscribers: 0, dependents: 0 }
    }
    // An 834 has no insurance line code for accident, critical illness or hospital indemnity
    // plans: those reach the carrier outside the file, so they are neither written nor recorded.
    const sendable = (family: LoadedFamily): LoadedFamily =>
      delivery.channel === 'edi' ? { ...family, coverages: family.coverages.filter((c) => PRODUCT_LINES_ON_834.includes(c.product_line)) } : family
    const membersOf = (loaded: LoadedFamily): Edi834Member[] => {
      const family = sendable(loaded)
      return delivery.kind === 'full'
        ? fullFileMembers(family, deps.ssn, cp.carrier_group_number)
        : changeFileMembers(family, { transactions: changesOf.get(family.subscriber.id) ?? [] }, deps.ssn, cp.carrier_group_number, today, written)
    }

    let memberCount = 0
    if (delivery.channel === 'edi') {
      // A change file's totals are known only once its members are composed: compose them first
      // (a change file is small); a full file streams.
      let members: AsyncIterable<Edi834Member> | Edi834Member[]
      if (delivery.kind === 'change') {
        const composed: Edi834Member[] = []
        for await (const family of families) composed.push(...membersOf(family))
        totals = { subscribers: composed.filter((m) => m.subscriber).length, dependents: composed.filter((m) => !m.subscriber).length }
        members = composed
      } else {
        members = (async function* () {
          for await (const family of families) {
            yield* membersOf(family)
            if (written.length >= TRANSMISSION_BATCH) await recordTransmissions()
          }
        })()
      }
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
      for await (const chunk of write834(envelope, header, members)) await out.write(chunk)
      memberCount = totals.subscribers + totals.dependents
    } else {
      // An api carrier receives a JSON document of the same members (see docs/decisions.md).
      await out.write(`{"kind":${JSON.stringify(delivery.kind)},"coverage_period_id":${JSON.stringify(cp.id)},"carrier_group_number":${JSON.stringify(cp.carrier_group_number)},"members":[`)
      let first = true
      for await (const family of families) {
        for (const member of membersOf(family)) {
          await out.write((first ? '' : ',') + JSON.stringify(member))
          first = false
          memberCount++
        }
        if (written.length >= TRANSMISSION_BATCH) await recordTransmissions()
      }
      await out.write(']}')
    }
    await out.flush()

    await recordTransmissions()
    await writes.drain()
    await tx
      .updateTable('file_deliveries')
      .set({
        // What the file was built from: a full file's transmissions are recorded after it is sent
        // from the coverages as of then (delivery-sent.ts).
        content_as_of: sql<Date>`transaction_timestamp()`,
        byte_size: out.bytes,
        sha256: out.hash.digest('hex'),
        member_count: memberCount,
        // A full file carries one installation transaction per family, written once it is sent.
        ...(delivery.kind === 'full' ? { transaction_count: totals.subscribers } : {}),
        updated_at: now,
      })
      .where('id', '=', delivery.id)
      .execute()
    await enqueueJob(tx, SEND_FILE_JOB, { file_delivery_id: delivery.id })
  })
}
