import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError } from '../api/client'

export type Loadable<T> =
  | { state: 'loading'; data?: T }
  | { state: 'error'; error: ApiError | Error; data?: T }
  | { state: 'ready'; data: T }

/**
 * Loads data for a page and reloads it when `deps` change or `reload()` is called. Answers that
 * arrive after a newer request started are dropped, so a fast typist never sees an older page.
 * The previous data stays visible while the next page loads.
 */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loadable<T> & { reload: () => void } {
  const [result, setResult] = useState<Loadable<T>>({ state: 'loading' })
  const [generation, setGeneration] = useState(0)
  const latest = useRef(0)

  useEffect(() => {
    const request = ++latest.current
    const controller = new AbortController()
    setResult((previous) => ({ state: 'loading', ...(previous.data !== undefined ? { data: previous.data } : {}) }))
    load(controller.signal).then(
      (data) => {
        if (request === latest.current) setResult({ state: 'ready', data })
      },
      (error: unknown) => {
        if (request !== latest.current || controller.signal.aborted) return
        setResult((previous) => ({
          state: 'error',
          error: error instanceof Error ? error : new Error(String(error)),
          ...(previous.data !== undefined ? { data: previous.data } : {}),
        }))
      },
    )
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller lists what the load depends on
  }, [...deps, generation])

  const reload = useCallback(() => setGeneration((g) => g + 1), [])
  return { ...result, reload }
}
