import type { Db, JobRow } from '../../db/schema.js'
import type { App } from '../../http/app-types.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { httpError } from '../../http/problem.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { findJob, listAttempts, listJobs } from '../../jobs/jobs.repo.js'
import { JobList, JobResponse, JobsQuery } from './jobs.schema.js'

function presentJob(row: JobRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    run_at: row.run_at.toISOString(),
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  }
}

/** Operators inspect the outbox: what is queued, what failed for good and why. Payloads stay hidden. */
export function jobsRoutes(app: App, db: Db): void {
  app.get(
    '/jobs',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'listJobs',
        summary: 'List background jobs (operators)',
        description: 'Newest first. A job that used all its attempts stays here with status failed and its last error.',
        tags: ['Operator'],
        querystring: JobsQuery,
        response: { 200: JobList, ...problemResponses('forbidden', 'validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await listJobs(db, { status: request.query.status, name: request.query.name }, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { jobs: items.map(presentJob) }
    },
  )

  app.get(
    '/jobs/:id',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'getJob',
        summary: 'Get a background job with every attempt (operators)',
        tags: ['Operator'],
        params: IdParams,
        response: { 200: JobResponse, ...problemResponses('forbidden', 'not_found') },
      },
    },
    async (request) => {
      const job = await findJob(db, request.params.id)
      if (!job) throw httpError('not_found', 'No job has this id.')
      const attempts = await listAttempts(db, job.id)
      return {
        job: {
          ...presentJob(job),
          attempt_history: attempts.map((a) => ({
            attempt: a.attempt,
            worker_id: a.worker_id,
            started_at: a.started_at.toISOString(),
            finished_at: a.finished_at.toISOString(),
            outcome: a.outcome,
            error: a.error,
          })),
        },
      }
    },
  )
}
