import { useCallback, useEffect, useRef, useState } from 'react'

/**
 * Moves the focus to an element after the next render: for an action whose button disappears
 * or is disabled by its own outcome (focus would fall to the page's start), and after a dialog
 * closes (a modal dialog hands the focus back to its opener as it closes, so the move waits for
 * that render's effects: a dialog is a child, and children's effects run first).
 */
export function useFocusRequest<T extends HTMLElement>() {
  const ref = useRef<T>(null)
  const [request, setRequest] = useState(0)
  useEffect(() => {
    if (request > 0) ref.current?.focus()
  }, [request])
  const focus = useCallback(() => setRequest((n) => n + 1), [])
  return { ref, focus }
}
