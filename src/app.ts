import { fileURLToPath } from 'node:url'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import { registerAjvFormats, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyServerOptions } from 'fastify'
import type { Db } from './db/schema.js'
import type { App } from './http/app-types.js'
import { registerAccessLog } from './http/access-log.js'
import { answerClientError } from './http/client-errors.js'
import { registerCompression } from './http/compression.js'
import { consoleRoutes } from './http/console-assets.js'
import { registerCors } from './http/cors.js'
import { registerDraining } from './http/draining.js'
import { DOCS_PREFIX, registerGuard } from './http/guard.js'
import { registerIdempotency } from './http/idempotency.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './http/json-depth.js'
import { lazySerializerCompilers } from './http/lazy-serializers.js'
import { registerUnknownRouteAnswers } from './http/unknown-route.js'
import { registerUnstorableTextCheck } from './http/unstorable-text.js'
import { requestLoggerFactory } from './http/request-logger.js'
import { registerResponseHeaders } from './http/response-headers.js'
import { capConnections, DEFAULT_SERVER_LIMITS, serverLimitOptions, type ServerLimits } from './http/server-limits.js'
import { openApiOptions } from './http/openapi.js'
import { httpError, problem, sendProblem, toProblem } from './http/problem.js'
import { RateLimiter, type RateLimitStore } from './http/rate-limit.js'
import { ProblemSchema } from './http/schemas.js'
import { validatorCompiler } from './http/validation.js'
import { parseClientJson } from './http/json-body.js'
import { uuidv7 } from './lib/ids.js'
import { accountsRoutes } from './modules/accounts/accounts.routes.js'
import { createAccountsService } from './modules/accounts/accounts.service.js'
import { auditRoutes } from './modules/audit/audit.routes.js'
import { CarrierCatalog } from './modules/carriers/carriers.catalog.js'
import { carriersRoutes } from './modules/carriers/carriers.routes.js'
import { authRoutes } from './modules/auth/auth.routes.js'
import { CredentialCache } from './modules/auth/credential-cache.js'
import { TokenService } from './modules/auth/tokens.js'
import { groupsRoutes } from './modules/groups/groups.routes.js'
import { createGroupsService } from './modules/groups/groups.service.js'
import { groupInstallmentsRoutes } from './modules/group-installments/group-installments.routes.js'
import { createGroupInstallmentsService } from './modules/group-installments/group-installments.service.js'
import { coveragePeriodsRoutes } from './modules/coverage-periods/coverage-periods.routes.js'
import { createCoveragePeriodsService } from './modules/coverage-periods/coverage-periods.service.js'
import { plansRoutes } from './modules/plans/plans.routes.js'
import { createPlansService } from './modules/plans/plans.service.js'
import { employmentClassificationsRoutes } from './modules/employment-classifications/employment-classifications.routes.js'
import { createEmploymentClassificationsService } from './modules/employment-classifications/employment-classifications.service.js'
import { workOrdersRoutes } from './modules/work-orders/work-orders.routes.js'
import { createWorkOrderQueueService } from './modules/work-orders/work-order-queue.service.js'
import { createWorkOrderTransitionsService } from './modules/work-orders/work-order-transitions.service.js'
import { CARRIER_INSTALLATION_HOOKS, DEFAULT_CARRIER_SETTINGS, type CarrierSettings } from './modules/carrier-delivery/index.js'
import { createCarrierSide } from './main/carrier-side.js'
import { createMemberChangeRecorder } from './modules/member-management/member-transactions.js'
import { createWorkOrdersService } from './modules/work-orders/work-orders.service.js'
import { errorsRoutes } from './modules/errors/errors.routes.js'
import { createErrorsService } from './modules/errors/errors.service.js'
import { membersRoutes } from './modules/members/members.routes.js'
import { lifeEventsRoutes } from './modules/life-events/life-events.routes.js'
import { coverageTimelineRoutes, createCoverageTimelineService } from './modules/coverage-timeline/index.js'
import { createLifeEventsService } from './modules/life-events/life-events.service.js'
import { providerSelectionsRoutes } from './modules/provider-selections/provider-selections.routes.js'
import { createProviderSelectionsService } from './modules/provider-selections/provider-selections.service.js'
import { createMembersService } from './modules/members/members.service.js'
import type { SsnProtection } from './lib/ssn-protection.js'
import { healthRoutes } from './modules/health/health.routes.js'
import { jobsRoutes } from './modules/jobs/jobs.routes.js'
import { usersRoutes } from './modules/users/users.routes.js'
import { createUsersService } from './modules/users/users.service.js'
import { createConsolePasswordsService } from './modules/sessions/console-passwords.service.js'
import { sessionsRoutes } from './modules/sessions/sessions.routes.js'
import { createSessionsService } from './modules/sessions/sessions.service.js'
import { passwordLinksRoutes } from './modules/password-links/password-links.routes.js'
import { createPasswordLinksService } from './modules/password-links/password-links.service.js'
import { DEFAULT_CONSOLE_SESSION_SETTINGS, type ConsoleSessionSettings } from './modules/sessions/session-settings.js'
import { systemResolveHost, type ResolveHost } from './lib/outbound-url.js'
import { watcherDeliveriesRoutes } from './modules/watchers/watcher-deliveries.routes.js'
import { createWatcherDeliveriesService } from './modules/watchers/watcher-deliveries.service.js'
import { watchersRoutes } from './modules/watchers/watchers.routes.js'
import { createWatchersService } from './modules/watchers/watchers.service.js'
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './modules/watchers/webhook-settings.js'
import { eventStreamRoutes } from './modules/event-stream/event-stream.routes.js'
import { DEFAULT_EVENT_STREAM_SETTINGS, type EventStreamSettings } from './modules/event-stream/event-stream.settings.js'

