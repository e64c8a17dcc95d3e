import { useState, type FormEvent } from 'react'
import { api } from '../api/client'
import { formatDateTime } from '../lib/format'
import { refusalText, UNREACHABLE } from '../lib/problems'
import { PARTY_WORDS, type ErrorComment, type ErrorRecord } from './errors-shared'
import { TextField } from './fields'
import { Badge, Empty, ErrorMessage } from './status'

type Outcome = { tone: 'ok' | 'failed'; text: string } | null

/**
 * The comments of an error, oldest first, and a box to add one signed by the signed-in user.
 * The form checks the comment itself (`noValidate`), so its own words show, not the browser's.
 */
export function CommentThread({
  error,
  email,
  onCommented,
  returnIds = new Set<string>(),
}: {
  error: ErrorRecord
  email: string
  onCommented: () => void
  /** The comments that carried a return (from the history): shown as a hand-over, not a remark. */
  returnIds?: ReadonlySet<string>
}) {
  const [message, setMessage] = useState('')
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (message.trim() === '') {
      setOutcome({ tone: 'failed', text: 'Write a comment first.' })
      return
    }
    setBusy(true)
    setOutcome(null)
    try {
      const { error: problem, response } = await api.POST('/errors/{id}/comments', { params: { path: { id: error.id } }, body: { message: message.trim(), created_by: email } })
      if (response.ok) {
        setMessage('')
        setOutcome({ tone: 'ok', text: 'Comment added.' })
        onCommented()
      } else {
        setOutcome({ tone: 'failed', text: refusalText(response.status, problem, 'This error') })
      }
    } catch {
      setOutcome({ tone: 'failed', text: UNREACHABLE })
    } finally {
      setBusy(false)
    }
  }

  const comments = [...error.comments].sort((a, b) => a.created_at.localeCompare(b.created_at))
  return (
    <section aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments ({comments.length.toLocaleString()})</h2>
      {comments.length === 0 ? (
        <Empty>No comments yet.</Empty>
      ) : (
        <ol className="thread">
          {comments.map((comment) => (
            <CommentItem key={comment.id} comment={comment} returned={returnIds.has(comment.id)} />
          ))}
        </ol>
      )}
      <form onSubmit={(event) => void submit(event)} className="panel errors-comment-form" noValidate>
        <TextField label="Add a comment" value={message} onChange={setMessage} multiline required hint={`Signed by ${email}. It does not change the status.`} />
        <div role="status" aria-live="polite">
          {outcome?.tone === 'ok' && <p className="notice">{outcome.text}</p>}
        </div>
        {outcome?.tone === 'failed' && <ErrorMessage error={outcome.text} />}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Sending…' : 'Add comment'}
        </button>
      </form>
    </section>
  )
}

function CommentItem({ comment, returned }: { comment: ErrorComment; returned: boolean }) {
  return (
    <li className={returned ? 'comment-returned' : undefined}>
      <div className="meta">
        {comment.created_by ? comment.created_by.email : `An API key of the ${PARTY_WORDS[comment.sent_by]}`} · <Badge value={comment.sent_by} kind={`party-${comment.sent_by}`} /> ·{' '}
        <time dateTime={comment.created_at}>{formatDateTime(comment.created_at)}</time>
        {returned && (
          <>
            {' '}
            · <Badge value="returned to the other party" kind="returned" />
          </>
        )}
      </div>
      <p className="errors-prewrap">{comment.message}</p>
    </li>
  )
}
