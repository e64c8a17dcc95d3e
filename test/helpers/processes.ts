import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'

export interface Started {
  child: ChildProcessWithoutNullStreams
  output: () => string
  url: string
}

/** Starts `node <script>` with the given environment and waits for its "listening on <url>" line. */
export function startProcess(script: string, env: Record<string, string>, timeoutMs = 30_000): Promise<Started> {
  const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env } })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no "listening" line within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const check = () => {
      const match = /listening on (http:\/\/[^\s]+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        child.stdout.off('data', check)
        resolve({ child, output: () => output, url: match[1]! })
      }
    }
    child.stdout.on('data', check)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before listening:\n${output}`))
    })
  })
}

/** Runs a script to completion and answers its exit code and output. */
export function runProcess(script: string, args: string[], env: Record<string, string>, timeoutMs = 30_000) {
  const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...env } })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

export function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  // A child killed by a signal has a signalCode and no exitCode; its exit event is already past.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

/** Starts `node <script>` and waits until its output matches `ready` (a worker has no "listening" line). */
export function startProcessUntil(script: string, env: Record<string, string>, ready: RegExp, timeoutMs = 30_000): Promise<Omit<Started, 'url'>> {
  const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env } })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no output matching ${ready} within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const collect = (chunk: Buffer) => {
      output += chunk
      if (ready.test(output)) {
        clearTimeout(timer)
        resolve({ child, output: () => output })
      }
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before it was ready:\n${output}`))
    })
  })
}
