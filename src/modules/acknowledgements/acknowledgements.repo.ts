import type { Selectable } from 'kysely'
import type { AcknowledgementsTable, AcknowledgementStatus, Executor } from '../../db/schema.js'
import type { AccountScope } from '../../lib/actor.js'
import type { Acknowledgement } from './acknowledgements.schema.js'
import type { AcknowledgementInterchange } from './x12-ack.model.js'

type AcknowledgementRow = Selectable<AcknowledgementsTable>

/** What deciding on a posted acknowledgement needs of the delivery; undefined outside the scope. */
export async function findDeliveryForAcknowledgement(db: Executor, scope: AccountScope, id: string, lock = false) {
  let query = db
    .selectFrom('file_deliveries')
    .select(['id', 'account_id', 'channel', 'status', 'interchange_control_number', 'acknowledgement_status'])
    .where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  // Two acknowledgements posted at once must not both compute the status from a list missing the other.
  if (lock) query = query.forUpdate()
  return query.executeTakeFirst()
}

export async function insertAcknowledgement(db: Executor, row: Omit<AcknowledgementRow, 'model'> & { model: AcknowledgementInterchange }): Promise<AcknowledgementRow> {
  return db
    .insertInto('acknowledgements')
    .values({ ...row, model: JSON.stringify(row.model) })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Newest first: received_at, then id (uuidv7, so also in order of arrival). */
export async function listAcknowledgements(db: Executor, fileDeliveryId: string): Promise<AcknowledgementRow[]> {
  return db.selectFrom('acknowledgements').selectAll().where('file_delivery_id', '=', fileDeliveryId).orderBy('received_at', 'desc').orderBy('id', 'desc').execute()
}

export async function setAcknowledgementStatus(db: Executor, fileDeliveryId: string, status: AcknowledgementStatus, now: Date): Promise<void> {
  await db.updateTable('file_deliveries').set({ acknowledgement_status: status, updated_at: now }).where('id', '=', fileDeliveryId).execute()
}

export function presentAcknowledgement(row: AcknowledgementRow, withRaw: boolean): Acknowledgement {
  const model = row.model as AcknowledgementInterchange
  return {
    id: row.id,
    file_delivery_id: row.file_delivery_id,
    kind: row.kind,
    status: row.status,
    source: row.source,
    received_at: row.received_at.toISOString(),
    carrier_control_number: model.envelope.controlNumber,
    ta1s: model.ta1s.map((ta1) => ({ acknowledged_control_number: ta1.acknowledgedControlNumber, status: ta1.status, note: ta1.note })),
    functional_groups: model.groups.map((group) => ({
      functional_id: group.functionalId,
      acknowledged_group_control_number: group.acknowledgedGroupControlNumber,
      version: group.version,
      transaction_sets: group.transactionSets.map((set) => ({
        transaction_set_id: set.transactionSetId,
        control_number: set.controlNumber,
        implementation_reference: set.implementationReference,
        segments: set.segments.map((segment) => ({
          segment_id: segment.segmentId,
          position: segment.position,
          loop_id: segment.loopId,
          error: segment.error,
          elements: segment.elements.map((element) => ({
            position: element.position,
            component_position: element.componentPosition,
            repetition: element.repetition,
            data_element: element.dataElement,
            error: element.error,
          })),
        })),
        status: set.status,
        errors: set.errors,
      })),
      status: group.status,
      counts: group.counts,
      errors: group.errors,
    })),
    ...(withRaw ? { raw: row.raw } : {}),
  }
}
