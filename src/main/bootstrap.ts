import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Services } from '../app.js'
import type { Db } from '../db/schema.js'
import { systemActor } from '../lib/actor.js'
import { countAccounts } from '../modules/accounts/accounts.repo.js'

// The account being created does not exist before its own creation event.
const NO_ACCOUNT_YET = '00000000-0000-0000-0000-000000000000'

interface ConsoleSignIn {
  user_id: string
  email: string
  password: string
}

export interface BootstrapCredentials {
  service: { account_id: string; api_key_id: string; api_key: string; console: ConsoleSignIn }
  partner: { account_id: string; api_key_id: string; api_key: string; console: ConsoleSignIn }
}

// Emails under reserved names (RFC 2606): the first users are for trying the console, not mail.
export const FIRST_OPERATOR_EMAIL = 'operator@enrollsync.example'
export const FIRST_PARTNER_EMAIL = 'admin@demo-partner.example'


/**
 * First start of an empty embedded database: an operator account and a demo partner, each with
 * one API key and one administrator who can sign in to the console with a generated password,
 * written to DATA_DIR/credentials.json (mode 0600) so they can be found again. Answers undefined
 * when the database already has accounts.
 */
export async function bootstrapFirstStart(db: Db, services: Services, dataDir: string): Promise<BootstrapCredentials | undefined> {
  if ((await countAccounts(db)) > 0) return undefined
  const create = async (name: string, kind: 'service' | 'partner', keyName: string, email: string) => {
    const account = await services.accounts.createAccount(systemActor(NO_ACCOUNT_YET), { name, kind })
    const actor = systemActor(account.id)
    const key = await services.accounts.createApiKey(actor, account.id, keyName)
    const user = await services.users.createUser(actor, { email, role_names: ['admin'] }, account.id)
    const { password } = await services.consolePasswords.resetPassword(actor, user.id)
    return { account_id: account.id, api_key_id: key.id, api_key: key.key, console: { user_id: user.id, email, password } }
  }
  const credentials: BootstrapCredentials = {
    service: await create('Enrollsync operator', 'service', 'bootstrap operator key', FIRST_OPERATOR_EMAIL),
    partner: await create('Demo partner', 'partner', 'demo partner key', FIRST_PARTNER_EMAIL),
  }
  writeFileSync(join(dataDir, 'credentials.json'), JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 })
  return credentials
}