export interface AppDeps {
  db: Db
  pingDatabase: () => Promise<void>
  tokenSigningSecret: string
  /** Seals, hashes and masks SSNs; from SSN_ENCRYPTION_KEYS / SSN_HASH_KEY (or DATA_DIR in embedded mode). */
  ssnProtection: SsnProtection
  rateLimitStore: RateLimitStore
  rateLimit: { max: number; windowSeconds: number }
  apiKeyCacheSeconds: number
  bodyLimitBytes: number
  /** Fastify logger options (pino), or false for none (tests). */
  logger: FastifyServerOptions['logger']
  trustProxy?: boolean
  /** Origins allowed to call the API from a browser (CORS_ORIGINS); none by default: CORS off. */
  corsOrigins?: readonly string[]
  /** The deployment's carriers; the built-in list by default. */
  carriers?: CarrierCatalog
  /** Webhook delivery settings (WEBHOOK_* variables); the defaults when absent. */
  webhooks?: WebhookSettings
  /** Resolves watcher URL hosts for the address check; the system resolver by default. */
  resolveHost?: ResolveHost
  /** How carriers are reached (outbound directory, batching window, sandbox delay); defaults for tests. */
  carrierSide?: CarrierSettings
  /** Body limit of POST /coverage_periods/{id}/census_requests (CENSUS_BODY_LIMIT_BYTES). */
  censusBodyLimitBytes?: number
  /** Where the built console is (dist/console by default, from `vite build`). */
  consoleDirectory?: string
  /** Console session lifetime and failed sign-in limits (SESSION_TTL_SECONDS, SIGN_IN_*); defaults when absent. */
  consoleSessions?: ConsoleSessionSettings
  /** Header, request and keep-alive timeouts and the connection cap (HTTP_*); defaults when absent. */
  serverLimits?: ServerLimits
  /** GET /events/stream: polling interval, streams per account (EVENT_STREAM_*), heartbeats, bounds; defaults when absent. */
  eventStream?: EventStreamSettings
}

// From src/app.ts (tests) and dist/app.js (npm start) alike, the build lands in <repo>/dist/console.
const DEFAULT_CONSOLE_DIRECTORY = fileURLToPath(new URL('../dist/console/', import.meta.url))

export type Services = ReturnType<typeof createServices>

