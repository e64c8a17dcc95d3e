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
export const JobList = Type.Object({ jobs: Type.Array(JobSchema) })
export const JobResponse = Type.Object({ job: Type.Object({ ...JobSchema.properties, attempt_history: Type.Array(JobAttemptSchema) }) })
