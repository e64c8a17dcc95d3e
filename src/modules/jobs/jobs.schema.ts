import { Type } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

const JobStatus = Type.Enum(['pending', 'running', 'succeeded', 'failed'])

export const JobSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    status: JobStatus,
    attempts: Type.Integer(),
    max_attempts: Type.Integer(),
    run_at: Timestamp,
    last_error: Nullable(Type.String()),
    created_at: Timestamp,
    finished_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
)

export const JobAttemptSchema = Type.Object(
  {
    attempt: Type.Integer(),
    worker_id: Type.String(),
    started_at: Timestamp,
    finished_at: Timestamp,
    outcome: Type.Enum(['succeeded', 'failed']),
    error: Nullable(Type.String()),
  },
  { additionalProperties: false },
)

export const JobsQuery = Type.Object(
  { ...PaginationQuery.properties, status: Type.Optional(JobStatus), name: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
)
const jobExample = { id: '0193a4b2-0000-7000-8000-000000000006', name: 'webhook.deliver', status: 'failed', attempts: 8, max_attempts: 8, run_at: '2026-11-22T09:30:00.000Z', last_error: 'connection refused', created_at: '2026-11-22T09:30:00.000Z', finished_at: '2026-11-22T09:30:00.000Z' }

export const JobList = Type.Object({ jobs: Type.Array(JobSchema) }, { description: 'One page of jobs, newest first', examples: [{ jobs: [jobExample] }] })
export const JobResponse = Type.Object(
  { job: Type.Object({ ...JobSchema.properties, attempt_history: Type.Array(JobAttemptSchema) }) },
  {
    description: 'The job and every attempt',
    examples: [
      {
        job: {
          ...jobExample,
          attempt_history: [
            { attempt: 1, worker_id: 'host:1234:abcd', started_at: '2026-11-22T09:30:00.000Z', finished_at: '2026-11-22T09:30:00.000Z', outcome: 'failed', error: 'connection refused' },
          ],
        },
      },
    ],
  },
)
