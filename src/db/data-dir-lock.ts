import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Enrollsync process (pid ${holderPid}). ` +
        'The embedded database allows one process at a time: stop that process first, or point ' +
        'DATA_DIR at another directory, or use PostgreSQL (DATABASE_URL) to run several processes.',
    )
  }
}

export interface DataDirLock {
  release(): void
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM means the process exists but belongs to someone else: still a live holder.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * PGlite does not lock its directory, and two processes writing one data directory corrupt it.
 * A lock file created with O_EXCL holds our pid; a lock left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const lockPath = join(dataDir, 'enrollsync.lock')
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      let released = false
      return {
        release() {
          if (released) return
          released = true
          rmSync(lockPath, { force: true })
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holderPid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10)
      if (Number.isInteger(holderPid) && holderPid > 0 && isAlive(holderPid)) {
        throw new DataDirLockedError(dataDir, holderPid)
      }
      rmSync(lockPath, { force: true })
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}`)
}
