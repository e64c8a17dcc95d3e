import type { CommonErrorCode } from '../lib/domain-error.js'
import type { AccountErrorCode } from '../modules/accounts/accounts.errors.js'
import type { UserErrorCode } from '../modules/users/users.errors.js'
import type { GroupErrorCode } from '../modules/groups/groups.errors.js'
import type { GroupInstallmentErrorCode } from '../modules/group-installments/group-installments.errors.js'
import type { CoveragePeriodErrorCode } from '../modules/coverage-periods/coverage-periods.errors.js'
import type { PlanErrorCode } from '../modules/plans/plans.errors.js'
import type { EmploymentClassificationErrorCode } from '../modules/employment-classifications/employment-classifications.errors.js'
import type { MemberErrorCode } from '../modules/members/members.errors.js'
import type { LifeEventErrorCode } from '../modules/life-events/life-events.errors.js'
import type { ProviderSelectionErrorCode } from '../modules/provider-selections/provider-selections.errors.js'
import type { WorkOrderErrorCode } from '../modules/work-orders/work-orders.errors.js'
import type { WatcherErrorCode } from '../modules/watchers/watchers.errors.js'
import type { EventStreamErrorCode } from '../modules/event-stream/event-stream.errors.js'
import type { ErrorResourceErrorCode } from '../modules/errors/errors.errors.js'
import type { FileDeliveryErrorCode } from '../modules/carrier-delivery/file-deliveries.errors.js'
import type { AcknowledgementErrorCode } from '../modules/acknowledgements/acknowledgements.errors.js'
import type { CensusErrorCode } from '../modules/census/census.errors.js'
import type { SessionErrorCode } from '../modules/sessions/sessions.errors.js'
import type { PasswordLinkErrorCode } from '../modules/password-links/password-links.errors.js'

/** Failures raised by the HTTP layer itself (parsing, auth, limits, idempotency). */
export type HttpErrorCode =
  | 'malformed_json'
  | 'malformed_url'
  | 'malformed_request'
  | 'request_timeout'
  | 'request_header_too_large'
  | 'invalid_character'
  | 'invalid_credentials'
  | 'missing_credentials'
  | 'token_expired'
  | 'credentials_mismatch'
  | 'forbidden'
  | 'not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'console_not_built'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'invalid_idempotency_key'
  | 'idempotency_key_reused'
  | 'idempotency_request_in_progress'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable'
  | 'database_unavailable'

export type ErrorCode = HttpErrorCode | CommonErrorCode | AccountErrorCode | UserErrorCode | MemberErrorCode
  | GroupErrorCode
  | GroupInstallmentErrorCode
  | CoveragePeriodErrorCode
  | PlanErrorCode
  | EmploymentClassificationErrorCode
  | LifeEventErrorCode
  | ProviderSelectionErrorCode
  | WorkOrderErrorCode
  | WatcherErrorCode
  | EventStreamErrorCode
  | ErrorResourceErrorCode
  | FileDeliveryErrorCode
  | AcknowledgementErrorCode
  | CensusErrorCode
  | SessionErrorCode
  | PasswordLinkErrorCode

export interface ErrorEntry {
  status: number
  title: string
  /** One sentence for the docs: when a client sees it and what to do. */
  description: string
}

/**
 * Every error code the API can answer with. `satisfies` makes the compiler reject a code without
 * an entry and an entry for no code. `docs/errors.md` is checked against this table by a test.
 */
