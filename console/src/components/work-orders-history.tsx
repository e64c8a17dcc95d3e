import { formatDateTime } from '../lib/format'
import type { WorkOrder } from './groups-common'
import { Badge, Empty } from './status'

/** The history of a work order, oldest first as the service keeps it: status, when, by whom, why. */
export function WorkOrderHistory({ history, headingLevel = 2 }: { history: WorkOrder['history']; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <section aria-label="History of the work order">
      <Heading>History</Heading>
      {history.length === 0 ? (
        <Empty>No changes recorded yet.</Empty>
      ) : (
        <ol className="thread">
          {history.map((entry, index) => (
            <li key={`${entry.at}-${index}`}>
              <div className="meta">
                <Badge value={entry.status} /> · <time dateTime={entry.at}>{formatDateTime(entry.at)}</time> · by {entry.by}
              </div>
              <p className="work-orders-message">{entry.message}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}
