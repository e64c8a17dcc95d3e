import { useEffect, useRef, useState } from 'react'
import { api, unwrap } from '../api/client'
import { CommentThread } from '../components/errors-comments'
import { actOnError, ErrorMessageDialog, KIND_WORDS, PARTY_WORDS, valueText, type ErrorAction } from '../components/errors-shared'
import { useAccountUsers } from '../components/errors-filters'
import { AssignmentControl, HistoryTimeline, loadHistory } from '../components/errors-history'
import { ErrorSubjects } from '../components/errors-subjects'
import { ShortcutsButton, ShortcutsHelp } from '../components/shortcuts-help'
import { ShortId } from '../components/short-id'
import { Badge, ErrorMessage, Loading } from '../components/status'
import { ageWords, formatDateTime, words } from '../lib/format'
import { LiveNote, useLiveRefresh } from '../lib/live-events'
import { useShortcuts } from '../lib/shortcuts'
import { failureText, isGoneById, notFoundText } from '../lib/problems'
import { Link } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'

type Announcement = { tone: 'ok' | 'failed'; text: string } | null

/**
 * One error: the carrier's value beside the platform's, what it concerns, its resolution, the
 * comment thread, and the actions (comment, resolve, return to the other party), each signed by
 * the signed-in user.
 */