/** The use cases, wired by plain factories: the same objects serve the API and the CLI. */
export function createServices(
  db: Db,
  credentials?: CredentialCache,
  carriers: CarrierCatalog = new CarrierCatalog(),
  carrierSettings: CarrierSettings = DEFAULT_CARRIER_SETTINGS,
) {
  const recordMemberChanges = createMemberChangeRecorder({ carriers, batchDelayMs: carrierSettings.transactionBatchDelayMs })
  return {
    recordMemberChanges,
    accounts: createAccountsService({ db, onApiKeyRevoked: (id) => credentials?.forget(id) }),
    users: createUsersService({ db }),
    consolePasswords: createConsolePasswordsService({ db }),
    groups: createGroupsService({ db }),
    groupInstallments: createGroupInstallmentsService({ db, carriers }),
    coveragePeriods: createCoveragePeriodsService({ db, carriers }),
    plans: createPlansService({ db }),
    employmentClassifications: createEmploymentClassificationsService({ db }),
    workOrders: createWorkOrdersService({ db, carriers }),
    workOrderTransitions: createWorkOrderTransitionsService({ db, carriers, hooks: CARRIER_INSTALLATION_HOOKS }),
    workOrderQueue: createWorkOrderQueueService({ db }),
    lifeEvents: createLifeEventsService({ db, carriers, recordMemberChanges }),
    coverageTimeline: createCoverageTimelineService({ db }),
    providerSelections: createProviderSelectionsService({ db }),
    errors: createErrorsService({ db }),
  }
}

// A client-supplied request id is kept when it is short and plain, so logs join across systems.
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

// Credentials pino must never print if a request object is ever logged. Bodies and query strings
// are never logged (the access line has the path only), which is what keeps PII out; exact paths
// here because wildcard redaction doubles the cost of every log line.
export const REDACTED_LOG_PATHS = ['req.headers["service-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]']

