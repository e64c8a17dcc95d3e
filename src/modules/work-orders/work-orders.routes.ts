import type { App } from '../../http/app-types.js'
import { listOrCsvResponse, sendCsv, wantsCsv } from '../../http/csv-response.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import type { WorkOrderQueueService } from './work-order-queue.service.js'
import type { WorkOrderTransitionsService } from './work-order-transitions.service.js'
import {
  WorkOrderAssignmentBody,
  WorkOrderCountsQuery,
  WorkOrderCountsResponse,
  WorkOrderList,
  WorkOrderResponse,
  WorkOrdersQuery,
  WorkOrderTransitionBody,
} from './work-orders.schema.js'
import { WORK_ORDER_CSV_COLUMNS } from './work-orders.csv.js'
import type { WorkOrdersService } from './work-orders.service.js'

const COMPLETE_SETUP_RULES =
  'Checks that the coverage period has at least one plan, that at least one subscriber of the group has a qualifying ' +
  "life event on it, and that the group's producer commission splits sum to 100 (when it has producers); otherwise " +
  '422 setup_incomplete lists every gap at once in errors[], each with a code (no_plans, no_enrolled_subscribers, ' +
  'invalid_commission_splits, no_coverage_period, coverage_period_expired). A renewal (the group already has an ' +
  'installed coverage period: the next plan year, or a move to another carrier) needs no subscriber with a life event: ' +
  'its setup may be completed before any, and open_enrollment events carry the new elections afterwards. ' +
  'Then, in one transaction: opens the work order for the operations ' +
  'team (201), moves the coverage period to state configuration with setup_completed_at, marks the installment ' +
  'setup_completed, and raises an error resource (parameter primary_care_provider, severity failure, source api, ' +
  'assignee partner) for every member elected into an HMO medical plan of a carrier that requires a primary care ' +
  'provider and without a provider selection. A repeated call answers 200 with the same work order and changes nothing; ' +
  'simultaneous calls open one work order.'

/** The queue answers JSON, or CSV when asked for (Accept: text/csv), each media type documented. */
const workOrderListResponse = listOrCsvResponse(
  WorkOrderList,
  'One page of work orders (oldest opened first unless sort says otherwise; see the Total and Link headers), or with Accept: text/csv every matching work order as CSV',
  'Every matching work order, one row each after a header row (RFC 4180, UTF-8 with a byte order mark), streamed: ' +
    `${WORK_ORDER_CSV_COLUMNS.map(([header]) => header).join(', ')}. Age in days with one decimal; timestamps ISO 8601 UTC.`,
)

