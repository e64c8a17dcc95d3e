import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from '../../http/schemas.js'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.js'

const TOKEN_DESCRIPTION = 'The secret of the link: 43 characters (256 random bits, base64url). Only its SHA-256 is stored.'

export const PasswordLinkToken = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: TOKEN_DESCRIPTION })

export const PasswordLinkSchema = Type.Object(
  {
    id: Uuid,
    user_id: Uuid,
    url: Type.String({
      description:
        'The console page that sets the password, with the token after `#` (browsers never send that part to a server, ' +
        'so it stays out of access logs and Referer headers). Hand it to the user; it is shown this once.',
    }),
    token: { ...PasswordLinkToken, description: `${TOKEN_DESCRIPTION} For clients that build their own page: send it to POST /password_links/redemption.` },
    created_at: Timestamp,
    expires_at: { ...Timestamp, description: 'When the link stops working if it was not used (PASSWORD_LINK_TTL_SECONDS after created_at)' },
  },
  { additionalProperties: false },
)
export type PasswordLink = Static<typeof PasswordLinkSchema>

const linkExample = {
  id: '0193a4b2-0000-7000-8000-000000000031',
  user_id: '0193a4b2-0000-7000-8000-000000000003',
  url: 'https://enrollsync.example.com/console/set-password#token=q3Jx0m9kR1vU7bT2yW4zA6cE8gI0kM2oQ4sU6wY8a1C',
  token: 'q3Jx0m9kR1vU7bT2yW4zA6cE8gI0kM2oQ4sU6wY8a1C',
  created_at: '2026-11-22T09:30:00.000Z',
  expires_at: '2026-11-23T09:30:00.000Z',
}

export const PasswordLinkResponse = Type.Object(
  { password_link: PasswordLinkSchema },
  { additionalProperties: false, description: 'The new link, shown once', examples: [{ password_link: linkExample }] },
)

export const RedeemPasswordLinkBody = Type.Object(
  {
    token: PasswordLinkToken,
    password: Type.String({
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_LENGTH,
      description: `The new console password, ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
    }),
  },
  { additionalProperties: false, examples: [{ token: linkExample.token, password: 'correct horse battery staple' }] },
)
export type RedeemPasswordLinkInput = Static<typeof RedeemPasswordLinkBody>

export const PasswordLinkRedeemedResponse = Type.Object(
  {
    user: Type.Object({ id: Uuid, email: Type.String() }, { additionalProperties: false, description: 'Who can now sign in with the password' }),
    password_set_at: Timestamp,
  },
  {
    additionalProperties: false,
    description: 'The password is set; sign in with POST /session',
    examples: [{ user: { id: linkExample.user_id, email: 'jane.doe@example.com' }, password_set_at: '2026-11-22T10:02:00.000Z' }],
  },
)
export type PasswordLinkRedeemed = Static<typeof PasswordLinkRedeemedResponse>
