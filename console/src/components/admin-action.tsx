import { useCallback, useState, type Ref } from 'react'
import { failureText } from '../lib/problems'
import { ErrorMessage } from './status'

/** What the last action of a page (or of a dialog) came to, in words. */
export type Outcome = { kind: 'ok'; text: string } | { kind: 'error'; text: string } | null

/**
 * One change at a time: `busy` while it runs (buttons are disabled), then the outcome to announce.
 * `run` answers the result, or undefined when the service refused (the outcome then says why;
 * a 404 names `thing` as not found or not visible).
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome>(null)
  const run = useCallback(async <T,>(work: () => Promise<T>, success: (result: T) => string, thing?: string): Promise<T | undefined> => {
    setBusy(true)
    setOutcome(null)
    try {
      const result = await work()
      setOutcome({ kind: 'ok', text: success(result) })
      return result
    } catch (error) {
      setOutcome({ kind: 'error', text: failureText(error, thing) })
      return undefined
    } finally {
      setBusy(false)
    }
  }, [])
  const clear = useCallback(() => setOutcome(null), [])
  return { busy, outcome, run, clear, setOutcome }
}

/**
 * The outcome of an action: successes in a polite live region that is always present (so screen
 * readers announce the change), failures as an alert in the service's words. `ref` names the
 * region, which can take the focus when the button that acted is gone.
 */
export function OutcomeMessage({ outcome, ref }: { outcome: Outcome; ref?: Ref<HTMLDivElement> }) {
  return (
    <div ref={ref} tabIndex={-1} className="admin-outcome-wrap">
      <div role="status" aria-live="polite" className="admin-outcome">
        {outcome?.kind === 'ok' && <p className="notice">{outcome.text}</p>}
      </div>
      {outcome?.kind === 'error' && <ErrorMessage error={outcome.text} />}
    </div>
  )
}
