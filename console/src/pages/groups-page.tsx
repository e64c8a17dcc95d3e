import { useEffect, useState, type FormEvent } from 'react'
import { api, totalOf, unwrap } from '../api/client'
import { TextField } from '../components/fields'
import { AccountName, useAccountNames } from '../components/admin-account-picker'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { formatDateTime, words } from '../lib/format'
import { failureText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'

const PER_PAGE = 25

/**
 * The employer groups the account may see (operators: every account's), oldest first, searched
 * by organization name or external identifier; the search and the page live in the URL.
 */
export function GroupsPage() {
  const { session } = useSession()
  const operator = isOperator(session)
  const location = useLocation()
  const page = pageOf(location.query)
  const search = (location.query.get('search') ?? '').trim()
  const [draft, setDraft] = useState(search)

  // Back and forward (or a link) change the search: the box follows the URL.
  useEffect(() => setDraft(search), [search])

  const list = useApi(
    async (signal) => {
      const result = await api.GET('/groups', { params: { query: { page, per_page: PER_PAGE, ...(search ? { search } : {}) } }, signal })
      return { groups: unwrap(result).groups, total: totalOf(result.response) }
    },
    [page, search],
  )
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.groups.length, total: list.data.total } : undefined)
  const names = useAccountNames(operator)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    navigate(withQuery(location, { search: draft.trim().slice(0, 200), page: undefined }))
  }
  const clear = () => {
    setDraft('')
    navigate(withQuery(location, { search: undefined, page: undefined }))
  }

  return (
    <section>
      <h1>Groups</h1>
      <form className="filters" role="search" aria-label="Groups" onSubmit={submit}>
        <TextField label="Search" value={draft} onChange={setDraft} type="search" hint="Part of the organization name or of the external identifier" />
        <div className="actions groups-search-actions">
          <button type="submit" className="primary">
            Search
          </button>
          {search && (
            <button type="button" onClick={clear}>
              Show all groups
            </button>
          )}
        </div>
      </form>

      {list.state === 'error' && <ErrorMessage error={failureText(list.error)} onRetry={list.reload} />}
      {list.state === 'loading' && <Loading what={list.data ? 'Updating the groups' : 'Loading the groups'} />}
      {list.data &&
        (list.data.groups.length === 0 ? (
          <Empty>{search ? `No group’s name or external identifier contains “${search}”.` : 'No groups yet.'}</Empty>
        ) : (
          <>
            <div className="table-wrap">
              <table>
                <caption className="table-caption">
                  Groups{search ? ` matching “${search}”` : ''}, page {page}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Organization</th>
                    <th scope="col">External id</th>
                    <th scope="col">Market</th>
                    <th scope="col">Phase</th>
                    <th scope="col">Created</th>
                    {operator && <th scope="col">Account</th>}
                  </tr>
                </thead>
                <tbody>
                  {list.data.groups.map((group) => (
                    <tr key={group.id}>
                      <td>
                        <Link to={`/groups/${group.id}`}>{group.employer.organization_name}</Link>
                      </td>
                      <td>{group.external_identifier}</td>
                      <td>{words(group.insurance_market)}</td>
                      <td>
                        <Badge value={group.phase} />
                      </td>
                      <td>{formatDateTime(group.created_at)}</td>
                      {operator && (
                        <td>
                          <AccountName id={group.account_id} names={names} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="groups" />
          </>
        ))}
    </section>
  )
}
