import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from '../../http/schemas.js'
import { PASSWORD_MAX_LENGTH } from '../../lib/passwords.js'
import { UserEmail, UserSchema } from '../users/users.schema.js'

export const SignInBody = Type.Object(
  {
    email: { ...UserEmail, description: 'The email of a user of your account who was given a password (case-insensitive)' },
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'The password (12 to 256 characters)' }),
  },
  { additionalProperties: false, examples: [{ email: 'jane.doe@example.com', password: 'correct horse battery staple' }] },
)
export type SignInInput = Static<typeof SignInBody>

export const SessionAccountSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    kind: Type.Enum(['partner', 'service'], { description: 'partner: a client platform; service: the operator of the service' }),
  },
  { additionalProperties: false, description: 'The account the signed-in user belongs to and acts for' },
)

export const SessionSchema = Type.Object(
  {
    user: UserSchema,
    account: SessionAccountSchema,
    csrf_token: Type.String({
      description: 'Send it back in the X-CSRF-Token header on every POST, PUT, PATCH and DELETE made with this session',
    }),
    expires_at: { ...Timestamp, description: 'When the session ends, whatever happens in between (absolute lifetime)' },
  },
  { additionalProperties: false },
)
export type Session = Static<typeof SessionSchema>

const sessionExample = {
  user: { id: '0193a4b2-0000-7000-8000-000000000003', email: 'jane.doe@example.com', created_at: '2026-11-22T09:30:00.000Z', role_names: ['admin'] },
  account: { id: '0193a4b2-0000-7000-8000-000000000001', name: 'Acme Benefits', kind: 'partner' },
  csrf_token: 'sV3kq0bq3n0m2Yl6p1c8GJm6bQ4uWfZ2m9x7T1aQeXo',
  expires_at: '2026-11-22T21:30:00.000Z',
}

export const SessionResponse = Type.Object(
  { session: SessionSchema },
  { additionalProperties: false, description: 'The signed-in user, their account and the CSRF token', examples: [{ session: sessionExample }] },
)
