import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Services } from '../app.js'
import type { Db } from '../db/schema.js'
import { systemActor } from '../lib/actor.js'
import { countAccounts } from '../modules/accounts/accounts.repo.js'

// The account being created does not exist before its own creation event.
const NO_ACCOUNT_YET = '00000000-0000-0000-0000-000000000000'

export interface BootstrapCredentials {
  service: { account_id: string; api_key_id: string; api_key: string }
  partner: { account_id: string; api_key_id: string; api_key: string }
}


/**
 * First start of an empty embedded database: an operator account and a demo partner, one key
 * each, written to DATA_DIR/credentials.json (mode 0600) so the keys can be found again.
 * Answers undefined when the database already has accounts.
 */
export async function bootstrapFirstStart(db: Db, services: Services, dataDir: string): Promise<BootstrapCredentials | undefined> {
  if ((await countAccounts(db)) > 0) return undefined
  const create = async (name: string, kind: 'service' | 'partner', keyName: string) => {
    const account = await services.accounts.createAccount(systemActor(NO_ACCOUNT_YET), { name, kind })
    const key = await services.accounts.createApiKey(systemActor(account.id), account.id, keyName)
    return { account_id: account.id, api_key_id: key.id, api_key: key.key }
  }
  const credentials: BootstrapCredentials = {
    service: await create('Enrollsync operator', 'service', 'bootstrap operator key'),
    partner: await create('Demo partner', 'partner', 'demo partner key'),
  }
  writeFileSync(join(dataDir, 'credentials.json'), JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 })
  return credentials
}
