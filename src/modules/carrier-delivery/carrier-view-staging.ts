import type { Executor } from '../../db/schema.js'
import { Utf8Accumulator } from '../../lib/utf8-accumulator.js'
import { insertStagedViews } from './carrier-views.repo.js'
import type { CarrierMemberView } from './edi-834-members.js'

/**
 * A delivery's carrier views between its build and its send (carrier_view_batches): written with
 * its content, taken into carrier_views once the carrier has the file, dropped if it never gets
 * there (carrier-delivery.service.ts, settle and send; the SQL is in carrier-views.repo.ts).
 * Staged as JSON documents of many members each, so a full file's 125,000 views are a few
 * hundred rows to write while the file waits, not 125,000.
 */

/** Members per staged document: about half a megabyte of JSON. */
const VIEWS_PER_DOCUMENT = 1000

/**
 * Gathers views into documents as JSON text, one member at a time: each view is serialised as it
 * comes and its objects die young, instead of a thousand members' records waiting in memory (and
 * being promoted to the old generation, which is what made a full file's memory grow).
 *
 * A staged view has short keys (a full file stages some 40 MB of them): `m` member id, `s`
 * subscriber id, `r` CarrierRecord[], `d` member digest.
 */
export class StagedViews {
  private readonly json = new Utf8Accumulator(1024 * 1024)
  private count = 0
  private seq = 0

  constructor(private readonly deliveryId: string) {}

  add(view: CarrierMemberView): void {
    this.json.append(this.count === 0 ? '[' : ',')
    this.json.append(JSON.stringify({ m: view.memberId, s: view.subscriberId, r: view.records, d: view.digest }))
    this.count++
  }

  /** Whether a document is ready to be written. */
  get full(): boolean {
    return this.count >= VIEWS_PER_DOCUMENT
  }

  /** Writes what was gathered as the next document (nothing if empty). */
  async write(db: Executor): Promise<void> {
    if (this.count === 0) return
    this.json.append(']')
    const views = this.json.text()
    this.json.clear()
    this.count = 0
    await insertStagedViews(db, this.deliveryId, this.seq++, views)
  }
}
