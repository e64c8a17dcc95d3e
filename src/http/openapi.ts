import type { SwaggerOptions } from '@fastify/swagger'
import { apiComponents } from './components.js'
import { documentEntityTags } from './etag.js'
import { finishOpenApiDocument, type OpenApiDocumentParts } from './openapi-document.js'

const description = `Enrollsync places employer groups with insurance carriers and keeps member data in sync with them.

**Authentication.** Send your API key in the \`Service-Api-Key\` header on every call, or exchange it
at \`POST /auth/token\` for a one-day token sent as \`Authorization: Bearer <token>\`. When both are sent
they must belong to the same account. The operations console (served at \`/console\`) signs in with
\`POST /session\` instead and sends the session cookie \`enrollsync_session\`; its requests that change
something also carry \`X-CSRF-Token\`. A request with either API header is never authenticated by the cookie.

**Errors** are \`application/problem+json\` (RFC 9457) with a stable \`code\`; validation failures list
each offending field in \`errors[]\` with a JSON \`pointer\` into the body or the query \`parameter\`.

**Lists** take \`page\` and \`per_page\` (at most 100) and answer \`Total\`, \`Per-Page\`, \`Page\` and \`Link\` headers.

**Idempotency.** Send \`Idempotency-Key\` on any POST to make retries safe for 24 hours.

**Limits.** 1500 calls per account per 5 minutes; every response carries \`RateLimit-Policy\` and \`RateLimit\`.

**Concurrent updates.** Resources you can PUT or PATCH answer an \`ETag\`; send it back in \`If-Match\` and a write
based on an outdated read answers 412 \`precondition_failed\` instead of overwriting someone else's change.

**Versioning.** These unprefixed paths are version 1 and stay so. Additions (endpoints, fields, enum values, error
codes) arrive at any time; a breaking change only as \`/v2/...\` beside version 1, announced with \`Deprecation\` and
\`Sunset\` headers and \`deprecated: true\` here, at least 12 months ahead (docs/versioning.md).`

export const openApiOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Enrollsync API',
      version: '0.1.0',
      description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: 'http://localhost:3000', description: 'Local development (npm start)' }],
    tags: [
      { name: 'Authentication', description: 'API keys and tokens' },
      { name: 'Console sessions', description: 'Signing in to the operations console with an email and password: a session cookie and its CSRF token' },
      { name: 'Users', description: 'Registered users named in comments and resolutions' },
      { name: 'Groups', description: 'Employer groups' },
      { name: 'Group installments', description: 'Step 1 of placing a new group with a carrier, and its progress through the seven steps' },
      { name: 'Coverage periods', description: 'Plan years with a carrier, with the employer sign-off (installation step 2)' },
      { name: 'Plans', description: 'Plans offered in a coverage period, with their premium methods and riders (step 3)' },
      { name: 'Employment classifications', description: 'Classes, subgroups, departments, divisions and regions of a group (step 4)' },
      { name: 'Members', description: 'Subscribers and their dependents (installation step 5); SSNs answered masked' },
      { name: 'Qualifying life events', description: 'Life events with plan elections, waivers and coverages (installation step 6)' },
      { name: 'Provider selections', description: 'Primary care providers of members enrolled in HMO medical plans' },
      { name: 'Work orders', description: 'Completing the setup (installation step 7), the work order it opens for the operations team, and its transitions' },
      { name: 'Errors', description: 'Discrepancies between the carrier and the platform: the queue, comments, returns, resolutions and the standard messages' },
      { name: 'Watchers', description: 'Webhooks: subscriptions to events, signed deliveries (Standard Webhooks) and their attempts; the event stream' },
      { name: 'Carriers', description: 'The carriers groups are placed with' },
      { name: 'Carrier delivery', description: 'Files and submissions sent to carriers (834 files, API documents) and the coverage transmissions each carried' },
      { name: 'Census', description: "The carrier's censuses and their reconciliation with the platform's data" },
      { name: 'Operator', description: 'Endpoints for the operator of the service (service credentials only)' },
      { name: 'Health', description: 'Probes for orchestrators' },
    ],
    components: {
      // Emitted as written; finishOpenApiDocument (below) then points every copy in the paths at them.
      // The cast: TypeBox's Unknown (a schema without keywords) is valid JSON Schema, which the
      // plugin's OpenAPI types (openapi-types) do not admit.
      schemas: apiComponents as Record<string, object> as Record<string, never>,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key', description: 'An API key (esk_...)' },
        BearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token from POST /auth/token' },
        SessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'enrollsync_session',
          description: 'The console session from POST /session; changes also need the X-CSRF-Token header',
        },
      },
    },
    security: [{ ApiKey: [] }, { BearerToken: [] }, { SessionCookie: [] }],
  },
  // Shared schemas keep their $id as the component name (#/components/schemas/Problem).
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
  },
  transformObject: (documentObject) => {
    // Only the OpenAPI 3 form is generated here; the Swagger 2 branch exists in the plugin's type only.
    if (!('openapiObject' in documentObject)) throw new Error('Only OpenAPI 3 documents are generated')
    // On a copy: the plugin's document may share objects with the route schemas.
    return finishOpenApiDocument(documentEntityTags(structuredClone(documentObject.openapiObject as OpenApiDocumentParts)))
  },
}
