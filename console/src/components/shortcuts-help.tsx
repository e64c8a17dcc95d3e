import { useEffect, useId, useRef } from 'react'
import type { Shortcut } from '../lib/shortcuts'

/** The `?` dialog: every shortcut of the page, and that they pause while typing. */
export function ShortcutsHelp({ open, shortcuts, onClose }: { open: boolean; shortcuts: Pick<Shortcut, 'key' | 'what'>[]; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby={titleId} className="shortcuts-help">
      <h2 id={titleId}>Keyboard shortcuts</h2>
      <dl className="facts">
        {shortcuts.map((shortcut) => (
          <div key={shortcut.key} className="shortcuts-row">
            <dt>
              <kbd>{shortcut.key}</kbd>
            </dt>
            <dd>{shortcut.what}</dd>
          </div>
        ))}
        <div className="shortcuts-row">
          <dt>
            <kbd>?</kbd>
          </dt>
          <dd>This help</dd>
        </div>
      </dl>
      <p className="hint">Shortcuts pause while you type in a field or a dialog is open.</p>
      <div className="actions">
        <button type="button" className="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  )
}

/** A small button opening the help, for those who do not know `?`. */
export function ShortcutsButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="shortcuts-button" onClick={onClick} aria-keyshortcuts="?">
      Shortcuts <kbd aria-hidden="true">?</kbd>
    </button>
  )
}
