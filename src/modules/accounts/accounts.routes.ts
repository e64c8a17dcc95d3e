import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { requireActor } from '../../http/guard.js'
import {
  AccountList,
  AccountResponse,
  AccountsQuery,
  ApiKeyList,
  ApiKeyResponse,
  CreateAccountBody,
  CreateApiKeyBody,
} from './accounts.schema.js'
import type { AccountsService } from './accounts.service.js'

/**
 * Operator endpoints: only service credentials reach them (the guard answers 403 otherwise). API
 * keys are also managed by account administrators signed in to the console, for their own account.
 */
const ACCOUNT_ADMINS =
  'Operators (service credentials) may do it for any account. A user with the admin role signed in to the console may ' +
  "do it for their own account only (another account's id answers 404); other console users get 403 " +
  'admin_role_required, and partner API keys 403 forbidden.'

export function accountsRoutes(app: App, accounts: AccountsService): void {
  const tags = ['Operator']

  app.post(
    '/accounts',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'createAccount',
        summary: 'Create an account (operators)',
        description: 'A partner account is a client platform; a service account belongs to the operator of the service.',
        tags,
        body: CreateAccountBody,
        response: { 201: AccountResponse, ...problemResponses('forbidden', 'validation_failed', 'duplicate_external_identifier') },
      },
    },
    async (request, reply) => {
      const account = await accounts.createAccount(requireActor(request), request.body.account)
      return reply.code(201).send({ account })
    },
  )

  app.get(
    '/accounts',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'listAccounts',
        summary: 'List accounts (operators)',
        tags,
        querystring: AccountsQuery,
        response: { 200: AccountList, ...problemResponses('forbidden', 'validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await accounts.listAccounts(request.query.kind, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { accounts: items }
    },
  )

  app.get(
    '/accounts/:id',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'getAccount',
        summary: 'Get an account (operators)',
        tags,
        params: IdParams,
        response: { 200: AccountResponse, ...problemResponses('forbidden', 'account_not_found') },
      },
    },
    async (request) => ({ account: await accounts.getAccount(request.params.id) }),
  )

  app.post(
    '/accounts/:id/api_keys',
    {
      config: { auth: 'account_admin' },
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key for an account (operators and account administrators)',
        description:
          'The secret `key` is returned once, in this response; only its hash is stored. ' + ACCOUNT_ADMINS,
        tags,
        params: IdParams,
        body: CreateApiKeyBody,
        response: { 201: ApiKeyResponse, ...problemResponses('forbidden', 'account_not_found', 'validation_failed') },
      },
    },
    async (request, reply) => {
      const apiKey = await accounts.createApiKey(requireActor(request), request.params.id, request.body.api_key.name)
      return reply.code(201).header('Cache-Control', 'no-store').send({ api_key: apiKey })
    },
  )

  app.get(
    '/accounts/:id/api_keys',
    {
      config: { auth: 'account_admin' },
      schema: {
        operationId: 'listApiKeys',
        summary: "List an account's API keys (operators and account administrators)",
        description: 'Secrets are never shown again; `prefix` tells keys apart. ' + ACCOUNT_ADMINS,
        tags,
        params: IdParams,
        response: { 200: ApiKeyList, ...problemResponses('forbidden', 'account_not_found') },
      },
    },
    async (request) => ({ api_keys: await accounts.listApiKeys(requireActor(request), request.params.id) }),
  )

  app.delete(
    '/api_keys/:id',
    {
      config: { auth: 'account_admin' },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (operators and account administrators)',
        description:
          'The key and every token minted from it stop working at once on this instance and within ' +
          'API_KEY_CACHE_SECONDS (default 5) on the others. Revoking a revoked key answers 204 again. ' + ACCOUNT_ADMINS,
        tags,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Revoked (or already revoked)' }), ...problemResponses('forbidden', 'api_key_not_found') },
      },
    },
    async (request, reply) => {
      await accounts.revokeApiKey(requireActor(request), request.params.id)
      return reply.code(204).send(null)
    },
  )
}
