import { Type, type Static } from 'typebox'
import { PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

/** The interface document's form for users named in comments: text@text.text. */
export const UserEmail = Type.String({
  pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
  maxLength: 254,
  description: 'Email of the user, of the form text@text.text; stored lower-cased',
  examples: ['jane.doe@example.com'],
})

/**
 * The roles a user may be given. Only `admin` changes what a user may do; the others say what the
 * user works on, shown wherever the user is named (comments, resolutions). A closed list, so a
 * misspelt role answers 422 at its field instead of silently granting nothing.
 */
export const ROLE_NAMES = ['admin', 'benefits_admin', 'operations'] as const
export type RoleNameValue = (typeof ROLE_NAMES)[number]

export const RoleName = Type.Enum([...ROLE_NAMES], {
  description:
    'A role of the user. admin: in the console, manages the users of the account (adds them, creates their ' +
    'set-password links, deactivates them) and its API keys. benefits_admin: works on groups, members and their ' +
    'errors. operations: works the error queue and carrier follow-up. Roles other than admin grant nothing beyond ' +
    'what every console user of the account may do; they name the user\'s job where the user is shown.',
  examples: ['admin'],
})

/** The user object of service-interface.md 2.3: deactivated_at only when the user is inactive. */
export const UserSchema = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    created_at: Timestamp,
    deactivated_at: Type.Optional(Timestamp),
    // Plain strings in answers: a role recorded before the list was closed is still shown as it is.
    role_names: Type.Array(Type.String(), { description: 'The roles of the user; see role_names of POST /users for their meaning' }),
  },
  { additionalProperties: false },
)
export type User = Static<typeof UserSchema>

export const CreateUserBody = Type.Object(
  {
    user: Type.Object(
      {
        email: UserEmail,
        role_names: Type.Array(RoleName, { maxItems: 20, uniqueItems: true, default: [] }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [{ user: { email: 'jane.doe@example.com', role_names: ['benefits_admin'] } }] },
)
export type CreateUserInput = Static<typeof CreateUserBody>['user']

export const UsersQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Exact email, case-insensitive' })),
    status: Type.Optional(Type.Enum(['active', 'deactivated'])),
    account_id: Type.Optional(Type.String({ format: 'uuid', description: 'Operators only: list the users of another account' })),
  },
  { additionalProperties: false },
)

const userExample = { id: '0193a4b2-0000-7000-8000-000000000003', email: 'jane.doe@example.com', created_at: '2026-11-22T09:30:00.000Z', role_names: ['benefits_admin'] }

export const UserResponse = Type.Object({ user: UserSchema }, { description: 'The user', examples: [{ user: userExample }] })
export const UserList = Type.Object(
  { users: Type.Array(UserSchema) },
  { description: 'One page of users; see the Total and Link headers', examples: [{ users: [userExample] }] },
)