export function workOrdersRoutes(app: App, workOrders: WorkOrdersService, transitions: WorkOrderTransitionsService, queue: WorkOrderQueueService): void {
  const tags = ['Work orders']
  const responses = {
    201: { ...WorkOrderResponse, description: 'The work order, opened by this call' },
    200: { ...WorkOrderResponse, description: 'The work order opened by an earlier call; nothing changed' },
  }

  app.post(
    '/coverage_periods/:id/complete_setup',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'completeCoveragePeriodSetup',
        summary: 'Complete the setup (installation step 7)',
        description: `${COMPLETE_SETUP_RULES} Follow the work order with GET /coverage_periods/{id}/work_order.`,
        tags,
        params: IdParams,
        response: { ...responses, ...problemResponses('setup_incomplete', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      const { created, workOrder } = await workOrders.completeSetup(requireActor(request), request.params.id)
      return reply.code(created ? 201 : 200).send({ work_order: workOrder })
    },
  )

  app.post(
    '/group_installments/:id/complete_setup',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'completeGroupInstallmentSetup',
        summary: "Complete the setup of an installment's coverage period (step 7)",
        // The rules are described once, on the coverage period's operation, to keep openapi.json within its size budget.
        description:
          'The same as POST /coverage_periods/{id}/complete_setup (the rules and answers are described there) for the coverage period ' +
          'linked to the installment; 422 setup_incomplete (code no_coverage_period) while it has none.',
        tags,
        params: IdParams,
        response: { ...responses, ...problemResponses('setup_incomplete', 'group_installment_not_found') },
      },
    },
    async (request, reply) => {
      const { created, workOrder } = await workOrders.completeInstallmentSetup(requireActor(request), request.params.id)
      return reply.code(created ? 201 : 200).send({ work_order: workOrder })
    },
  )

  app.get(
    '/coverage_periods/:id/work_order',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getCoveragePeriodWorkOrder',
        summary: 'Get the work order of a coverage period',
        description:
          'The work order opened when the setup was completed, with its status and the history of every change (who, when, ' +
          'message). 404 work_order_not_found until the setup is completed.',
        tags,
        params: IdParams,
        response: { 200: WorkOrderResponse, ...problemResponses('coverage_period_not_found', 'work_order_not_found') },
      },
    },
    async (request) => ({ work_order: await workOrders.getWorkOrder(requireActor(request), request.params.id) }),
  )

  app.get(
    '/work_orders',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'listWorkOrders',
        summary: "The operations team's queue of work orders (operators)",
        description:
          "Every account's work orders, paginated; the filters combine. A wrong parameter answers 422 validation_failed naming it " +
          '(assigned_user_id=me without a console session: code no_signed_in_user). With `Accept: text/csv` (preferred over JSON by ' +
          'its q-value; JSON wins ties and */*) the answer is every matching work order, not one page, as a CSV file in the order of ' +
          '`sort`, streamed from one consistent snapshot; `page` and `per_page` are then ignored.',
        tags: ['Operator', ...tags],
        querystring: WorkOrdersQuery,
        response: { 200: workOrderListResponse, ...problemResponses('forbidden', 'validation_failed') },
      },
    },
    async (request, reply) => {
      const { page, per_page, sort, ...filters } = request.query
      if (wantsCsv(request)) return sendCsv(reply, queue.exportCsv(requireActor(request), filters, sort), 'work-orders')
      const pageReq = pageRequest({ page, per_page })
      const { items, total } = await queue.list(requireActor(request), filters, sort, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { work_orders: items }
    },
  )

  app.get(
    '/work_orders/counts',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'countWorkOrders',
        summary: 'How many work orders the queue holds, per status (operators)',
        description: 'The work orders matching the filters of GET /work_orders, counted in total and per status.',
        tags: ['Operator', ...tags],
        querystring: WorkOrderCountsQuery,
        response: { 200: WorkOrderCountsResponse, ...problemResponses('forbidden', 'validation_failed') },
      },
    },
    async (request) => ({ counts: await queue.counts(requireActor(request), request.query) }),
  )

  app.get(
    '/work_orders/:id',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'getWorkOrder',
        summary: 'Get a work order (operators)',
        description: 'The work order with its history and the statuses it can move to.',
        tags: ['Operator', ...tags],
        params: IdParams,
        response: { 200: WorkOrderResponse, ...problemResponses('forbidden', 'work_order_not_found') },
      },
    },
    async (request) => ({ work_order: await queue.get(request.params.id) }),
  )

  app.put(
    '/work_orders/:id/assignment',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'assignWorkOrder',
        summary: 'Assign a work order to an operator user, or unassign it (operators)',
        description:
          'user_id must be an active user of a service account, else 422 at /assignment/user_id (code unknown_user, ' +
          'user_deactivated or not_an_operator_user); a completed or cancelled work order cannot be assigned (422, code ' +
          'work_order_closed at /assignment/user_id), only unassigned. null unassigns. The same assignee again changes nothing. A change is ' +
          'audited (work_order.assigned or .unassigned) and moves updated_at, not status_changed_at; history[] is unchanged.',
        tags: ['Operator', ...tags],
        params: IdParams,
        body: WorkOrderAssignmentBody,
        response: {
          200: WorkOrderResponse,
          ...problemResponses('forbidden', 'work_order_not_found', 'validation_failed'),
        },
      },
    },
    async (request) => ({ work_order: await queue.assign(requireActor(request), request.params.id, request.body.assignment) }),
  )

  app.post(
    '/work_orders/:id/transitions',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'transitionWorkOrder',
        summary: 'Move a work order to another status (operators)',
        description:
          'open → in_progress → submitted ⇄ needs_information → completed, or cancelled before completion; any other move answers ' +
          '422 work_order_transition_not_allowed naming the allowed statuses. Every move is kept in history[] (who, when, message) ' +
          'and emits work_order.status_changed. The coverage period follows by itself: submitted moves it to test and sends the ' +
          'group to the carrier (a full 834 file for an edi carrier, a submission for an api carrier, nothing for a manual one); ' +
          "completed needs the carrier's carrier_group_number (unless the coverage period has one) and moves it to production " +
          'with installed_at, marks the installment installed and, when the carrier supports member management, moves the group ' +
          'to the member_management phase (a renewal finds it there already and keeps it). Each coverage period state change ' +
          'emits coverage_period.state_changed. The work order of an expired coverage period can no longer be submitted or ' +
          'completed (422 work_order_transition_not_allowed, code coverage_period_expired).',
        tags: ['Operator', ...tags],
        params: IdParams,
        body: WorkOrderTransitionBody,
        response: {
          200: { ...WorkOrderResponse, description: 'The work order after the move' },
          ...problemResponses('forbidden', 'work_order_not_found', 'work_order_transition_not_allowed', 'carrier_group_number_required'),
        },
      },
    },
    async (request) => ({ work_order: await transitions.transition(requireActor(request), request.params.id, request.body) }),
  )
}
