import type { Schema } from '../api/client'
import { everyValueOf } from '../lib/enums'
import { formatDate, formatDateTime, words } from '../lib/format'
import { isNotFound } from '../lib/problems'
import { Badge } from './status'

/**
 * What the group and work order pages share: the resource types as the published contract
 * describes them, work order statuses, and the facts of a coverage period.
 */
export type Group = Schema<'Group'>
export type CoveragePeriod = Schema<'CoveragePeriod'>
export type WorkOrder = Schema<'WorkOrder'>
export type WorkOrderStatus = WorkOrder['status']
export type Carrier = Schema<'Carrier'>

/** Every work order status, in the order of its life cycle (the contract's union keeps it complete). */
export const WORK_ORDER_STATUSES = everyValueOf<WorkOrderStatus>()(['open', 'in_progress', 'submitted', 'needs_information', 'completed', 'cancelled'])

/** A request whose 404 means "none yet" (a coverage period's work order before setup). */
export async function orNullOn404<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load
  } catch (error) {
    if (isNotFound(error)) return null
    throw error
  }
}

export function dateRange(start: string | null, end: string | null): string {
  if (!start && !end) return '—'
  return `${formatDate(start)} – ${end ? formatDate(end) : 'open-ended'}`
}

/** The facts of a coverage period as a description list. */
export function CoveragePeriodFacts({ period, carrierLabel }: { period: CoveragePeriod; carrierLabel?: string | undefined }) {
  return (
    <dl className="facts">
      <dt>External id</dt>
      <dd>{period.external_identifier}</dd>
      <dt>State</dt>
      <dd>
        <Badge value={period.state} />
      </dd>
      <dt>Carrier</dt>
      <dd>
        {carrierLabel ?? period.carrier_name} ({words(period.distribution_format)})
      </dd>
      <dt>Coverage</dt>
      <dd>{dateRange(period.coverage_start_date, period.coverage_end_date)}</dd>
      <dt>Open enrollment</dt>
      <dd>{dateRange(period.open_enrollment_start_date, period.open_enrollment_end_date)}</dd>
      <dt>Carrier group number</dt>
      <dd>{period.carrier_group_number ?? 'Not yet known'}</dd>
      <dt>Setup completed</dt>
      <dd>{formatDateTime(period.setup_completed_at)}</dd>
      <dt>Installed</dt>
      <dd>{formatDateTime(period.installed_at)}</dd>
    </dl>
  )
}

/** A producer of record in one line: name, agency or independent, split. */
export function producerLine(producer: Group['producers_of_record'][number]): string {
  const name = [producer.first_name, producer.last_name].filter(Boolean).join(' ')
  const agency = producer.agency ? producer.agency.name : 'independent'
  const writing = producer.writing_producer ? ', writing producer' : ''
  return `${name} (${agency}; ${producer.commission_split}% commission${writing})`
}