/** Builds the Fastify app. It never listens: `main/serve.ts` does, and tests use inject(). */
export async function buildApp(deps: AppDeps): Promise<{ app: App; services: Services; credentials: CredentialCache }> {
  registerAjvFormats()
  const serverLimits = deps.serverLimits ?? DEFAULT_SERVER_LIMITS
  const app = Fastify({
    ...serverLimitOptions(serverLimits),
    // Node's parser errors and timeouts, answered in problem+json.
    clientErrorHandler: answerClientError,
    logger: deps.logger,
    bodyLimit: deps.bodyLimitBytes,
    trustProxy: deps.trustProxy ?? false,
    // registerDraining answers those requests instead: problem+json with Retry-After.
    return503OnClosing: false,
    // One access line per request (below) instead of Fastify's two; halves logging on the hot path.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log makes pino's per-request child only when a request logs more than its access line.
    childLoggerFactory: requestLoggerFactory,
    // Response serializers compiled on first use: a quarter of the start-up time otherwise.
    schemaController: { compilersFactory: lazySerializerCompilers },
    forceCloseConnections: 'idle',
    // A path Fastify cannot decode never reaches a route: answer it as every other failure, in
    // problem+json (the path itself is not echoed; it may hold anything).
    frameworkErrors: (error, request, reply) => {
      const code = error.code === 'FST_ERR_BAD_URL' ? 'malformed_url' : 'validation_failed'
      const detail = code === 'malformed_url' ? 'The path is not a valid URL: a percent-encoding in it is not valid UTF-8.' : error.message
      // No hook runs for these: sendProblem sets the request id and nosniff headers itself.
      return sendProblem(reply, problem(request, code, detail))
    },
    genReqId: (req) => {
      const incoming = req.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : uuidv7()
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  capConnections(app.server, serverLimits, app.log)

  registerResponseHeaders(app)
  registerDraining(app)
  registerCors(app, deps.corsOrigins ?? [])
  app.setValidatorCompiler(validatorCompiler)
  app.addSchema(ProblemSchema)

  registerAccessLog(app)

  // JSON only; the raw text is kept for Idempotency-Key fingerprints. An empty body is no body,
  // so `POST /auth/token` with a JSON content type and nothing else still works.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    request.rawBody = text
    if (text.trim() === '') return done(null, undefined)
    if (nestsDeeperThan(text)) return done(httpError('malformed_json', `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`), undefined)
    try {
      done(null, parseClientJson(text))
    } catch (error) {
      done(error as Error, undefined)
    }
  })

  app.setErrorHandler((error, request, reply) => {
    if (request.raw.destroyed && !request.raw.complete) {
      // The connection closed while the body was being read: answerClientError cut it off (a
      // timeout, broken framing) or the client left. Nothing failed here and nobody waits for an
      // answer. (A request received whole that fails after its client left is still a fault.)
      request.log.info({ reason: (error as NodeJS.ErrnoException).code }, 'connection closed before the request was complete')
      return sendProblem(reply, problem(request, 'malformed_request', 'The connection closed before the request was complete.'))
    }
    const body = toProblem(error instanceof Error ? error : new Error(String(error)), request)
    // Expected failures (a 503 from /readyz) are logged where they happen; only surprises here.
    if (body.code === 'internal_error') request.log.error({ err: error }, 'request failed unexpectedly')
    return sendProblem(reply, body)
  })
  registerUnknownRouteAnswers(app)

  // The guard goes first: its onRoute hook checks every route registered after it.
  const credentials = new CredentialCache(deps.db, deps.apiKeyCacheSeconds * 1000)
  const tokens = new TokenService(deps.tokenSigningSecret)
  const limiter = new RateLimiter(deps.rateLimitStore, deps.rateLimit.max, deps.rateLimit.windowSeconds)
  const consoleSessions = deps.consoleSessions ?? DEFAULT_CONSOLE_SESSION_SETTINGS
  const sessions = createSessionsService({ db: deps.db, failureCounter: deps.rateLimitStore, settings: consoleSessions })
  registerGuard(app, { credentials, tokens, limiter, sessions })
  registerUnstorableTextCheck(app)
  registerIdempotency(app, deps.db)
  await registerCompression(app)

  await app.register(fastifySwagger, openApiOptions)
  await app.register(fastifySwaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { deepLinking: true, tryItOutEnabled: true } })
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger())

  const carriers = deps.carriers ?? new CarrierCatalog()
  const services = createServices(deps.db, credentials, carriers, deps.carrierSide)
  healthRoutes(app, deps.pingDatabase)
  authRoutes(app, tokens)
  sessionsRoutes(app, sessions)
  accountsRoutes(app, services.accounts)
  usersRoutes(app, services.users)
  passwordLinksRoutes(app, createPasswordLinksService({ db: deps.db, failureCounter: deps.rateLimitStore, settings: consoleSessions }))
  groupsRoutes(app, services.groups)
  groupInstallmentsRoutes(app, services.groupInstallments)
  coveragePeriodsRoutes(app, services.coveragePeriods)
  plansRoutes(app, services.plans)
  employmentClassificationsRoutes(app, services.employmentClassifications)
  workOrdersRoutes(app, services.workOrders, services.workOrderTransitions, services.workOrderQueue)
  // The carrier side's modules (file deliveries, acknowledgements, census): built here rather than
  // in createServices, because they need the SSN keys, which the CLI does not hold.
  const carrierSide = createCarrierSide({
    db: deps.db,
    ssn: deps.ssnProtection,
    carriers,
    settings: deps.carrierSide ?? DEFAULT_CARRIER_SETTINGS,
    transitions: services.workOrderTransitions,
    ...(deps.censusBodyLimitBytes !== undefined ? { censusBodyLimitBytes: deps.censusBodyLimitBytes } : {}),
  })
  for (const module of carrierSide.modules) module.routes?.(app)
  membersRoutes(app, createMembersService({ db: deps.db, ssn: deps.ssnProtection, recordMemberChanges: services.recordMemberChanges }))
  lifeEventsRoutes(app, services.lifeEvents)
  coverageTimelineRoutes(app, services.coverageTimeline)
  providerSelectionsRoutes(app, services.providerSelections)
  errorsRoutes(app, services.errors)
  // Built here rather than in createServices: they need the webhook settings, which the CLI does not hold.
  watchersRoutes(app, createWatchersService({ db: deps.db, settings: deps.webhooks ?? DEFAULT_WEBHOOK_SETTINGS, resolveHost: deps.resolveHost ?? systemResolveHost }))
  watcherDeliveriesRoutes(app, createWatcherDeliveriesService({ db: deps.db }))
  eventStreamRoutes(app, deps.db, deps.eventStream ?? DEFAULT_EVENT_STREAM_SETTINGS)
  carriersRoutes(app, carriers)
  auditRoutes(app, deps.db)
  jobsRoutes(app, deps.db)
  consoleRoutes(app, deps.consoleDirectory ?? DEFAULT_CONSOLE_DIRECTORY)

  app.addHook('onClose', async () => {
    await limiter.close()
  })
  await app.ready()
  return { app, services, credentials }
}
