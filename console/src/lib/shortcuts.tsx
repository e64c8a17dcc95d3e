import { useEffect, useRef, useState } from 'react'

export interface Shortcut {
  key: string
  what: string
  run: () => void
}

/** True when a key press belongs to what the user is typing or to an open dialog, not to the page. */
function typing(event: KeyboardEvent): boolean {
  const target = event.target
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  if (target.closest('dialog[open]')) return true
  const tag = target.tagName
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true
  if (tag === 'INPUT') {
    const type = (target as HTMLInputElement).type
    // A ticked checkbox keeps the shortcuts; a text box does not.
    return !['checkbox', 'radio', 'button', 'submit'].includes(type)
  }
  return false
}

/**
 * Single-key shortcuts of a page (j, k, x, r, c, ?). They never fire while typing in a field,
 * inside an open dialog, or with Ctrl, Alt or Meta held (the browser's own shortcuts stay).
 * `?` opens the help listing them; the caller renders <ShortcutsHelp>.
 */
export function useShortcuts(shortcuts: Shortcut[]): { helpOpen: boolean; closeHelp: () => void; openHelp: () => void } {
  const [helpOpen, setHelpOpen] = useState(false)
  const current = useRef(shortcuts)
  current.current = shortcuts
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented || typing(event)) return
      if (event.key === '?') {
        event.preventDefault()
        setHelpOpen(true)
        return
      }
      const shortcut = current.current.find((s) => s.key === event.key)
      if (!shortcut) return
      event.preventDefault()
      shortcut.run()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [])
  return { helpOpen, closeHelp: () => setHelpOpen(false), openHelp: () => setHelpOpen(true) }
}
