/**
 * How a carrier's TA1 or 999 enters the service, whoever brings it: an operator posting it, the
 * inbound pickup job finding it in the carrier's directory or SFTP path, or a sandbox carrier
 * answering the 834 it just read. The receiver matches it to the delivery by the carrier and the
 * control numbers it acknowledges (ISA13 for a TA1; GS06 and ST02 for a 999) and keeps it either
 * way: an acknowledgement it cannot read or match is stored as such and reported, never dropped.
 */

/** How an acknowledgement came. */
export type AcknowledgementSource = 'operator' | 'inbound' | 'sandbox'

export interface AcknowledgementArrival {
  /** The carrier that sent it (carrier_name): control numbers are unique per carrier only. */
  carrierName: string
  /** The raw X12 text as received. */
  text: string
  source: AcknowledgementSource
  /** The inbound file's name, when it came as a file (kept for the operator's report). */
  fileName?: string | null
  receivedAt?: Date
}

export interface ReceivedAcknowledgement {
  /** The stored acknowledgement's id. */
  id: string
  /** matched: linked to its delivery; unmatched: no delivery of that carrier has those numbers; malformed: not a readable TA1/999. */
  outcome: 'matched' | 'unmatched' | 'malformed'
  fileDeliveryId: string | null
}

export interface AcknowledgementReceiver {
  /** Stores and applies one acknowledgement; throws only when the database fails. */
  receive(arrival: AcknowledgementArrival): Promise<ReceivedAcknowledgement>
}

/**
 * Matches again what a receiver kept unmatched: an acknowledgement a fast carrier sent back before
 * its 834 was marked sent (the transport delivers first, the delivery is marked sent after) was
 * kept unmatched then and answers it now. The inbound pickup asks on each run.
 */
export interface UnmatchedAcknowledgements {
  /** Tries the carrier's unmatched acknowledgements received since `since` again; answers how many are matched now. */
  rematchUnmatched(carrierName: string, since: Date): Promise<number>
}
