import type { ReactNode } from 'react'
import { formatDateTime } from '../lib/format'

/** Announced politely to screen readers, so a slow page is not silent. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {what}…
    </p>
  )
}

/** An API failure, in the service's words, announced at once. */
export function ErrorMessage({ error, onRetry }: { error: Error | string; onRetry?: () => void }) {
  return (
    <div className="error-message" role="alert">
      <p>{typeof error === 'string' ? error : error.message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  )
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>
}

export function Badge({ value, kind }: { value: string; kind?: string }) {
  return <span className={`badge badge-${kind ?? value}`}>{value.replace(/_/g, ' ')}</span>
}

/** "active", or the state something ended in (revoked, deactivated) with when. */
export function ActiveOr({ ended, endedAt }: { ended: string; endedAt: string | null | undefined }) {
  if (!endedAt) return <Badge value="active" />
  return (
    <>
      <Badge value={ended} /> <span className="hint">{formatDateTime(endedAt)}</span>
    </>
  )
}
