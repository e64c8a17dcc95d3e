import { useEffect, useId, useRef, useState, type ReactNode } from 'react'

/**
 * A secret the service shows only once (an API key, a watcher's signing secret): shown in a
 * `.secret` box with a Copy button, and kept on screen until the reader says it is stored. The
 * panel takes focus when it appears so keyboard and screen-reader users land on it.
 */
export function SecretOnce({ title, secret, children, onDone }: { title: string; secret: string; children?: ReactNode; onDone: () => void }) {
  const headingId = useId()
  const panel = useRef<HTMLElement>(null)
  const text = useRef<HTMLParagraphElement>(null)
  const [copyNote, setCopyNote] = useState('')

  useEffect(() => {
    // After the dialog that asked for it has closed and handed focus back.
    const timer = window.setTimeout(() => panel.current?.focus(), 0)
    return () => window.clearTimeout(timer)
  }, [secret])

  const selectText = () => {
    const node = text.current
    const selection = window.getSelection()
    if (!node || !selection) return
    const range = document.createRange()
    range.selectNodeContents(node)
    selection.removeAllRanges()
    selection.addRange(range)
  }

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard')
      await navigator.clipboard.writeText(secret)
      setCopyNote('Copied to the clipboard.')
    } catch {
      selectText()
      setCopyNote('This browser did not let the console copy it: the text is selected, press Ctrl+C (⌘C on a Mac) to copy it.')
    }
  }

  return (
    <section className="panel admin-secret" aria-labelledby={headingId} tabIndex={-1} ref={panel}>
      <h2 id={headingId}>{title}</h2>
      {children}
      <p>
        <strong>Copy it now: it will not be shown again.</strong>
      </p>
      <p className="secret" ref={text}>
        {secret}
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
      <p role="status" aria-live="polite" className="hint">
        {copyNote}
      </p>
    </section>
  )
}
