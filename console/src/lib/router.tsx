import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react'

/**
 * A small router over the History API: the console has a dozen pages, which does not justify a
 * routing library in the bundle. Paths are relative to /console; the query string is part of a
 * page's state (filters, page number), so a link or a reload shows the same list.
 */
export const BASE = '/console'

export interface Location {
  path: string
  query: URLSearchParams
}

function currentLocation(): Location {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) || '/' : '/'
  return { path: path.replace(/\/+$/, '') || '/', query: new URLSearchParams(window.location.search) }
}

const listeners = new Set<() => void>()

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : `${BASE}${to}`
  if (options.replace) window.history.replaceState(null, '', url)
  else window.history.pushState(null, '', url)
  for (const listener of listeners) listener()
  if (!options.replace) window.scrollTo(0, 0)
}

export function useLocation(): Location {
  const [location, setLocation] = useState(currentLocation)
  useEffect(() => {
    const update = () => setLocation(currentLocation())
    listeners.add(update)
    window.addEventListener('popstate', update)
    return () => {
      listeners.delete(update)
      window.removeEventListener('popstate', update)
    }
  }, [])
  return location
}

/** Replaces some query parameters (empty values are removed) and keeps the rest. */
export function withQuery(location: Location, changes: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams(location.query)
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === '') query.delete(key)
    else query.set(key, String(value))
  }
  const text = query.toString()
  return `${location.path}${text ? `?${text}` : ''}`
}

/** Matches `/errors/:id` style patterns; answers the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split('/').filter(Boolean)
  const pathParts = path.split('/').filter(Boolean)
  if (patternParts.length !== pathParts.length) return null
  const params: Record<string, string> = {}
  for (const [index, part] of patternParts.entries()) {
    const actual = pathParts[index]!
    if (part.startsWith(':')) {
      // A malformed escape (`/errors/%E0%A4%A`) names nothing: no match, so the page says Not found.
      const decoded = decodeSafely(actual)
      if (decoded === null) return null
      params[part.slice(1)] = decoded
    } else if (part !== actual) return null
  }
  return params
}

function decodeSafely(part: string): string | null {
  try {
    return decodeURIComponent(part)
  } catch {
    return null
  }
}

/** An ordinary link (open in new tab works) that navigates in place on a plain click. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const href = `${BASE}${to}`
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(to)
  }
  return (
    <a {...rest} href={href} onClick={onClick}>
      {children}
    </a>
  )
}
