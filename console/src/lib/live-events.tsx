import { useEffect, useRef, useState } from 'react'

/*
 * Queues and pages refresh themselves from the service's server-sent events (GET /events/stream,
 * the session cookie authenticates the EventSource; Last-Event-ID resumes it). Until the schema
 * has that route (it is being built beside this console), nothing here is typed from
 * openapi.json: the payload is the watcher event `{id, type, timestamp, account_id, data}`.
 *
 * When the stream is missing (404 on an older service) or keeps failing, the console falls back
 * to reloading every POLL_MS while the tab is visible, so a queue is never stale for long.
 */

/** One event of the stream, as watchers receive it (until the schema has it). */
export interface LiveEvent {
  id?: string
  type: string
  timestamp?: string
  account_id?: string
  data?: { error_id?: string; work_order_id?: string; status?: string; [key: string]: unknown }
}

export type LiveMode = 'connecting' | 'live' | 'polling'

const STREAM_URL = '/events/stream'
const POLL_MS = 10_000
/** Several events in a burst (a check raising hundreds of errors) make one reload. */
const DEBOUNCE_MS = 400

type Listener = (event: LiveEvent | null) => void

// One EventSource per tab, shared by every page that listens.
let source: EventSource | null = null
let mode: LiveMode = 'connecting'
let failures = 0
let pollTimer: ReturnType<typeof setInterval> | null = null
const listeners = new Set<Listener>()
const modeListeners = new Set<(mode: LiveMode) => void>()
const KNOWN_TYPES = ['error.created', 'error.resolved', 'error.returned', 'error.commented', 'error.assigned', 'work_order.status_changed', 'work_order.assigned']

function setMode(next: LiveMode) {
  mode = next
  for (const listener of modeListeners) listener(next)
}

function dispatch(event: LiveEvent | null) {
  for (const listener of listeners) listener(event)
}

function startPolling() {
  source?.close()
  source = null
  setMode('polling')
  if (pollTimer) return
  pollTimer = setInterval(() => {
    if (document.visibilityState === 'visible') dispatch(null)
  }, POLL_MS)
}

function connect() {
  if (source || pollTimer || typeof EventSource === 'undefined') {
    if (typeof EventSource === 'undefined') startPolling()
    return
  }
  const stream = new EventSource(STREAM_URL, { withCredentials: true })
  source = stream
  setMode('connecting')
  stream.onopen = () => {
    failures = 0
    setMode('live')
  }
  const onMessage = (message: MessageEvent<string>) => {
    try {
      const parsed = JSON.parse(message.data) as LiveEvent
      dispatch({ ...parsed, type: parsed.type ?? message.type })
    } catch {
      dispatch({ type: message.type })
    }
  }
  for (const type of KNOWN_TYPES) stream.addEventListener(type, onMessage as EventListener)
  stream.onmessage = onMessage
  stream.onerror = () => {
    // A 404 (no stream on this service) or a refused session closes it for good; a dropped
    // connection is retried by the browser, and after a few failures polling takes over.
    failures += 1
    if (stream.readyState === EventSource.CLOSED || failures >= 3) startPolling()
  }
}

function disconnectIfUnused() {
  if (listeners.size > 0) return
  source?.close()
  source = null
  if (pollTimer) clearInterval(pollTimer)
  pollTimer = null
  failures = 0
}

/**
 * Calls `onChange` (debounced) when an event passes `relevant`, or on every poll when the stream
 * is unavailable. Answers how the page is kept fresh, for a small "live" note.
 */
export function useLiveRefresh(onChange: () => void, relevant: (event: LiveEvent) => boolean, enabled = true): LiveMode {
  const [current, setCurrent] = useState<LiveMode>(mode)
  const callback = useRef(onChange)
  const filter = useRef(relevant)
  callback.current = onChange
  filter.current = relevant
  useEffect(() => {
    if (!enabled) return
    let timer: ReturnType<typeof setTimeout> | null = null
    const listener: Listener = (event) => {
      if (event && !filter.current(event)) return
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => callback.current(), DEBOUNCE_MS)
    }
    listeners.add(listener)
    modeListeners.add(setCurrent)
    connect()
    setCurrent(mode)
    // Coming back to the tab: whatever changed meanwhile shows at once.
    const visible = () => {
      if (document.visibilityState === 'visible') listener(null)
    }
    document.addEventListener('visibilitychange', visible)
    return () => {
      if (timer) clearTimeout(timer)
      listeners.delete(listener)
      modeListeners.delete(setCurrent)
      document.removeEventListener('visibilitychange', visible)
      disconnectIfUnused()
    }
  }, [enabled])
  return current
}

export function LiveNote({ mode: current }: { mode: LiveMode }) {
  return (
    <span className="queue-live hint" title={current === 'polling' ? 'The live stream is not available: the list reloads every 10 seconds.' : undefined}>
      {current === 'live' ? '● Live' : current === 'polling' ? 'Refreshes every 10 s' : 'Connecting…'}
    </span>
  )
}
