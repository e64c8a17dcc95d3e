/**
 * The command line's usage text and usage error, kept apart from the commands so that
 * `enrollsync --help` answers without loading the service's modules (most of a second).
 * Import nothing heavy here.
 */

export class UsageError extends Error {}

export const USAGE = `Usage: enrollsync <command> [options]    (or: npm run cli -- <command> [options])

  accounts create --name NAME --kind partner|service [--external-identifier ID]
  accounts list [--kind partner|service]
  keys create --account ACCOUNT_ID --name NAME      prints the new key once
  keys list --account ACCOUNT_ID
  keys revoke KEY_ID
  users create --account ACCOUNT_ID --email EMAIL [--roles ROLE,...]   roles: admin, benefits_admin, operations
  users list --account ACCOUNT_ID
  users deactivate USER_ID
  users set-password USER_ID                       reads the new console password from standard input
  users reset-password USER_ID                     sets a generated password and prints it once
  migrate                                          apply pending migrations
  help

The command line works on the database of the current environment (DATABASE_URL, or the
embedded one in DATA_DIR). With the embedded database, stop the service first: one process at a time.
While the service runs, give a console user a password with a set-password link instead: the
console's Users page, or POST /users/USER_ID/password_links. Output is JSON.

Console passwords are 12 to 256 characters. set-password reads the first line of standard input,
so the password never appears in the command line or the shell history:
  printf '%s\\n' "$PASSWORD" | npm run cli -- users set-password USER_ID
Both password commands end the user's open console sessions. Sign-in is by email alone, so an
email can hold a password in one account only.`
