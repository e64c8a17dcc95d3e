import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Transaction, Kysely } from 'kysely'

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
  /** scrypt$N$r$p$salt$hash (src/lib/passwords.ts); null: cannot sign in to the console. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>
  password_set_at: NullableTimestamp
}

/** A signed-in console browser; the cookie's token is kept only as its SHA-256. */
export interface ConsoleSessionsTable {
  id: string
  token_hash: Buffer
  user_id: string
  account_id: string
  csrf_token: string
  created_at: Timestamp
  expires_at: Timestamp
}

export interface PasswordLinksTable {
  id: string
  token_hash: Buffer
  user_id: string
  account_id: string
  created_at: Timestamp
  expires_at: Date
  used_at: NullableTimestamp
  revoked_at: NullableTimestamp
}

/** Dates (`date` columns) travel as YYYY-MM-DD strings: see the type parser in database.ts. */
type DateString = string

export interface GroupsTable {
  id: string
  account_id: string
  external_identifier: string
  organization_name: string
  insurance_market: string
  phase: Generated<'installation' | 'member_management'>
  fein: string | null
  established_date: DateString | null
  employer_type: string | null
  census_employees: number | null
  census_full_time_equivalent: number | null
  census_eligible_employees: number | null
  producer_agency: Json<unknown> | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface LocationsTable {
  id: string
  account_id: string
  group_id: string
  external_identifier: string
  type: string
  is_primary: Generated<boolean>
  address_line_1: string
  address_line_2: string | null
  city: string
  state: string
  zip: string
  fips_county_code: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ProducersOfRecordTable {
  id: string
  account_id: string
  group_id: string
  position: number
  first_name: string | null
  last_name: string
  national_producer_number: string
  state_license_number: string | null
  email: string
  phone_number: string | null
  signature_date: DateString
  /** numeric(5,2): pg returns it as a string ("60.00"). */
  commission_split: ColumnType<string, string | number, string | number>
  writing_producer: boolean
  agency: Json<unknown> | null
  created_at: Timestamp
}

export type CoveragePeriodState = 'initial' | 'configuration' | 'test' | 'production' | 'expired'

export interface CoveragePeriodsTable {
  id: string
  account_id: string
  group_id: string
  external_identifier: string
  carrier_name: string
  coverage_start_date: DateString
  coverage_end_date: DateString | null
  open_enrollment_start_date: DateString | null
  open_enrollment_end_date: DateString | null
  carrier_group_number: string | null
  additional_information: string | null
  sign_off_name: string | null
  sign_off_title: string | null
  sign_off_date: DateString | null
  state: Generated<CoveragePeriodState>
  distribution_format: 'edi' | 'api' | 'manual'
  setup_completed_at: NullableTimestamp
  installed_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export interface GroupInstallmentsTable {
  id: string
  account_id: string
  group_id: string
  carrier_name: string
  status: Generated<'in_progress' | 'setup_completed' | 'installed' | 'cancelled'>
  coverage_period_id: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface PlansTable {
  id: string
  account_id: string
  coverage_period_id: string
  external_identifier: string
  description: string
  product_line: string
  product_type: string | null
  premium_level: string | null
  voluntary: boolean
  policy_premium_method: string
  premium_rating_method: string | null
  riders: Json<unknown>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface EmploymentClassificationsTable {
  id: string
  account_id: string
  group_id: string
  external_identifier: string
  description: string
  type: 'class' | 'subgroup' | 'department' | 'division' | 'region'
  start_date: DateString
  end_date: DateString | null
  carrier_identifier: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

/**
 * GET /subscribers/{id}'s answer, kept current by triggers in the statement that changes it
 * (migrations/0016_subscriber_documents.sql); read-only for the application.
 */
export interface SubscriberDocumentsTable {
  subscriber_id: string
  account_id: string
  body: string
}

export interface MembersTable {
  id: string
  account_id: string
  group_id: string
  subscriber_id: string | null
  kind: 'subscriber' | 'dependent'
  external_identifier: string
  first_name: string
  middle_name: string | null
  last_name: string
  birth_date: DateString
  gender: string
  ssn_ciphertext: string | null
  ssn_key_id: string | null
  ssn_hash: string | null
  ssn_last_four: string | null
  marital_status: string | null
  tobacco_use: boolean | null
  handicapped: boolean | null
  subscriber_relationship: string | null
  location_id: string | null
  employment_classification_id: string | null
  class_effective_date: DateString | null
  residential_address: Json<unknown> | null
  mailing_address: Json<unknown> | null
  emails: Json<unknown>
  phone_numbers: Json<unknown>
  employment_details: Json<unknown> | null
  status: Generated<'pending' | 'submitted' | 'synced' | 'errors'>
  carrier_member_id: Generated<string | null>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface QualifyingLifeEventsTable {
  id: string
  account_id: string
  subscriber_id: string
  coverage_period_id: string
  external_identifier: string | null
  event: string
  date: DateString
  eligibility_start_date: DateString
  created_at: Timestamp
}

export interface PlanElectionsTable {
  id: string
  account_id: string
  qualifying_life_event_id: string
  election_key: string
  type: 'election' | 'waiver'
  plan_id: string | null
  waiver_signature_date: DateString | null
  waiver_reason: string | null
}

export interface CoveragesTable {
  id: string
  account_id: string
  plan_election_id: string
  plan_id: string
  member_id: string
  start_date: DateString
  end_date: DateString | null
  status: 'employer_sponsored' | 'cobra'
  volume: number | null
}

/** The coverage in force over time (migration 0007, src/modules/coverage-timeline). */
export interface CoverageSpansTable {
  id: string
  account_id: string
  subscriber_id: string
  member_id: string
  line: string
  plan_id: string
  coverage_period_id: string
  start_date: DateString
  end_date: DateString | null
  status: 'employer_sponsored' | 'cobra'
  /** bigint: pg returns it as a string. */
  volume: ColumnType<string | null, number | null, number | null>
  coverage_level: string
  qualifying_life_event_id: string
  created_at: Timestamp
  voided_at: NullableTimestamp
  voided_by_event_id: string | null
}

/**
 * What a built delivery tells the carrier, up to a thousand members per row, moved into
 * carrier_views once it is sent (migrations/0009_carrier_view_batches.sql).
 */
export interface CarrierViewBatchesTable {
  file_delivery_id: string
  seq: number
  /** JSON text: an array of staged views, {m, s, r, d} (carrier-delivery/carrier-view-staging.ts, StagedViews). */
  views: string
}

/**
 * A member the rule-table check held back from a delivery (migrations/0013_held_back_members.sql):
 * its findings, or none when it was left out with its subscriber.
 */
export interface HeldBackMembersTable {
  file_delivery_id: string
  member_id: string
  subscriber_id: string
  /** JSON text: HeldBackFinding[] (carrier-delivery/pre-send-check.ts); codes and positions, never a value. */
  problems: string
  created_at: Generated<Date>
}

/**
 * A member's carrier view as it was before a change file took it, put back if the carrier rejects
 * the file (migrations/0027_rejected_deliveries.sql). Null records: the carrier had not been told
 * of the member.
 */
export interface CarrierViewPriorsTable {
  file_delivery_id: string
  member_id: string
  coverage_period_id: string
  subscriber_id: string
  records: string | null
  member_digest: string | null
  prior_file_delivery_id: string | null
}

/** What the service last told a carrier connection about a member (carrier-delivery/carrier-view.ts). */
export interface CarrierViewsTable {
  coverage_period_id: string
  member_id: string
  subscriber_id: string
  /** JSON text of CarrierRecord[]. */
  records: string
  member_digest: string
  file_delivery_id: string
  updated_at: Timestamp
}

export interface ProviderSelectionsTable {
  id: string
  account_id: string
  member_id: string
  plan_id: string
  npi: string
  first_name: string | null
  last_name: string | null
  organization_name: string | null
  effective_date: DateString
  existing_patient: boolean | null
  created_at: Timestamp
}

export type WorkOrderStatus = 'open' | 'in_progress' | 'submitted' | 'needs_information' | 'completed' | 'cancelled'

export interface WorkOrdersTable {
  id: string
  account_id: string
  coverage_period_id: string
  status: Generated<WorkOrderStatus>
  history: Json<unknown>
  /** An active user of a service account (migrations/0021); null: nobody has it. */
  assigned_user_id: ColumnType<string | null, string | null | undefined, string | null>
  /** When the current status began: age_seconds and sort=age are measured from it. */
  status_changed_at: Timestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ErrorsTable {
  id: string
  account_id: string
  coverage_period_id: string
  group_id: string
  member_id: string | null
  plan_id: string | null
  assignee: 'service' | 'partner'
  severity: 'failure' | 'info' | 'warning'
  status: Generated<'unresolved' | 'resolved' | 'returned'>
  source: 'file_validation' | 'reconciliation' | 'api' | 'manual' | 'error_report'
  message: string
  discrepancy_parameter: string
  discrepancy_carrier: Json<unknown> | null
  discrepancy_platform: Json<unknown> | null
  created_by_user_id: string | null
  resolution_message: string | null
  resolved_at: NullableTimestamp
  resolved_by: string | null
  transaction_ids: Json<unknown>
  created_at: Timestamp
  updated_at: Timestamp
  discrepancy_kind: Generated<DiscrepancyKind>
  dedupe_key: string | null
  resolved_by_user_id: string | null
  reopened_at: NullableTimestamp
  census_request_id: string | null
  /** Kept by a trigger on error_comments (migration 0003); never written by the application. */
  comment_count: Generated<number>
  /** The resource's own fields as JSON text, set by the errors_render trigger on every write. */
  rendered: Generated<string>
  /** The person of the holding party working the error (migration 0019); cleared by a trigger when the party changes. */
  assigned_user_id: string | null
  /** When the error was raised, reopened or last returned, kept by a trigger (migration 0019): its age counts from it. */
  aged_from: Generated<Date>
  /** Sort orders of severity and status (most pressing first), generated by the database. */
  severity_rank: GeneratedAlways<number>
  status_rank: GeneratedAlways<number>
}

export type ErrorHistoryType = 'raised' | 'commented' | 'returned' | 'assigned' | 'unassigned' | 'resolved' | 'reopened' | 'auto_resolved'

/** What happened to an error, one row per event (migration 0019; GET /errors/{id}/history). */
export interface ErrorHistoryTable {
  id: string
  error_id: string
  account_id: string
  type: ErrorHistoryType
  /** What a person reads of who did it: an email, an API key's name, or "reconciliation"; null for the service's own checks. */
  actor: string | null
  party: 'partner' | 'service' | null
  user_id: string | null
  comment_id: string | null
  assigned_user_id: string | null
  from_status: string | null
  to_status: string | null
  assignee: string | null
  created_at: Timestamp
}

export type DiscrepancyKind = 'carrier_value_differs' | 'carrier_missing' | 'platform_missing' | 'value_invalid'

export interface ErrorCommentsTable {
  id: string
  account_id: string
  error_id: string
  message: string
  created_by_user_id: string | null
  sent_by: 'partner' | 'service'
  created_at: Timestamp
}

export interface WatchersTable {
  id: string
  account_id: string
  url: string
  event_types: string[]
  coverage_period_id: string | null
  group_id: string | null
  description: string | null
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: NullableTimestamp
  status: Generated<'active' | 'disabled'>
  disabled_reason: string | null
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: NullableTimestamp
}

export type WatcherDeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface WatcherDeliveriesTable {
  id: string
  account_id: string
  watcher_id: string
  event_id: string
  event_type: string
  payload: Json<unknown>
  status: Generated<WatcherDeliveryStatus>
  attempts: Generated<number>
  next_attempt_at: NullableTimestamp
  last_status_code: number | null
  last_error: string | null
  delivered_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

/** One emitted event (migration 0020); read by GET /events/stream after a (tx_id, seq) cursor. */
export interface EventLogTable {
  seq: GeneratedAlways<number>
  id: string
  account_id: string
  coverage_period_id: string | null
  group_id: string | null
  type: string
  /** json, the webhook body's exact text. */
  payload: Json<unknown>
  /** xid8, read as its decimal text (it exceeds 2^53 in theory). */
  tx_id: Generated<string>
  created_at: Timestamp
}

export interface WatcherDeliveryAttemptsTable {
  id: string
  delivery_id: string
  attempt: number
  started_at: Timestamp
  duration_ms: number
  status_code: number | null
  error: string | null
  outcome: 'succeeded' | 'failed'
}

export type TransactionStatus = 'pending' | 'submitted' | 'synced' | 'errors'
export type TransactionKind = 'installation' | 'subscriber_created' | 'subscriber_updated' | 'dependent_created' | 'dependent_updated' | 'qualifying_life_event'

export interface MemberTransactionsTable {
  id: string
  account_id: string
  coverage_period_id: string
  group_id: string
  subscriber_id: string
  member_id: string
  kind: TransactionKind
  qualifying_life_event_id: string | null
  status: Generated<TransactionStatus>
  file_delivery_id: string | null
  created_at: Timestamp
  submitted_at: NullableTimestamp
  completed_at: NullableTimestamp
  updated_at: Timestamp
}

export interface CarrierControlNumbersTable {
  carrier_name: string
  last_value: number
}

export interface FileDeliveriesTable {
  id: string
  account_id: string
  coverage_period_id: string
  group_id: string
  carrier_name: string
  kind: 'full' | 'change'
  channel: 'edi' | 'api'
  file_name: string
  status: Generated<'pending' | 'sent' | 'failed' | 'skipped'>
  transaction_count: Generated<number>
  member_count: Generated<number>
  /** bigint: pg returns it as a string. */
  byte_size: ColumnType<string | null, number | null | undefined, number | null>
  sha256: string | null
  interchange_control_number: number | null
  content_as_of: NullableTimestamp
  destination: string | null
  attempts: Generated<number>
  last_error: string | null
  created_at: Timestamp
  sent_at: NullableTimestamp
  updated_at: Timestamp
  /** NULL for API submissions and unsent files; 'awaited' once an 834 file is sent (issue 14). */
  acknowledgement_status: ColumnType<AcknowledgementStatus | null, AcknowledgementStatus | null | undefined, AcknowledgementStatus | null>
  /** When an operator had this rejected delivery's changes sent again (migrations/0027_rejected_deliveries.sql). */
  resent_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** When the carrier's view gave back what this rejected delivery told (rejected-deliveries.ts), once. */
  views_rolled_back_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** The transaction (pg_current_xact_id()) that rolled the views back. */
  views_rolled_back_xid: ColumnType<string | null, string | null | undefined, string | null>
  /** The snapshot (pg_current_snapshot()) the content was built from; null before migration 0027. */
  content_snapshot: ColumnType<string | null, string | null | undefined, string | null>
}

export type AcknowledgementStatus = 'awaited' | 'accepted' | 'accepted_with_errors' | 'partially_accepted' | 'rejected' | 'overdue'

/**
 * A TA1 or 999 a carrier sent (migrations/0010_acknowledgements.sql, 0011_acknowledgements_inbound.sql):
 * matched to its delivery, or kept unmatched or malformed with the problem (never dropped).
 */
export interface AcknowledgementsTable {
  id: string
  /** The delivery's account; null until matched. */
  account_id: string | null
  file_delivery_id: string | null
  carrier_name: string
  /** The inbound file's name, when it came as a file. */
  file_name: ColumnType<string | null, string | null | undefined, string | null>
  outcome: ColumnType<'matched' | 'unmatched' | 'malformed', 'matched' | 'unmatched' | 'malformed' | undefined, 'matched' | 'unmatched' | 'malformed'>
  /** Why unmatched or malformed: control numbers, segments and positions, never member data. */
  problem: ColumnType<string | null, string | null | undefined, string | null>
  /** Null when malformed. */
  kind: 'ta1' | '999' | null
  raw: string
  /** SHA-256 of raw (hex): one row per carrier and text. Null only on copies stored before 0011. */
  raw_sha256: ColumnType<string | null, string | null | undefined, string | null>
  /** The parsed AcknowledgementInterchange (x12-ack.model.ts), as JSON; null when malformed. */
  model: ColumnType<unknown, string | null, string | null>
  /** Null when malformed. */
  status: 'accepted' | 'accepted_with_errors' | 'partially_accepted' | 'rejected' | null
  source: 'operator' | 'inbound' | 'sandbox'
  received_at: Timestamp
}

export interface FileDeliveryChunksTable {
  file_delivery_id: string
  seq: number
  /** The SSN encryption key the chunk is sealed with. */
  key_id: string
  data: Buffer
}

export interface CoverageTransmissionsTable {
  id: string
  account_id: string
  coverage_period_id: string
  member_id: string
  plan_id: string
  file_delivery_id: string
  transaction_id: string | null
  maintenance: 'addition' | 'change' | 'termination' | 'reinstatement' | 'audit'
  start_date: DateString | null
  end_date: DateString | null
  created_at: Timestamp
}

export interface CensusRequestsTable {
  id: string
  account_id: string
  coverage_period_id: string
  group_id: string
  format: 'json' | 'x12_834'
  submitted_by: string
  as_of: DateString
  status: 'completed' | 'failed'
  content_sha256: string
  errors: ColumnType<string[], string | undefined, string>
  subscriber_count: Generated<number>
  member_count: Generated<number>
  matched_count: Generated<number>
  discrepancy_count: Generated<number>
  errors_created: Generated<number>
  errors_reopened: Generated<number>
  errors_resolved: Generated<number>
  created_at: Timestamp
  completed_at: NullableTimestamp
}

export interface CensusSubscribersTable {
  census_request_id: string
  position: number
  matched_subscriber_id: string | null
  data: Json<unknown>
}

export interface SandboxCarrierDifferencesTable {
  coverage_period_id: string
  /** REF*17 as the sandbox holds it (not a foreign key since 0012). */
  member_id: string
  parameter: string
}

/** A sandbox carrier's roster of one coverage period: its lock row (migrations/0012_sandbox_rosters.sql). */
export interface SandboxRostersTable {
  coverage_period_id: string
  differences_chosen_at: NullableTimestamp
  updated_at: Generated<Date>
}

/** One member a sandbox carrier holds: a RosterMember (edi-834.roster.ts) without its SSN, sealed beside it. */
export interface SandboxRosterMembersTable {
  coverage_period_id: string
  member_id: string
  record: Json<unknown>
  ssn_ciphertext: string | null
  ssn_key_id: string | null
}

export type SandboxDeliveryOutcome = 'applied' | 'rejected' | 'unreadable' | 'not_applicable' | 'ignored'

/** A delivery a sandbox carrier took, once, with the TA1 and 999 it answered. */
export interface SandboxAppliedDeliveriesTable {
  file_delivery_id: string
  coverage_period_id: string
  seq: GeneratedAlways<number>
  outcome: SandboxDeliveryOutcome
  detail: string | null
  ta1: string | null
  ack_999: string | null
  answered_at: NullableTimestamp
  applied_at: Generated<Date>
}

/** A sandbox carrier's own ISA13 numbering, per carrier. */
export interface SandboxControlNumbersTable {
  carrier_name: string
  last_value: number
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
  /** Whom the job's work is for (a webhook delivery's account): the claim shares slots across them (0014). */
  fairness_key: string | null
  /** Where the work goes (a receiver's origin): the claim caps and backs off each one (0014). */
  destination: string | null
}

/** How a destination of jobs has been answering (migrations/0014_webhook_fairness.sql). */
export interface DestinationHealthTable {
  destination: string
  consecutive_failures: Generated<number>
  blocks: Generated<number>
  blocked_until: NullableTimestamp
  last_success_at: NullableTimestamp
  last_error: string | null
  updated_at: Timestamp
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
  /** The signed-in user of a console change. */
  actor_user_id: ColumnType<string | null, string | null | undefined, string | null>
  channel: 'api' | 'cli' | 'system' | 'console'
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
  console_sessions: ConsoleSessionsTable
  password_links: PasswordLinksTable
  groups: GroupsTable
  idempotency_keys: IdempotencyKeysTable
  jobs: JobsTable
  job_attempts: JobAttemptsTable
  destination_health: DestinationHealthTable
  audit_events: AuditEventsTable
  locations: LocationsTable
  producers_of_record: ProducersOfRecordTable
  coverage_periods: CoveragePeriodsTable
  group_installments: GroupInstallmentsTable
  plans: PlansTable
  employment_classifications: EmploymentClassificationsTable
  members: MembersTable
  subscriber_documents: SubscriberDocumentsTable
  qualifying_life_events: QualifyingLifeEventsTable
  plan_elections: PlanElectionsTable
  coverages: CoveragesTable
  coverage_spans: CoverageSpansTable
  carrier_views: CarrierViewsTable
  carrier_view_batches: CarrierViewBatchesTable
  carrier_view_priors: CarrierViewPriorsTable
  held_back_members: HeldBackMembersTable
  provider_selections: ProviderSelectionsTable
  work_orders: WorkOrdersTable
  errors: ErrorsTable
  error_comments: ErrorCommentsTable
  error_history: ErrorHistoryTable
  watchers: WatchersTable
  watcher_deliveries: WatcherDeliveriesTable
  watcher_delivery_attempts: WatcherDeliveryAttemptsTable
  event_log: EventLogTable
  member_transactions: MemberTransactionsTable
  carrier_control_numbers: CarrierControlNumbersTable
  file_deliveries: FileDeliveriesTable
  file_delivery_chunks: FileDeliveryChunksTable
  acknowledgements: AcknowledgementsTable
  coverage_transmissions: CoverageTransmissionsTable
  census_requests: CensusRequestsTable
  census_subscribers: CensusSubscribersTable
  sandbox_carrier_differences: SandboxCarrierDifferencesTable
  sandbox_rosters: SandboxRostersTable
  sandbox_roster_members: SandboxRosterMembersTable
  sandbox_applied_deliveries: SandboxAppliedDeliveriesTable
  sandbox_control_numbers: SandboxControlNumbersTable
}

export type Db = Kysely<Database>
/** What every repo function takes first: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>

export type AccountRow = Selectable<AccountsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type UserRow = Selectable<UsersTable>
export type ConsoleSessionRow = Selectable<ConsoleSessionsTable>
export type PasswordLinkRow = Selectable<PasswordLinksTable>
export type GroupRow = Selectable<GroupsTable>
export type JobRow = Selectable<JobsTable>
export type NewJob = Insertable<JobsTable>
