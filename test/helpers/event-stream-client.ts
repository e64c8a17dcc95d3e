import http from 'node:http'

/** One dispatched block of a server-sent event stream (an id-only block included). */
export interface StreamBlock {
  id: string | undefined
  event: string | undefined
  data: string | undefined
  retry: string | undefined
}

/**
 * A minimal EventSource for tests, over a real connection (app.inject cannot stream): it parses
 * the stream the way the WHATWG algorithm does (lines, `field: value`, comments, a blank line
 * dispatching), keeps every block and comment, and tracks the last event id.
 */
export class StreamClient {
  readonly blocks: StreamBlock[] = []
  readonly comments: string[] = []
  lastEventId: string | undefined
  ended = false
  #buffer = ''
  #current: StreamBlock = { id: undefined, event: undefined, data: undefined, retry: undefined }
  #waiters: (() => void)[] = []

  private constructor(
    readonly response: http.IncomingMessage,
    private readonly request: http.ClientRequest,
  ) {
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => this.#feed(chunk))
    const finish = () => {
      this.ended = true
      this.#notify()
    }
    response.on('end', finish)
    response.on('close', finish)
    response.on('error', finish)
  }

  /** Opens the stream; resolves once the response headers arrived (whatever the status). */
  static open(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => resolve(new StreamClient(response, request)))
      request.on('error', reject)
    })
  }

  get status(): number {
    return this.response.statusCode ?? 0
  }

  /** The dispatched events (blocks with data), in order. */
  get events(): StreamBlock[] {
    return this.blocks.filter((block) => block.data !== undefined)
  }

  /** The parsed data of every event. */
  payloads<T = { id: string; type: string; account_id: string; data: Record<string, unknown> }>(): T[] {
    return this.events.map((block) => JSON.parse(block.data!) as T)
  }

  /** Waits until the condition holds (checked on every block, comment and the end). */
  async until(condition: (client: StreamClient) => boolean, timeoutMs = 10_000, what = 'the stream condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!condition(this)) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`Timed out waiting for ${what}; received ${JSON.stringify(this.blocks)}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  /** The body of a non-stream answer (a problem). */
  async body(): Promise<string> {
    await this.until((client) => client.ended)
    return this.#buffer
  }

  close(): void {
    this.request.destroy()
  }

  #feed(chunk: string): void {
    if (this.status !== 200) {
      this.#buffer += chunk
      return
    }
    this.#buffer += chunk
    let newline: number
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '')
      this.#buffer = this.#buffer.slice(newline + 1)
      this.#line(line)
    }
    this.#notify()
  }

  #line(line: string): void {
    if (line === '') {
      const block = this.#current
      this.#current = { id: undefined, event: undefined, data: undefined, retry: undefined }
      if (block.id !== undefined) this.lastEventId = block.id
      if (block.id !== undefined || block.data !== undefined || block.retry !== undefined) this.blocks.push(block)
      return
    }
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1).trim())
      return
    }
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') this.#current.data = this.#current.data === undefined ? value : `${this.#current.data}\n${value}`
    else if (field === 'id' || field === 'event' || field === 'retry') this.#current[field] = value
  }

  #notify(): void {
    for (const waiter of this.#waiters.splice(0)) waiter()
  }
}
