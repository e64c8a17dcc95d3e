import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { httpError } from '../../http/problem.js'
import { publicProblemResponses } from '../../http/schemas.js'

const Status = (value: string, description: string) =>
  Type.Object({ status: Type.Literal(value) }, { additionalProperties: false, description, examples: [{ status: value }] })

/** Probes for orchestrators: no credentials, no rate limit, nothing to leak. */
export function healthRoutes(app: App, pingDatabase: () => Promise<void>): void {
  app.get(
    '/healthz',
    {
      config: { auth: 'none' },
      // Probes arrive every few seconds: their access lines would drown the log.
      logLevel: 'warn',
      schema: {
        operationId: 'getLiveness',
        summary: 'Liveness: the process is up',
        tags: ['Health'],
        security: [],
        response: { 200: Status('ok', 'The process is up'), ...publicProblemResponses() },
      },
    },
    async () => ({ status: 'ok' as const }),
  )

  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      logLevel: 'warn',
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers',
        tags: ['Health'],
        security: [],
        response: { 200: Status('ready', 'The database answers'), ...publicProblemResponses('service_unavailable') },
      },
    },
    async (request) => {
      try {
        await pingDatabase()
      } catch (error) {
        request.log.error({ err: error }, 'readiness check failed')
        throw httpError('service_unavailable', 'The database is not reachable.')
      }
      return { status: 'ready' as const }
    },
  )
}
