import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CreateUserBody, UserList, UserResponse, UsersQuery } from './users.schema.js'
import type { UsersService } from './users.service.js'

export function usersRoutes(app: App, users: UsersService): void {
  const tags = ['Users']

  app.post(
    '/users',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createUser',
        summary: 'Register a user',
        description:
          "Registers a user in the caller's account. Users are who error comments and resolutions name " +
          '(created_by, resolved_by). Emails are unique per account, case-insensitively. role_names is a closed list ' +
          '(an unknown role answers 422 at its index). A new user has no password: make them a set-password link with ' +
          'POST /users/{id}/password_links to sign in to the console. In the console only a user with the admin role ' +
          'may register users (403 admin_role_required otherwise).',
        tags,
        body: CreateUserBody,
        response: { 201: UserResponse, ...problemResponses('admin_role_required', 'validation_failed', 'email_already_registered') },
      },
    },
    async (request, reply) => {
      const user = await users.createUser(requireActor(request), request.body.user)
      return reply.code(201).send({ user })
    },
  )

  app.get(
    '/users',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listUsers',
        summary: "List the account's users",
        tags,
        querystring: UsersQuery,
        response: { 200: UserList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { email, status, account_id: accountId } = request.query
      const { items, total } = await users.listUsers(requireActor(request), { email, status, accountId }, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { users: items }
    },
  )

  app.get(
    '/users/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getUser',
        summary: 'Get a user',
        tags,
        params: IdParams,
        response: { 200: UserResponse, ...problemResponses('user_not_found') },
      },
    },
    async (request) => ({ user: await users.getUser(requireActor(request), request.params.id) }),
  )

  app.post(
    '/users/:id/deactivation',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'deactivateUser',
        summary: 'Deactivate a user',
        description:
          'A deactivated user can no longer be named in comments or resolutions, nor sign in to the console: their ' +
          'console sessions stop working at once. Deactivating again answers the user unchanged, with the first ' +
          'deactivation time. In the console only a user with the admin role may deactivate users (403 admin_role_required).',
        tags,
        params: IdParams,
        response: { 200: UserResponse, ...problemResponses('admin_role_required', 'user_not_found') },
      },
    },
    async (request) => ({ user: await users.deactivateUser(requireActor(request), request.params.id) }),
  )
}
