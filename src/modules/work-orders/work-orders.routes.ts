import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { WorkOrderResponse } from './work-orders.schema.js'
import type { WorkOrdersService } from './work-orders.service.js'

const COMPLETE_SETUP_RULES =
  'Checks that the coverage period has at least one plan, that at least one subscriber of the group has a qualifying ' +
  "life event on it, and that the group's producer commission splits sum to 100 (when it has producers); otherwise " +
  '422 setup_incomplete lists every gap at once in errors[], each with a code (no_plans, no_enrolled_subscribers, ' +
  'invalid_commission_splits, no_coverage_period). Then, in one transaction: opens the work order for the operations ' +
  'team (201), moves the coverage period to state configuration with setup_completed_at, marks the installment ' +
  'setup_completed, and raises an error resource (parameter primary_care_provider, severity failure, source api, ' +
  'assignee partner) for every member elected into an HMO medical plan of a carrier that requires a primary care ' +
  'provider and without a provider selection. A repeated call answers 200 with the same work order and changes nothing; ' +
  'simultaneous calls open one work order.'

export function workOrdersRoutes(app: App, workOrders: WorkOrdersService): void {
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
        description: `The same as POST /coverage_periods/{id}/complete_setup for the coverage period linked to the installment; 422 setup_incomplete (code no_coverage_period) while it has none. ${COMPLETE_SETUP_RULES}`,
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
}
