import { DomainError } from '../../lib/domain-error.js'
import type { AcknowledgementParseError } from './x12-ack.errors.js'

export type AcknowledgementErrorCode = 'acknowledgement_malformed' | 'acknowledgement_not_for_this_delivery' | 'acknowledgement_not_expected'

/** The parser's message names segments and positions, never an element's value (x12-ack.errors.ts). */
export const acknowledgementMalformed = (error: AcknowledgementParseError) =>
  new DomainError<AcknowledgementErrorCode>('acknowledgement_malformed', `The body is not a TA1 or 999 that can be read (${error.code}): ${error.message}.`)

/** `which` names the number that differs and both values: control numbers, never personal data. */
export const acknowledgementNotForThisDelivery = (which: string) =>
  new DomainError<AcknowledgementErrorCode>('acknowledgement_not_for_this_delivery', `The acknowledgement answers another file: ${which}. Nothing was stored.`)

export const acknowledgementNotExpected = (reason: 'api' | 'unsent') =>
  new DomainError<AcknowledgementErrorCode>(
    'acknowledgement_not_expected',
    reason === 'api'
      ? 'This delivery is an API submission (channel api): carriers answer 834 files only with TA1 and 999 acknowledgements.'
      : 'This 834 file has not been sent yet (its status is not sent): there is nothing for the carrier to acknowledge.',
  )
