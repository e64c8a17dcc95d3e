import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { httpError } from '../../http/problem.js'
import { publicProblemResponses } from '../../http/schemas.js'

const Status = (value: string, description: string) =>
  Type.Object({ status: Type.Literal(value) }, { additionalProperties: false, description, examples: [{ status: value }] })

/**
 * A probe's own timeout is often 1-2 s; a database that takes longer to answer `select 1` (an
 * unreachable host while the pool waits DATABASE_CONNECT_TIMEOUT_MS) is not ready either, and
 * saying so in time beats a probe that times out without an answer.
 */
export const READINESS_TIMEOUT_MS = 2000

async function withinReadinessTimeout(ping: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS)
  })
  // The ping left behind still ends (the pool's own timeout); its failure is already answered.
  ping.catch(() => {})
  try {
    await Promise.race([ping, timeout])
  } finally {
    clearTimeout(timer)
  }
}

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
        await withinReadinessTimeout(pingDatabase())
      } catch (error) {
        request.log.error({ err: error }, 'readiness check failed')
        throw httpError('service_unavailable', 'The database is not reachable.')
      }
      return { status: 'ready' as const }
    },
  )
}
