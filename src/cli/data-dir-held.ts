import type { DataDirLockedError } from '../db/data-dir-lock.js'

// Light on purpose, like usage.ts: the command line prints this without loading the service.

const INSTEAD: Record<string, string> = {
  'users set-password': 'give the user a one-time set-password link instead',
  'users reset-password': 'give the user a one-time set-password link instead',
  'users create': 'add the user in the console (Users, "Add a console user") or with POST /users, then give them a set-password link',
  'users deactivate': 'deactivate the user in the console (Users) or with POST /users/USER_ID/deactivation',
  'keys create': 'create the key in the console (API keys) or with POST /accounts/ACCOUNT_ID/api_keys',
  'keys revoke': 'revoke the key in the console (API keys) or with DELETE /api_keys/KEY_ID',
}

/**
 * What to tell someone whose command found the embedded database held by the running service:
 * the command cannot run now, how to do the same without stopping the service, and how to stop it.
 */
export function dataDirHeldAdvice(error: Pick<DataDirLockedError, 'dataDir' | 'holderPid'>, argv: readonly string[]): string {
  const command = argv.slice(0, 2).join(' ')
  return [
    `The service (pid ${error.holderPid}) is running and holds the data directory ${error.dataDir}. The embedded database ` +
      `allows one process at a time, so \`${command}\` cannot open it now.`,
    `While the service runs, ${INSTEAD[command] ?? 'do the same through the console or the API'}.`,
    'Console passwords: in the console open Users and choose "Set-password link" beside the user (an administrator of the',
    "account, or an operator), or call POST /users/USER_ID/password_links with an operator key.",
    'The link is shown once; hand it over. It works once and expires (PASSWORD_LINK_TTL_SECONDS, 24 hours by default).',
    'Or stop the service first and run the command again. With PostgreSQL (DATABASE_URL) both can run at once.',
  ].join('\n')
}
