import { useEffect, useId, useRef, type FormEvent, type ReactNode, type SyntheticEvent } from 'react'

/**
 * A modal form on the native <dialog>: the browser traps focus, Escape closes it and focus
 * returns to the button that opened it, which is what keyboard and screen-reader users expect.
 *
 * While `busy` the dialog stays open (Cancel is disabled and Escape does nothing), so a failure
 * the caller shows inside it is never lost. A `confirmation` (revoke, deactivate, delete, cancel)
 * puts the first focus on Cancel rather than on the irreversible button.
 *
 * The form does not use the browser's own validation (`noValidate`): fields marked required say
 * so (aria-required), and the caller checks them and says what is missing in its own words.
 */
export function FormDialog({
  open,
  title,
  submitLabel,
  busy,
  confirmation,
  onSubmit,
  onClose,
  children,
}: {
  open: boolean
  title: string
  submitLabel: string
  busy?: boolean
  confirmation?: boolean
  onSubmit: () => void
  onClose: () => void
  children: ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const titleId = useId()
  // What the caller says now, for the close event (which arrives after the render that caused it).
  const busyNow = useRef(busy)
  const openNow = useRef(open)
  busyNow.current = busy
  openNow.current = open
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      if (confirmation) cancelRef.current?.focus()
    }
    if (!open && dialog.open) dialog.close()
  }, [open, confirmation])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!busy) onSubmit()
  }
  // Escape: refused while the change runs, so its outcome is seen in the dialog.
  const cancel = (event: SyntheticEvent<HTMLDialogElement>) => {
    if (busy) event.preventDefault()
  }
  // The browser may close it anyway (a second Escape in a row cannot be refused): open it again
  // while busy, since the caller still means it to be open.
  const closed = () => {
    if (busyNow.current && openNow.current && ref.current && !ref.current.open) ref.current.showModal()
    else onClose()
  }
  return (
    <dialog ref={ref} onClose={closed} onCancel={cancel} aria-labelledby={titleId}>
      <form onSubmit={submit} noValidate>
        <h2 id={titleId}>{title}</h2>
        {children}
        <div className="actions">
          <button type="submit" className={confirmation ? 'danger' : 'primary'} disabled={busy}>
            {busy ? 'Working…' : submitLabel}
          </button>
          <button type="button" ref={cancelRef} onClick={onClose} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  )
}
