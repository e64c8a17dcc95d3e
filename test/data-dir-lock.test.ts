import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { acquireDataDirLock, DataDirLockedError } from '../src/db/data-dir-lock.js'
import { openDatabase } from '../src/db/database.js'

const root = mkdtempSync(join(tmpdir(), 'enrollsync-lock-'))
let dirCount = 0
const freshDir = () => join(root, `data-${++dirCount}`)
const lockFile = (dir: string) => join(dir, 'enrollsync.lock')

/** Another process that is alive for the whole file: the holder of a lock we did not take. */
let holder: ChildProcess
beforeAll(async () => {
  holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' })
  await new Promise((resolve, reject) => holder.once('spawn', resolve).once('error', reject))
})
afterAll(() => {
  holder?.kill()
  rmSync(root, { recursive: true, force: true })
})

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}

function writeLock(dir: string, content: string): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(lockFile(dir), content)
}

describe('the data directory lock', () => {
  it('when the directory is free, then the lock is taken with our pid and release removes it', () => {
    const dir = freshDir()
    const lock = acquireDataDirLock(dir)
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(process.pid))
    lock.release()
    expect(existsSync(lockFile(dir))).toBe(false)
    // Released means free: it can be taken again, and a second release is harmless.
    lock.release()
    acquireDataDirLock(dir).release()
  })

  it('when another live process holds the directory, then DataDirLockedError names the directory and the pid', () => {
    const dir = freshDir()
    writeLock(dir, String(holder.pid))
    let thrown: unknown
    try {
      acquireDataDirLock(dir)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(DataDirLockedError)
    const error = thrown as DataDirLockedError
    expect(error).toMatchObject({ dataDir: dir, holderPid: holder.pid })
    expect(error.message).toContain(dir)
    expect(error.message).toContain(`pid ${holder.pid}`)
    // The holder's lock is left alone.
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(holder.pid))
  })

  it('when the lock was left by a process that has died, then it is taken over', async () => {
    const dir = freshDir()
    const pid = await deadPid()
    writeLock(dir, String(pid))
    const lock = acquireDataDirLock(dir)
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(process.pid))
    lock.release()
  })

  it('when the lock file holds no pid (a crash while writing it), then it is taken over', () => {
    const dir = freshDir()
    writeLock(dir, '')
    const lock = acquireDataDirLock(dir)
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(process.pid))
    lock.release()
  })

  it('when the directory does not exist yet, then it is created', () => {
    const dir = join(freshDir(), 'nested', 'deeper')
    const lock = acquireDataDirLock(dir)
    expect(existsSync(lockFile(dir))).toBe(true)
    lock.release()
  })
})

describe('opening the embedded database', () => {
  it('when a data directory is open, then a second open of it fails until the first is closed', async () => {
    const dataDir = freshDir()
    const first = await openDatabase({ kind: 'embedded', dataDir })
    try {
      await expect(openDatabase({ kind: 'embedded', dataDir })).rejects.toBeInstanceOf(DataDirLockedError)
      await expect(openDatabase({ kind: 'embedded', dataDir })).rejects.toThrow(`pid ${process.pid}`)
      // The refused open did not take the lock away from the first.
      expect(readFileSync(lockFile(dataDir), 'utf8')).toBe(String(process.pid))
      await first.ping()
    } finally {
      await first.close()
    }
    expect(existsSync(lockFile(dataDir))).toBe(false)
    const again = await openDatabase({ kind: 'embedded', dataDir })
    await again.ping()
    await again.close()
    // Two embedded databases opened and closed: 9 s in CI and 16 s on a loaded machine, of the 30 s default.
  }, 90_000)
})
