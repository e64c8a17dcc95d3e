import type { ReactElement } from 'react'
import { match } from './lib/router'
import { isAdmin, isOperator, type Session } from './lib/session'
import { ApiKeysPage } from './pages/api-keys-page'
import { AuditPage } from './pages/audit-page'
import { ErrorPage } from './pages/error-page'
import { ErrorsPage } from './pages/errors-page'
import { GroupPage } from './pages/group-page'
import { GroupsPage } from './pages/groups-page'
import { NotFoundPage } from './pages/not-found-page'
import { SetPasswordPage } from './pages/set-password-page'
import { UsersPage } from './pages/users-page'
import { WatcherPage } from './pages/watcher-page'
import { WatchersPage } from './pages/watchers-page'
import { WorkOrderPage } from './pages/work-order-page'
import { WorkOrdersPage } from './pages/work-orders-page'

type Audience = 'everyone' | 'operators' | 'admins'

interface RouteDefinition {
  pattern: string
  title: string
  audience: Audience
  render: (params: Record<string, string>) => ReactElement
}

/** Every page of the console; the navigation shows the ones the signed-in user may open. */
export const ROUTES: RouteDefinition[] = [
  { pattern: '/work-orders', title: 'Work orders', audience: 'operators', render: () => <WorkOrdersPage /> },
  { pattern: '/work-orders/:id', title: 'Work order', audience: 'operators', render: (p) => <WorkOrderPage id={p.id!} /> },
  { pattern: '/errors', title: 'Errors', audience: 'everyone', render: () => <ErrorsPage /> },
  { pattern: '/coverage-periods/:id/errors', title: 'Errors of a coverage period', audience: 'everyone', render: (p) => <ErrorsPage coveragePeriodId={p.id!} /> },
  { pattern: '/errors/:id', title: 'Error', audience: 'everyone', render: (p) => <ErrorPage id={p.id!} /> },
  { pattern: '/groups', title: 'Groups', audience: 'everyone', render: () => <GroupsPage /> },
  { pattern: '/groups/:id', title: 'Group', audience: 'everyone', render: (p) => <GroupPage id={p.id!} /> },
  { pattern: '/watchers', title: 'Watchers', audience: 'everyone', render: () => <WatchersPage /> },
  { pattern: '/watchers/:id', title: 'Watcher', audience: 'everyone', render: (p) => <WatcherPage id={p.id!} /> },
  { pattern: '/api-keys', title: 'API keys', audience: 'admins', render: () => <ApiKeysPage /> },
  { pattern: '/users', title: 'Users', audience: 'admins', render: () => <UsersPage /> },
  { pattern: '/audit', title: 'Audit log', audience: 'operators', render: () => <AuditPage /> },
]

/** The links of the navigation bar, in order. */
export const NAVIGATION: { to: string; label: string; audience: Audience }[] = [
  { to: '/work-orders', label: 'Work orders', audience: 'operators' },
  { to: '/errors', label: 'Errors', audience: 'everyone' },
  { to: '/groups', label: 'Groups', audience: 'everyone' },
  { to: '/watchers', label: 'Watchers', audience: 'everyone' },
  { to: '/api-keys', label: 'API keys', audience: 'admins' },
  { to: '/users', label: 'Users', audience: 'admins' },
  { to: '/audit', label: 'Audit log', audience: 'operators' },
]

/** A page that needs nobody signed in, or null: a set-password link is opened before its user has a password. */
export function publicPage(path: string): ReactElement | null {
  return path === '/set-password' ? <SetPasswordPage /> : null
}

export function mayOpen(audience: Audience, session: Session): boolean {
  if (audience === 'operators') return isOperator(session)
  // Operators administer every account, so they see the admin pages too.
  if (audience === 'admins') return isAdmin(session) || isOperator(session)
  return true
}

/** The operator's day starts at the work orders, a client team's at its errors. */
export function homeOf(session: Session): string {
  return isOperator(session) ? '/work-orders' : '/errors'
}

export function resolveRoute(path: string, session: Session): { title: string; element: ReactElement } {
  if (path === '/') {
    const home = ROUTES.find((route) => route.pattern === homeOf(session))!
    return { title: home.title, element: home.render({}) }
  }
  for (const route of ROUTES) {
    const params = match(route.pattern, path)
    if (!params) continue
    if (!mayOpen(route.audience, session)) return { title: 'Not available', element: <NotFoundPage reason="This page is not available to your account." /> }
    return { title: route.title, element: route.render(params) }
  }
  return { title: 'Not found', element: <NotFoundPage /> }
}
