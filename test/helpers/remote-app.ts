import type { InjectOptions } from 'fastify'
import type { App } from '../../src/http/app-types.js'

/** What `call` (test-app.ts) and the factories built on it read from an answer. */
export interface RemoteResponse {
  statusCode: number
  body: string
  headers: Record<string, string>
  // any, as LightMyRequestResponse.json() answers: the tests read the fields they know of.
  json(): any
}

export interface RemoteApp {
  /** Hands to `call(app, ...)` and to the factories that take a TestApp: each request goes over HTTP. */
  app: App
  /** How many requests each origin answered, in the order of `origins`. */
  served: number[]
}

/**
 * An `App` whose `inject` sends the request over real HTTP to running service processes, taking
 * the origins in turn (round robin), so the factories written for in-process tests
 * (installThroughApi, registerUser, ...) drive several API processes without a copy of their own.
 * Only `inject` exists: anything else a caller reaches for is a mistake in the test.
 */
export function remoteApp(origins: readonly string[]): RemoteApp {
  const served = origins.map(() => 0)
  let next = 0
  const inject = async (options: InjectOptions): Promise<RemoteResponse> => {
    const index = next++ % origins.length
    served[index]!++
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = String(value)
    let body: string | undefined
    if (options.payload !== undefined) {
      body = typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload)
      headers['content-type'] ??= 'application/json'
    }
    const res = await fetch(`${origins[index]}${options.url as string}`, { method: options.method ?? 'GET', headers, ...(body === undefined ? {} : { body }) })
    const text = await res.text()
    return {
      statusCode: res.status,
      body: text,
      headers: Object.fromEntries(res.headers),
      json: () => JSON.parse(text),
    }
  }
  // The factories type their argument as the in-process App, but call nothing on it but inject.
  return { app: { inject } as unknown as App, served }
}
