import { parseArgs } from 'node:util'
import type { Static, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import type { Services } from '../app.js'
import { fieldProblemsFromValidation } from '../http/validation.js'
import type { Actor } from '../lib/actor.js'
import { isUuid } from '../lib/ids.js'
import { CreateAccountBody, CreateApiKeyBody } from '../modules/accounts/accounts.schema.js'
import { CreateUserBody } from '../modules/users/users.schema.js'
import { UsageError } from './usage.js'

export { USAGE, UsageError } from './usage.js'

const cliActor = (accountId: string): Actor => ({
  accountId,
  accountKind: 'service',
  apiKeyId: null,
  apiKeyName: null,
  requestId: null,
  channel: 'cli',
})

/** Checks CLI input with the API's own request schema, so both refuse the same things. */
function validated<S extends TSchema>(schema: S, body: unknown): Static<S> {
  // Options not given are absent, not undefined, so they read as "is required".
  const candidate = Value.Default(schema, JSON.parse(JSON.stringify(body)))
  const checker = Compile(schema)
  if (checker.Check(candidate)) return candidate
  const problems = fieldProblemsFromValidation(checker.Errors(candidate), 'body')
  // Pointers like /user/email or /user/role_names/0 become the option names a CLI user typed: --email, --roles.
  throw new UsageError(problems.map((p) => `--${optionOf(p.pointer ?? '')} ${p.detail}`).join('; '))
}

const OPTION_OF_FIELD: Record<string, string> = { role_names: 'roles' }

function optionOf(pointer: string): string {
  const field = pointer.split('/').filter((part) => part !== '' && !/^\d+$/.test(part)).pop() ?? ''
  return OPTION_OF_FIELD[field] ?? field.replace(/_/g, '-')
}

function uuidArgument(value: string | undefined, what: string): string {
  if (!value || !isUuid(value)) throw new UsageError(`${what} must be a UUID`)
  return value
}

const OPTIONS = {
  name: { type: 'string' },
  kind: { type: 'string' },
  'external-identifier': { type: 'string' },
  account: { type: 'string' },
  email: { type: 'string' },
  roles: { type: 'string' },
} as const

/** Where a command reads what must not be an argument (a password): standard input, in `main/cli.ts`. */
export interface CommandInput {
  readStdin(): Promise<string>
}

const NO_INPUT: CommandInput = {
  readStdin: () => Promise.reject(new UsageError('This command reads standard input, which is not available here')),
}

/** The first line of standard input without its line ending: the password of `users set-password`. */
async function passwordFromStdin(input: CommandInput): Promise<string> {
  const text = await input.readStdin()
  const firstLine = text.split(/\r?\n/, 1)[0] ?? ''
  if (firstLine === '') {
    throw new UsageError(`users set-password reads the password from the first line of standard input, e.g.: printf '%s\\n' "$PASSWORD" | npm run cli -- users set-password USER_ID`)
  }
  return firstLine
}

/**
 * Runs one command against the services and answers what to print. Everything goes through the
 * same services as the API, so the rules (validation, audit events) are the same.
 */
export async function runCommand(argv: string[], services: Services, input: CommandInput = NO_INPUT): Promise<unknown> {
  const { positionals, values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  const [resource, action, target] = positionals

  switch (`${resource} ${action}`) {
    case 'accounts create': {
      const { account } = validated(CreateAccountBody, {
        account: { name: values.name, kind: values.kind, external_identifier: values['external-identifier'] },
      })
      return services.accounts.createAccount(cliActor(''), account)
    }
    case 'accounts list': {
      if (values.kind !== undefined && values.kind !== 'partner' && values.kind !== 'service') {
        throw new UsageError('--kind must be partner or service')
      }
      return (await services.accounts.listAccounts(values.kind, { page: 1, perPage: 100 })).items
    }
    case 'keys create': {
      const accountId = uuidArgument(values.account, '--account')
      const { api_key } = validated(CreateApiKeyBody, { api_key: { name: values.name } })
      return services.accounts.createApiKey(cliActor(accountId), accountId, api_key.name)
    }
    case 'keys list':
      return services.accounts.listApiKeys(cliActor(''), uuidArgument(values.account, '--account'))
    case 'keys revoke': {
      const keyId = uuidArgument(target, 'KEY_ID')
      return services.accounts.revokeApiKey(cliActor(''), keyId)
    }
    case 'users create': {
      const accountId = uuidArgument(values.account, '--account')
      const roles = (values.roles ?? '').split(',').map((role) => role.trim()).filter(Boolean)
      const { user } = validated(CreateUserBody, { user: { email: values.email, role_names: roles } })
      await services.accounts.getAccount(accountId)
      return services.users.createUser(cliActor(accountId), user, accountId)
    }
    case 'users list': {
      const accountId = uuidArgument(values.account, '--account')
      return (await services.users.listUsers(cliActor(accountId), { accountId }, { page: 1, perPage: 100 })).items
    }
    case 'users deactivate':
      return services.users.deactivateUser(cliActor(''), uuidArgument(target, 'USER_ID'))
    case 'users set-password': {
      const userId = uuidArgument(target, 'USER_ID')
      return services.consolePasswords.setPassword(cliActor(''), userId, await passwordFromStdin(input))
    }
    case 'users reset-password':
      return services.consolePasswords.resetPassword(cliActor(''), uuidArgument(target, 'USER_ID'))
    default:
      throw new UsageError(resource ? `Unknown command: ${positionals.join(' ')}` : 'No command given')
  }
}
