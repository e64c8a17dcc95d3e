import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type WatcherErrorCode = 'watcher_not_found' | 'watcher_delivery_not_found' | 'watcher_delivery_pending' | 'watcher_disabled' | 'watcher_limit_reached'

export const watcherNotFound = () => new DomainError<WatcherErrorCode>('watcher_not_found', 'No watcher has this id in your account.')

export const deliveryNotFound = () =>
  new DomainError<WatcherErrorCode>('watcher_delivery_not_found', 'No watcher delivery has this id in your account.')

export const deliveryPending = () =>
  new DomainError<WatcherErrorCode>(
    'watcher_delivery_pending',
    'The delivery is still pending: its next attempt is already queued. Retry it once it has succeeded or failed.',
  )

export const watcherDisabled = () =>
  new DomainError<WatcherErrorCode>(
    'watcher_disabled',
    'The watcher of this delivery is disabled; re-enable it with PATCH /watchers/{id} {"watcher": {"status": "active"}} first.',
  )

export const watcherLimitReached = (limit: number) =>
  new DomainError<WatcherErrorCode>(
    'watcher_limit_reached',
    `Your account already has ${limit} watchers, the most it may have. Delete one (DELETE /watchers/{id}) or change an existing one instead.`,
  )

export const watcherValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The watcher has ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems)