export function ErrorPage({ id }: { id: string }) {
  const { session } = useSession()
  const email: string = session.user.email
  const myParty = isOperator(session) ? 'service' : 'partner'

  const loaded = useApi(async (signal) => unwrap(await api.GET('/errors/{id}', { params: { path: { id } }, signal })).error, [id])
  const error = loaded.data
  const history = useApi((signal) => loadHistory(id, signal), [id])
  const users = useAccountUsers()
  const reloadAll = () => {
    loaded.reload()
    history.reload()
  }
  // Someone else comments, returns, assigns or resolves it: the page follows without a reload.
  const live = useLiveRefresh(reloadAll, (event) => event.type.startsWith('error.') && (event.data?.error_id === undefined || event.data.error_id === id))

  const [dialog, setDialog] = useState<ErrorAction | null>(null)
  const [busy, setBusy] = useState(false)
  const [dialogFailure, setDialogFailure] = useState<string | null>(null)
  const [announcement, setAnnouncement] = useState<Announcement>(null)
  // Which dialog is open when an action ends (Escape may have closed it meanwhile).
  const openDialog = useRef(dialog)
  useEffect(() => {
    openDialog.current = dialog
  }, [dialog])
  // After Resolve or Return the dialog closes and its opener may be gone (Return is offered
  // only while the error is with your party): the announcement takes the focus.
  const announcementRegion = useFocusRequest<HTMLDivElement>()
  const shortcuts = [
    { key: 'r', what: 'Resolve this error', run: () => setDialog('resolve') },
    { key: 'c', what: 'Write a comment', run: () => document.getElementById('error-comment-box')?.querySelector('textarea')?.focus() },
  ]
  const help = useShortcuts(shortcuts)

  if (loaded.state === 'loading' && !error) return <Loading what="Loading the error" />
  if (loaded.state === 'error' && (!error || isGoneById(loaded.error))) {
    const gone = isGoneById(loaded.error)
    return (
      <section>
        <h1>{gone ? 'Error not found' : 'Error'}</h1>
        <ErrorMessage error={gone ? notFoundText('This error') : failureText(loaded.error)} {...(gone ? {} : { onRetry: loaded.reload })} />
        <p>
          <Link to="/errors">Go to the errors</Link>
        </p>
      </section>
    )
  }
  if (!error) return <Loading what="Loading the error" />

  const act = async (action: ErrorAction, message: string) => {
    setBusy(true)
    setDialogFailure(null)
    setAnnouncement(null)
    const reason = await actOnError(action, error.id, message, email)
    setBusy(false)
    if (reason === null) {
      setDialog(null)
      setAnnouncement({ tone: 'ok', text: action === 'resolve' ? 'The error is resolved.' : `The error is returned to the ${PARTY_WORDS[otherParty(error.assignee)]}.` })
      announcementRegion.focus()
      reloadAll()
    } else if (openDialog.current === action) {
      setDialogFailure(reason)
    } else {
      setAnnouncement({ tone: 'failed', text: reason })
      announcementRegion.focus()
    }
  }

  const parameter = error.discrepancy.parameter
  const mayReturn = error.status === 'unresolved' && error.assignee === myParty

  return (
    <section>
      <p>
        <Link to="/errors">All errors</Link> · <Link to={`/coverage-periods/${error.coverage_period_id}/errors`}>Errors of this coverage period</Link>
      </p>
      <div className="queue-heading">
        <h1>Error: {words(parameter)}</h1>
        <div className="queue-tools">
          <LiveNote mode={live} />
          <ShortcutsButton onClick={help.openHelp} />
        </div>
      </div>
      <p className="errors-badges">
        <Badge value={error.status} /> <Badge value={`assigned to ${error.assignee}`} kind={`assignee-${error.assignee}`} /> <Badge value={error.severity} />{' '}
        <Badge value={`source: ${words(error.source)}`} kind={`source-${error.source}`} />
      </p>
      <p className="errors-standard-message">{error.message}</p>
      <p className="hint">
        {error.member_name ?? 'No member named'} · {error.employer_name}
        {isOperator(session) ? ` · account ${error.account_name}` : ''} · {ageWords(error.age_seconds)} · raised {formatDateTime(error.created_at)}
      </p>

      <div role="status" aria-live="polite" tabIndex={-1} ref={announcementRegion.ref}>
        {announcement && (
          <p className={announcement.tone === 'ok' ? 'notice' : 'error-message'} role={announcement.tone === 'failed' ? 'alert' : undefined}>
            {announcement.text}
          </p>
        )}
      </div>
      {loaded.state === 'error' && <ErrorMessage error={`The error could not be reloaded: ${failureText(loaded.error)}`} onRetry={loaded.reload} />}

      <section aria-labelledby="discrepancy-heading">
        <h2 id="discrepancy-heading">Discrepancy</h2>
        <p>{KIND_WORDS[error.discrepancy.kind]}.</p>
        <div className="comparison errors-comparison">
          <div role="group" aria-labelledby="carrier-value">
            <h3 id="carrier-value">Carrier</h3>
            <p className="value">{valueText(parameter, error.discrepancy.carrier)}</p>
          </div>
          <div role="group" aria-labelledby="platform-value">
            <h3 id="platform-value">Platform</h3>
            <p className="value">{valueText(parameter, error.discrepancy.platform)}</p>
          </div>
        </div>
      </section>

      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => {
            setDialogFailure(null)
            setDialog('resolve')
          }}
        >
          Resolve
        </button>
        {mayReturn && (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setDialogFailure(null)
              setDialog('return')
            }}
          >
            Return to the other party
          </button>
        )}
      </div>
      {mayReturn && <p className="hint">Returning hands it to the {PARTY_WORDS[otherParty(error.assignee)]}, who acts next.</p>}
      {error.status === 'unresolved' && !mayReturn && (
        <p className="hint">It is with the {PARTY_WORDS[error.assignee]}: only they can return it.</p>
      )}
      {error.status === 'returned' && <p className="hint">It was returned to the {PARTY_WORDS[error.assignee]}; it can be returned again once it is unresolved.</p>}

      <div className="columns">
        <section aria-labelledby="concerns-heading" className="panel errors-panel">
          <h2 id="concerns-heading">What it concerns</h2>
          <ErrorSubjects error={error} />
        </section>
        <section aria-labelledby="history-heading" className="panel errors-panel">
          <h2 id="history-heading">Who and when</h2>
          <AssignmentControl
            error={error}
            users={users}
            mayAssign={error.assignee === myParty}
            onChanged={(text) => {
              setAnnouncement({ tone: 'ok', text })
              reloadAll()
            }}
          />
          <dl className="facts">
            <dt>Raised</dt>
            <dd>
              {formatDateTime(error.created_at)}
              {error.created_by ? ` by ${error.created_by.email}` : ''}
            </dd>
            <dt>Waiting</dt>
            <dd>{ageWords(error.age_seconds).replace(/^waiting /, '')} (since it last reached a party's queue)</dd>
            {error.resolution && (
              <>
                <dt>Resolved</dt>
                <dd>
                  {formatDateTime(error.resolution.created_at)} by {error.resolution.resolved_by}
                </dd>
                <dt>Resolution</dt>
                <dd className="errors-prewrap">{error.resolution.message}</dd>
              </>
            )}
            {error.transaction_ids.length > 0 && (
              <>
                <dt>Member transactions</dt>
                <dd>
                  {error.transaction_ids.map((transactionId) => (
                    <span key={transactionId}>
                      <ShortId id={transactionId} />{' '}
                    </span>
                  ))}
                </dd>
              </>
            )}
            {error.census_requests && (
              <>
                <dt>Census request</dt>
                <dd>
                  <ShortId id={error.census_requests.id} /> ({words(error.census_requests.status)}, {formatDateTime(error.census_requests.created_at)})
                </dd>
              </>
            )}
          </dl>
        </section>
      </div>

      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">History</h2>
        <HistoryTimeline history={history} />
      </section>

      <div id="error-comment-box">
        <CommentThread
          error={error}
          email={email}
          onCommented={reloadAll}
          returnIds={new Set((history.data ?? []).flatMap((entry) => (entry.type === 'returned' && entry.comment ? [entry.comment.id] : [])))}
        />
      </div>
      <ShortcutsHelp open={help.helpOpen} shortcuts={shortcuts} onClose={help.closeHelp} />

      <ErrorMessageDialog
        open={dialog === 'resolve'}
        title={error.status === 'resolved' ? 'Change the resolution' : 'Resolve the error'}
        submitLabel="Resolve"
        label="What was done, or why the data is correct"
        intro={`The resolution is signed by ${email}.`}
        busy={busy}
        failure={dialog === 'resolve' ? dialogFailure : null}
        onSubmit={(message) => void act('resolve', message)}
        onClose={() => setDialog((current) => (current === 'resolve' ? null : current))}
      />
      <ErrorMessageDialog
        open={dialog === 'return'}
        title={`Return to the ${PARTY_WORDS[otherParty(error.assignee)]}`}
        submitLabel="Return"
        label="Why it goes back (recorded as a comment)"
        intro={`The error becomes “returned” and the ${PARTY_WORDS[otherParty(error.assignee)]} acts next. The comment is signed by ${email}.`}
        busy={busy}
        failure={dialog === 'return' ? dialogFailure : null}
        onSubmit={(message) => void act('return', message)}
        onClose={() => setDialog((current) => (current === 'return' ? null : current))}
      />
    </section>
  )
}

function otherParty(party: 'service' | 'partner'): 'service' | 'partner' {
  return party === 'service' ? 'partner' : 'service'
}
