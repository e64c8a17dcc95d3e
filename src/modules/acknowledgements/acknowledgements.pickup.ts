import type { FastifyBaseLogger } from 'fastify'
import type { AcknowledgementReceiver, UnmatchedAcknowledgements } from './acknowledgement-receiver.js'
import { INBOUND_FILE_LIMIT, type AcknowledgementInbox } from './acknowledgements.inbox.js'

/** How often the general worker looks into the inbound locations: carriers answer within hours, and each look may open an SFTP connection. */
export const PICKUP_CHECK_EVERY_MS = 60_000

/**
 * How far back the pickup tries unmatched acknowledgements again. One that came before its 834 was
 * marked sent is matched on the next run; days leave room for a worker that was down meanwhile,
 * and the window keeps an acknowledgement no delivery will ever answer from being tried forever.
 */
export const REMATCH_WINDOW_MS = 3 * 24 * 3_600_000

export type PickupReceiver = AcknowledgementReceiver & UnmatchedAcknowledgements

export interface PickupResult {
  /** Files stored (or found stored already) and moved into processed/. */
  received: number
  /** Files left where they are for the next poll (reading, storing or moving failed; too large). */
  left: number
  /** Acknowledgements kept unmatched earlier and matched now (REMATCH_WINDOW_MS). */
  rematched: number
}

/**
 * Picks up every waiting file of each carrier's inbox: receives it through the receiver (source
 * `inbound`, whatever it holds: a file that is not a readable acknowledgement is kept as
 * malformed), and only then moves it into processed/. A file that cannot be stored stays for the
 * next poll; one stored whose move failed is received again next time, which answers the stored
 * one (the same text is stored once), and is moved then. One carrier's unreachable server does
 * not keep the others from being read.
 *
 * Then each carrier's acknowledgements kept unmatched in the last REMATCH_WINDOW_MS are tried
 * again: a fast carrier's answer can arrive between the transport delivering the 834 and the
 * delivery being marked sent, when no sent delivery has its numbers yet; its file is in processed/
 * by now, so only the stored copy can still find it.
 */
export async function pickUpAcknowledgements(
  receiver: PickupReceiver,
  inboxes: readonly { carrierName: string; inbox: AcknowledgementInbox }[],
  options: { now: () => Date; log?: FastifyBaseLogger | undefined },
): Promise<PickupResult> {
  const result: PickupResult = { received: 0, left: 0, rematched: 0 }
  for (const { carrierName, inbox } of inboxes) {
    await pickUpInbox(receiver, carrierName, inbox, result, options)
    try {
      result.rematched += await receiver.rematchUnmatched(carrierName, new Date(options.now().getTime() - REMATCH_WINDOW_MS))
    } catch (error) {
      options.log?.error({ err: error, carrier_name: carrierName }, 'unmatched acknowledgements not tried again: left for the next poll')
    }
  }
  return result
}

/** One carrier's waiting files, counted into `result`. */
async function pickUpInbox(
  receiver: AcknowledgementReceiver,
  carrierName: string,
  inbox: AcknowledgementInbox,
  result: PickupResult,
  options: { now: () => Date; log?: FastifyBaseLogger | undefined },
): Promise<void> {
  let session
  try {
    session = await inbox.open()
  } catch (error) {
    options.log?.error({ err: error, carrier_name: carrierName, inbox: inbox.describe() }, 'acknowledgement inbox could not be opened')
    return
  }
  try {
    for (const file of await session.list()) {
      if (file.size > INBOUND_FILE_LIMIT) {
        result.left += 1
        options.log?.warn({ carrier_name: carrierName, file_name: file.name, bytes: file.size }, 'inbound file too large to be an acknowledgement: left in place')
        continue
      }
      try {
        const text = await session.read(file.name)
        await receiver.receive({ carrierName, text, source: 'inbound', fileName: file.name, receivedAt: options.now() })
        await session.markProcessed(file.name, options.now())
        result.received += 1
      } catch (error) {
        result.left += 1
        options.log?.error({ err: error, carrier_name: carrierName, file_name: file.name }, 'inbound acknowledgement not processed: left for the next poll')
      }
    }
  } catch (error) {
    options.log?.error({ err: error, carrier_name: carrierName, inbox: inbox.describe() }, 'acknowledgement inbox could not be read')
  } finally {
    await session.close().catch(() => undefined)
  }
}

export interface PickupCheckOptions {
  clock?: () => Date
  everyMs?: number
  log?: FastifyBaseLogger
}

/** The scheduled pickup on the general worker's polls (src/main/workers.ts), at most every PICKUP_CHECK_EVERY_MS. */
export function createAcknowledgementPickupCheck(
  receiver: PickupReceiver,
  inboxes: readonly { carrierName: string; inbox: AcknowledgementInbox }[],
  options: PickupCheckOptions = {},
): () => Promise<void> {
  const clock = options.clock ?? (() => new Date())
  const everyMs = options.everyMs ?? PICKUP_CHECK_EVERY_MS
  let lastRun: number | undefined
  return async () => {
    if (inboxes.length === 0) return
    const now = clock()
    if (lastRun !== undefined && now.getTime() - lastRun < everyMs) return
    lastRun = now.getTime()
    const result = await pickUpAcknowledgements(receiver, inboxes, { now: clock, log: options.log })
    if (result.received > 0 || result.left > 0 || result.rematched > 0) options.log?.info(result, 'acknowledgements picked up')
  }
}
