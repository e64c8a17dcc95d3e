import type { ColumnType, Generated, Insertable, Selectable, Transaction, Kysely } from 'kysely'

/** Timestamps come back as Date from `pg`; inserts may pass a Date or let the default apply. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
/** jsonb: written as a JSON string (pg would otherwise send arrays as Postgres arrays). */
type Json<T> = ColumnType<T, string, string>

export interface AccountsTable {
  id: string
  name: string
  kind: 'partner' | 'service'
  external_identifier: string | null
  created_at: Timestamp
}

export interface ApiKeysTable {
  id: string
  account_id: string
  name: string
  prefix: string
  secret_hash: Buffer
  created_at: Timestamp
  revoked_at: NullableTimestamp
}

export interface UsersTable {
  id: string
  account_id: string
  email: string
  role_names: string[]
  created_at: Timestamp
  deactivated_at: NullableTimestamp
}

export interface GroupsTable {
  id: string
  account_id: string
  external_identifier: string
  organization_name: string
  insurance_market: string
  phase: Generated<'installation' | 'member_management'>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface IdempotencyKeysTable {
  account_id: string
  key: string
  request_fingerprint: string
  state: 'in_flight' | 'completed'
  response_status: number | null
  response_headers: Json<Record<string, string> | null> | null
  response_body: string | null
  locked_at: Timestamp
  created_at: Timestamp
  expires_at: Timestamp
}

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed'

export interface JobsTable {
  id: string
  name: string
  payload: Json<unknown>
  status: Generated<JobStatus>
  attempts: Generated<number>
  max_attempts: number
  run_at: Timestamp
  locked_at: NullableTimestamp
  locked_by: string | null
  last_error: string | null
  created_at: Timestamp
  finished_at: NullableTimestamp
}

export interface JobAttemptsTable {
  id: string
  job_id: string
  attempt: number
  worker_id: string
  started_at: Timestamp
  finished_at: Timestamp
  outcome: 'succeeded' | 'failed'
  error: string | null
}

export interface AuditEventsTable {
  id: string
  account_id: string
  actor_account_id: string | null
  api_key_id: string | null
  channel: 'api' | 'cli' | 'system'
  request_id: string | null
  action: string
  resource_type: string
  resource_id: string
  created_at: Timestamp
}

export interface Database {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  users: UsersTable
  groups: GroupsTable
  idempotency_keys: IdempotencyKeysTable
  jobs: JobsTable
  job_attempts: JobAttemptsTable
  audit_events: AuditEventsTable
}

export type Db = Kysely<Database>
/** What every repo function takes first: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>

export type AccountRow = Selectable<AccountsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type UserRow = Selectable<UsersTable>
export type GroupRow = Selectable<GroupsTable>
export type JobRow = Selectable<JobsTable>
export type NewJob = Insertable<JobsTable>