export const errorTable = {
  malformed_json: {
    status: 400,
    title: 'Malformed JSON',
    description: 'The body is not valid JSON, or nests arrays and objects deeper than 64 levels. Fix the syntax at the position given in detail.',
  },
  malformed_url: {
    status: 400,
    title: 'Malformed URL',
    description: 'The path holds a percent-encoding that is not valid UTF-8 (such as a lone `%` or `%E0%A4`). Encode the path with encodeURIComponent.',
  },
  malformed_request: {
    status: 400,
    title: 'Malformed request',
    description: 'The HTTP framing is broken (an invalid Content-Length or chunk size, both Content-Length and Transfer-Encoding, a bad request line). Fix the client or proxy; the connection is closed.',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    description: 'The headers (HTTP_HEADERS_TIMEOUT_MS, 10 s) or the whole request (HTTP_REQUEST_TIMEOUT_MS, 60 s) took too long to arrive. Retry on a new connection.',
  },
  request_header_too_large: {
    status: 431,
    title: 'Request headers too large',
    description: 'The request line and headers exceed 16 KB (a very long URL or cookie). Send filters in a shorter URL.',
  },
  invalid_character: {
    status: 422,
    title: 'Invalid character',
    description: 'A string (body value or field name, query or path value) holds a NUL character or an unpaired UTF-16 surrogate, which cannot be stored. errors[] points at each; remove them.',
  },
  missing_credentials: {
    status: 401,
    title: 'Credentials required',
    description: 'Send the API key in Service-Api-Key, or a token from POST /auth/token in Authorization: Bearer.',
  },
  invalid_credentials: {
    status: 401,
    title: 'Invalid credentials',
    description: 'The API key or token is unknown, malformed, tampered with or revoked.',
  },
  token_expired: {
    status: 401,
    title: 'Token expired',
    description: 'The bearer token is past its expires_at. Request a new one from POST /auth/token.',
  },
  credentials_mismatch: {
    status: 401,
    title: 'Credentials name different accounts',
    description: 'Service-Api-Key and the bearer token belong to different accounts. Send credentials of one account.',
  },
  forbidden: {
    status: 403,
    title: 'Not allowed',
    description: 'The credential is valid but its account may not call this endpoint (operator endpoints need a service credential).',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description: 'No such resource in your account. Resources of other accounts answer the same way.',
  },
  route_not_found: {
    status: 404,
    title: 'No such endpoint',
    description: 'No endpoint has this method and path. See /docs for the reference.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but does not answer this method; the Allow header lists the methods it answers.',
  },
  precondition_failed: {
    status: 412,
    title: 'Precondition failed',
    description: 'If-Match names a version that is no longer current: someone changed the resource since you read it. Nothing was changed; read it again (GET gives the current ETag), reapply your change and retry.',
  },
  console_not_built: {
    status: 503,
    title: 'Console not built',
    description: 'This server runs without the built operations console; `npm run build` (which `npm start` runs) builds it into dist/console.',
  },
  payload_too_large: {
    status: 413,
    title: 'Body too large',
    description: 'The body exceeds the configured limit (BODY_LIMIT_BYTES). Split the request.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description: 'Bodies must be sent as Content-Type: application/json.',
  },
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    description: 'Some fields are invalid; errors[] names each one with a JSON pointer (body) or parameter (query).',
  },
  invalid_idempotency_key: {
    status: 422,
    title: 'Invalid Idempotency-Key',
    description: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    description: 'This Idempotency-Key was used in the last 24 hours with a different request. Use a new key.',
  },
  idempotency_request_in_progress: {
    status: 409,
    title: 'Request in progress',
    description: 'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    description: 'The account made more calls than its limit allows in the window. Wait Retry-After seconds.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'An unexpected fault. Nothing about it is in the body; quote the instance (request id) to the operator.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'A dependency (the database) is not reachable. Retry later.',
  },
  database_unavailable: {
    status: 503,
    title: 'Database unavailable',
    description: 'The database could not be reached or dropped the connection (a restart, a failover). A write may or may not have been made: retry after Retry-After seconds with the same Idempotency-Key, so it is made once.',
  },
  account_not_found: {
    status: 404,
    title: 'Account not found',
    description: 'No account with this id.',
  },
  api_key_not_found: {
    status: 404,
    title: 'API key not found',
    description: 'No API key with this id.',
  },
  duplicate_external_identifier: {
    status: 409,
    title: 'Duplicate external_identifier',
    description: 'Another resource under the same parent already has this external_identifier.',
  },
  user_not_found: {
    status: 404,
    title: 'User not found',
    description: 'No user with this id in your account.',
  },
  email_already_registered: {
    status: 409,
    title: 'Email already registered',
    description: 'A user with this email already exists in the account.',
  },
  coverage_period_not_found: {
    status: 404,
    title: 'Coverage period not found',
    description: 'No coverage period with this id in your account.',
  },
  plan_not_found: {
    status: 404,
    title: 'Plan not found',
    description: 'No plan with this id in your account.',
  },
  employment_classification_not_found: {
    status: 404,
    title: 'Employment classification not found',
    description: 'No employment classification with this id in your account.',
  },
  group_not_found: {
    status: 404,
    title: 'Group not found',
    description: 'No group with this id in your account.',
  },
  group_installment_not_found: {
    status: 404,
    title: 'Group installment not found',
    description: 'No group installment with this id in your account.',
  },
  subscriber_not_found: {
    status: 404,
    title: 'Subscriber not found',
    description: 'No subscriber with this id in your account.',
  },
  dependent_not_found: {
    status: 404,
    title: 'Dependent not found',
    description: 'No dependent with this id in your account.',
  },
  member_not_found: {
    status: 404,
    title: 'Member not found',
    description: 'No subscriber or dependent with this id in your account.',
  },
  qualifying_life_event_not_found: {
    status: 404,
    title: 'Qualifying life event not found',
    description: 'No qualifying life event with this id in your account.',
  },
  retroactive_limit_exceeded: {
    status: 422,
    title: 'Change too far in the past',
    description:
      "The life event changes coverage from a date further in the past than the carrier's retroactive_limit_days (GET /carriers) allows. " +
      'Agree the change with the carrier outside the service, or send it with a later effective date.',
  },
  duplicate_provider_selection: {
    status: 409,
    title: 'Duplicate provider selection',
    description: 'The member already has a primary care provider selection for this plan with this effective_date.',
  },
  work_order_not_found: {
    status: 404,
    title: 'Work order not found',
    description: 'The coverage period has no work order yet: it is opened by POST /coverage_periods/{id}/complete_setup.',
  },
  setup_incomplete: {
    status: 422,
    title: 'Setup incomplete',
    description: 'The setup cannot be completed yet; errors[] lists every gap with a code (no_plans, no_enrolled_subscribers, invalid_commission_splits, no_coverage_period).',
  },
  work_order_transition_not_allowed: {
    status: 422,
    title: 'Transition not allowed',
    description: 'The work order cannot move to that status from its current one; detail and errors[] name the statuses it can move to (open → in_progress → submitted ⇄ needs_information → completed, or cancelled).',
  },
  carrier_group_number_required: {
    status: 422,
    title: 'Carrier group number required',
    description: "Completing a work order needs the carrier's group number (carrier_group_number) unless the coverage period already has one.",
  },
  error_not_found: {
    status: 404,
    title: 'Error not found',
    description: 'No error (discrepancy) with this id in your account.',
  },
  error_not_unresolved: {
    status: 422,
    title: 'Error not unresolved',
    description: 'Only an unresolved error can be returned; detail names its status. A returned or resolved error can still be commented on or resolved.',
  },
  error_not_assigned_to_caller: {
    status: 422,
    title: 'Error assigned to the other party',
    description: 'Only the party an error is assigned to (partner or service) can return it to the other, or assign it to one of its people; comment on it instead.',
  },
  error_resolved: {
    status: 422,
    title: 'Error resolved',
    description: 'A resolved error cannot be assigned to a person (it can be unassigned).',
  },
  watcher_not_found: {
    status: 404,
    title: 'Watcher not found',
    description: 'No watcher with this id in your account (deleted watchers included).',
  },
  watcher_delivery_not_found: {
    status: 404,
    title: 'Watcher delivery not found',
    description: 'No watcher delivery with this id in your account (deliveries of deleted watchers included).',
  },
  watcher_delivery_pending: {
    status: 409,
    title: 'Delivery pending',
    description: 'The delivery already has an attempt queued; retry it once it has succeeded or failed.',
  },
  watcher_disabled: {
    status: 409,
    title: 'Watcher disabled',
    description: 'The watcher is disabled; re-enable it with PATCH /watchers/{id} and status active, then retry.',
  },
  watcher_limit_reached: {
    status: 422,
    title: 'Watcher limit reached',
    description: 'The account has as many watchers as it may (WATCHERS_PER_ACCOUNT_LIMIT, 25 by default; deleted ones do not count). Delete or reuse one.',
  },
  invalid_last_event_id: {
    status: 400,
    title: 'Invalid Last-Event-ID',
    description: 'The Last-Event-ID header or last_event_id parameter of GET /events/stream is not an id the stream sent (or names a position past its end). Send the last id: received unchanged, or none to start with new events.',
  },
  event_stream_limit_reached: {
    status: 429,
    title: 'Too many event streams',
    description: 'The account has as many GET /events/stream connections open on this instance as it may (EVENT_STREAMS_PER_ACCOUNT, 10 by default). Close one first.',
  },
  file_delivery_not_found: {
    status: 404,
    title: 'File delivery not found',
    description: 'No file delivery with this id in your account.',
  },
  file_content_not_ready: {
    status: 409,
    title: 'File content not ready',
    description: 'The file of this delivery is not written completely yet (its byte_size is still null); download it once byte_size is set.',
  },
  file_delivery_not_rejected: {
    status: 409,
    title: 'File delivery not rejected',
    description: "POST /file_deliveries/{id}/resend sends again only a delivery whose acknowledgement_status is rejected; detail gives this one's.",
  },
  file_delivery_already_resent: {
    status: 409,
    title: 'File delivery already resent',
    description: "The rejected delivery's changes were already sent again (its resent_at); a delivery is resent once.",
  },
  file_delivery_carrier_unreachable: {
    status: 409,
    title: 'Carrier unreachable',
    description: "The delivery's carrier is no longer configured or takes changes by hand (distribution_format manual): nothing can be sent to it.",
  },
  file_delivery_on_its_way: {
    status: 409,
    title: 'A file is on its way',
    description: "Sending a full file again (a rejected full file, or a change file that could not be rolled back) waits until the coverage period's file being built or sent has gone; try again then.",
  },
  acknowledgement_malformed: {
    status: 422,
    title: 'Acknowledgement malformed',
    description: 'The posted text is not a TA1 or 999 interchange that can be read; detail names the segment and what was expected. Nothing was stored.',
  },
  acknowledgement_not_for_this_delivery: {
    status: 422,
    title: 'Acknowledgement not for this delivery',
    description: "The TA1's ISA13, or the 999's AK1 GS06 or AK2 ST02, is not this delivery's; detail says which number differs. Post it to the delivery it answers.",
  },
  acknowledgement_not_expected: {
    status: 409,
    title: 'Acknowledgement not expected',
    description: 'The delivery is an API submission, or an 834 file not sent yet: no TA1 or 999 can answer it (yet).',
  },
  census_request_not_found: {
    status: 404,
    title: 'Census request not found',
    description: 'No census request with this id in your account.',
  },
  census_invalid: {
    status: 422,
    title: 'Census cannot be read',
    description: 'The census has neither or both of subscribers and x12_834, or its 834 file cannot be parsed; detail names the segment.',
  },
  sign_in_failed: {
    status: 401,
    title: 'Sign-in failed',
    description: 'The email or password is not right (also for an unknown email, a user without a password or a deactivated user). Check both and try again.',
  },
  sign_in_rate_limited: {
    status: 429,
    title: 'Too many failed sign-ins',
    description: 'Too many failed sign-ins for this email or from this address in the window (SIGN_IN_WINDOW_SECONDS); even the right password is refused until it ends. Wait Retry-After seconds.',
  },
  session_expired: {
    status: 401,
    title: 'Session ended',
    description: 'The console session cookie no longer works: it expired, you signed out, or the user was deactivated or given a new password. The cookie is cleared; sign in again with POST /session.',
  },
  csrf_token_invalid: {
    status: 403,
    title: 'CSRF token missing or wrong',
    description: 'A change made with a console session must send X-CSRF-Token equal to the csrf_token of POST /session (or GET /session).',
  },
  admin_role_required: {
    status: 403,
    title: 'Admin role required',
    description: "Managing users, API keys and set-password links from the console needs a signed-in user with the admin role; ask one of your account's administrators.",
  },
  password_rules_not_met: {
    status: 422,
    title: 'Password not allowed',
    description: 'A console password must be 12 to 256 characters long, whether set with a set-password link or with the command line (users set-password).',
  },
  console_email_taken: {
    status: 409,
    title: 'Email already signs in elsewhere',
    description: 'An active user of another account already has a password with this email; sign-in is by email alone, so an email signs in to one account only. Use another email, or deactivate the other user first.',
  },
  user_deactivated: {
    status: 409,
    title: 'User deactivated',
    description: 'A deactivated user can no longer sign in, so it cannot be given a password or a set-password link.',
  },
  password_link_invalid: {
    status: 404,
    title: 'Set-password link not valid',
    description: 'The set-password link is unknown, already used, replaced by a newer link, or expired (or its user was deactivated); which one is not said. Ask an administrator of the account for a new link (POST /users/{id}/password_links).',
  },
  password_link_rate_limited: {
    status: 429,
    title: 'Too many set-password links that did not work',
    description: 'Too many set-password links that did not work came from this address in the window (SIGN_IN_WINDOW_SECONDS); every link is refused until it ends. Wait Retry-After seconds.',
  },
} as const satisfies Record<ErrorCode, ErrorEntry>

export function problemType(code: ErrorCode): string {
  return `urn:enrollsync:problem:${code}`
}
