import type { UserRow } from '../../db/schema.js'
import type { ErrorComment } from './errors.schema.js'

/** A comment just written, shown as a read would show it (2.4). */
export function presentComment(comment: {
  id: string
  error_id: string
  message: string
  created_at: Date
  user: UserRow | null
  sent_by: 'partner' | 'service'
}): ErrorComment {
  const { user } = comment
  return {
    id: comment.id,
    error_id: comment.error_id,
    message: comment.message,
    created_at: comment.created_at.toISOString(),
    created_by: user
      ? { id: user.id, email: user.email, role_names: user.role_names, ...(user.deactivated_at ? { deactivated_at: user.deactivated_at.toISOString() } : {}) }
      : null,
    sent_by: comment.sent_by,
  }
}
