import { createHash } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import { turnOfEventLoop } from '../../lib/event-loop.js'
import { enrolledSubscriberIds } from '../members/index.js'
import type { BatchWrites } from './batch-writes.js'
import { censusSubscriberIdentity } from './census-members.js'
import * as matching from './census-matching.repo.js'
import type { CensusSource } from './census-source.js'
import * as repo from './census.repo.js'
import { ruleKeys } from './match.js'

/**
 * The census's first reading and the pairing of subscribers (census-matching.repo.ts): each census
 * subscriber's match keys, then each platform subscriber's, then SQL pairs them over everyone.
 * Neither side's list is held here, only a batch at a time.
 */

export interface CensusKeys {
  subscriberCount: number
  /** What "the same census again" compares: an 834's text, or the subscribers as JSON.stringify of the array gives them. */
  contentSha256: string
}

export async function readCensusKeys(tx: Executor, source: CensusSource, hashSsn: (digits: string) => string, writes: BatchWrites, batchSize: number): Promise<CensusKeys> {
  const digest = createHash('sha256').update(source.format).update('\n')
  const digestSubscribers = source.text === undefined && source.contentSha256 === undefined
  if (source.text !== undefined) digest.update(source.text)
  if (digestSubscribers) digest.update('[')
  let subscriberCount = 0
  for await (const batch of source.batches(batchSize)) {
    const first = subscriberCount
    subscriberCount += batch.length
    // The separator fed on its own: joined to the subscriber's text it made a copy of the whole census.
    if (digestSubscribers) batch.forEach((subscriber, offset) => (first + offset === 0 ? digest : digest.update(',')).update(JSON.stringify(subscriber)))
    // The platform's keys are read and written meanwhile: let their answers in (lib/event-loop.ts).
    await turnOfEventLoop()
    const keys = batch.map((subscriber, offset) => ({ position: first + offset, keys: ruleKeys(censusSubscriberIdentity(subscriber, hashSsn)) }))
    await writes.start(() => matching.insertCarrierKeys(tx, keys))
  }
  await writes.done()
  if (digestSubscribers) digest.update(']')
  return { subscriberCount, contentSha256: source.contentSha256 ?? digest.digest('hex') }
}

/**
 * The coverage period's enrolled subscribers' keys, in id order (the order the in-memory matcher
 * read them). Independent of the census's keys: the two are read at the same time, this one
 * mostly the database's work while the census's is mostly this process's parsing.
 */
export async function readPlatformKeys(tx: Executor, coveragePeriodId: string, writes: BatchWrites, batchSize: number): Promise<void> {
  let ord = 0
  let page: string[] = []
  const flush = async () => {
    const identities = await repo.subscriberIdentities(tx, page)
    page = []
    const keys = identities.map((row) => ({
      ord: ord++,
      memberId: row.id,
      keys: ruleKeys({ kind: 'subscriber', relationship: null, carrierMemberId: row.carrier_member_id, ssnHash: row.ssn_hash, firstName: row.first_name, lastName: row.last_name, birthDate: row.birth_date }),
    }))
    await writes.start(() => matching.insertPlatformKeys(tx, keys))
  }
  for await (const id of enrolledSubscriberIds(tx, coveragePeriodId)) {
    page.push(id)
    if (page.length === batchSize) await flush()
  }
  await flush()
  await writes.done()
}
