import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const AccountKind = Type.Enum(['partner', 'service'], {
  description: 'partner: a client platform. service: the operator of the service.',
})

export const AccountSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    kind: AccountKind,
    external_identifier: Nullable(Type.String()),
    created_at: Timestamp,
  },
  { additionalProperties: false },
)
export type Account = Static<typeof AccountSchema>

export const CreateAccountBody = Type.Object(
  {
    account: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        kind: AccountKind,
        external_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [{ account: { name: 'Acme Benefits', kind: 'partner', external_identifier: 'acme' } }],
  },
)
export type CreateAccountInput = Static<typeof CreateAccountBody>['account']

export const ApiKeySchema = Type.Object(
  {
    id: Uuid,
    account_id: Uuid,
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
    created_at: Timestamp,
    revoked_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
)
export type ApiKey = Static<typeof ApiKeySchema>

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    key: Type.String({ description: 'The secret key. Shown only in this response: store it now.' }),
  },
  { additionalProperties: false },
)

export const CreateApiKeyBody = Type.Object(
  {
    api_key: Type.Object(
      { name: Type.String({ minLength: 1, maxLength: 200, description: 'What the key is for; shown as resolved_by' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [{ api_key: { name: 'production integration' } }] },
)

const accountExample = { id: '0193a4b2-0000-7000-8000-000000000001', name: 'Acme Benefits', kind: 'partner', external_identifier: 'acme', created_at: '2026-11-22T09:30:00.000Z' }
const apiKeyExample = { id: '0193a4b2-0000-7000-8000-000000000002', account_id: '0193a4b2-0000-7000-8000-000000000001', name: 'production integration', prefix: 'esk_Q2xpZW50', created_at: '2026-11-22T09:30:00.000Z', revoked_at: null }

export const AccountResponse = Type.Object({ account: AccountSchema }, { description: 'The account', examples: [{ account: accountExample }] })
export const AccountList = Type.Object(
  { accounts: Type.Array(AccountSchema) },
  { description: 'One page of accounts', examples: [{ accounts: [accountExample] }] },
)
export const ApiKeyResponse = Type.Object(
  { api_key: CreatedApiKeySchema },
  {
    description: 'The new key, with its secret shown this once',
    examples: [{ api_key: { ...apiKeyExample, key: 'esk_Q2xpZW50X2V4YW1wbGVfa2V5X25vdF9yZWFsXzAwMDAwMDA' } }],
  },
)
export const ApiKeyList = Type.Object(
  { api_keys: Type.Array(ApiKeySchema) },
  { description: "The account's keys, without secrets", examples: [{ api_keys: [apiKeyExample] }] },
)
export const AccountsQuery = Type.Object({ ...PaginationQuery.properties, kind: Type.Optional(AccountKind) }, { additionalProperties: false })
