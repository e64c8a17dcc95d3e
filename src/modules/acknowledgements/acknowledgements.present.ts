import type { Acknowledgement, ReceivedAcknowledgementView } from './acknowledgements.schema.js'
import type { AcknowledgementRow } from './acknowledgements.repo.js'
import type { AcknowledgementInterchange } from './x12-ack.model.js'

/** What the carrier's acknowledgement says, as the API spells it (codes and positions, never copied values). */
function contentOf(model: AcknowledgementInterchange) {
  return {
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
  }
}

/** A matched acknowledgement as its delivery lists it; `raw` for operators only. */
export function presentAcknowledgement(row: AcknowledgementRow, withRaw: boolean): Acknowledgement {
  if (row.outcome !== 'matched' || row.file_delivery_id === null || row.kind === null || row.status === null) {
    throw new Error(`acknowledgement ${row.id} is ${row.outcome}: only matched ones belong to a delivery`)
  }
  return {
    id: row.id,
    file_delivery_id: row.file_delivery_id,
    kind: row.kind,
    status: row.status,
    source: row.source,
    received_at: row.received_at.toISOString(),
    ...contentOf(row.model as AcknowledgementInterchange),
    ...(withRaw ? { raw: row.raw } : {}),
  }
}

/** Any acknowledgement received, for the operators' report (GET /acknowledgements). */
export function presentReceived(row: AcknowledgementRow): ReceivedAcknowledgementView {
  const model = row.model as AcknowledgementInterchange | null
  return {
    id: row.id,
    outcome: row.outcome,
    problem: row.problem,
    carrier_name: row.carrier_name,
    file_name: row.file_name,
    file_delivery_id: row.file_delivery_id,
    kind: row.kind,
    status: row.status,
    source: row.source,
    received_at: row.received_at.toISOString(),
    ...(model ? contentOf(model) : { carrier_control_number: null, ta1s: [], functional_groups: [] }),
    raw: row.raw,
  }
}
