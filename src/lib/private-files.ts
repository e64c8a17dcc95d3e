import { chmod, mkdir, stat } from 'node:fs/promises'

/**
 * Files the service writes that hold PII (834 files, carriers' acknowledgements) are for the
 * service's own user only: 0600 files in 0700 directories, whatever the umask of the process or
 * the mode a directory was first made with.
 */
export const PRIVATE_FILE_MODE = 0o600
export const PRIVATE_DIRECTORY_MODE = 0o700

/** Group or other permission bits. */
const SHARED_BITS = 0o077

export type LooseDirectoryWarning = (message: string) => void

/** Node's warning channel: printed on stderr with the process's other warnings, and observable. */
export const emitLooseDirectoryWarning: LooseDirectoryWarning = (message) =>
  process.emitWarning(message, { code: 'ENROLLSYNC_SHARED_DIRECTORY' })

/**
 * Creates `directory` (and missing parents) as 0700, and takes group and other access away from
 * an existing one. A directory the service cannot tighten (owned by another user, a file system
 * without modes) is left as it is and `warn` is told why: the files in it are 0600 regardless,
 * but their names, and any file written earlier, stay visible to others.
 */
export async function ensurePrivateDirectory(directory: string, warn: LooseDirectoryWarning = emitLooseDirectoryWarning): Promise<void> {
  await mkdir(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
  const { mode } = await stat(directory)
  if ((mode & SHARED_BITS) === 0) return
  try {
    await chmod(directory, mode & ~SHARED_BITS & 0o7777)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'error'
    warn(`${directory} is open to other users (mode ${(mode & 0o777).toString(8)}) and could not be made 0700 (${reason}): files holding PII are written there`)
  }
}

/** Takes group and other access away from a file written by someone else (a carrier's upload); best effort. */
export async function makeFilePrivate(path: string): Promise<void> {
  await chmod(path, PRIVATE_FILE_MODE).catch(() => undefined)
}
