import { useState } from 'react'
import { api, totalOf, unwrap, type Schema } from '../api/client'
import { everyPage } from '../lib/every-page'
import { failureText } from '../lib/problems'
import { navigate, useLocation, withQuery } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'
import { SelectField } from './fields'
import { ShortId } from './short-id'
import { ErrorMessage, Loading } from './status'

export type Account = Schema<'Account'>

const ACCOUNTS_PER_PAGE = 100

/**
 * The account an administration page works on: an account administrator's own account; for an
 * operator, the one named by `?account=` in the URL (so a link or a reload keeps it), else their own.
 */
export function useChosenAccount(): { accountId: string; operator: boolean; own: boolean; choose: (accountId: string) => void } {
  const { session } = useSession()
  const location = useLocation()
  const operator = isOperator(session)
  const ownId: string = session.account.id
  const requested = location.query.get('account')
  const accountId = operator && requested ? requested : ownId
  const choose = (next: string) => navigate(withQuery(location, { account: next === ownId ? undefined : next, page: undefined }))
  return { accountId, operator, own: accountId === ownId, choose }
}

/**
 * Accounts by id, for naming them in lists (operators only: GET /accounts is an operator call).
 * Every page of them up to MAX_PICKER_CHOICES, so an account past the first hundred is named
 * too; beyond the cap an account shows its id.
 */
export function useAccountNames(enabled: boolean): Map<string, string> {
  const names = useApi(
    async (signal) => {
      if (!enabled) return new Map<string, string>()
      const accounts = await everyPage((paging) => api.GET('/accounts', { params: { query: paging }, signal }), (data) => data.accounts)
      return new Map(accounts.map((account) => [account.id, account.name]))
    },
    [enabled],
  )
  return names.data ?? new Map<string, string>()
}

/** An account's name when known, else the end of its id (the full id in the title). */
export function AccountName({ id, names }: { id: string | null; names: Map<string, string> }) {
  if (!id) return <>—</>
  const name = names.get(id)
  return name ? <span title={id}>{name}</span> : <ShortId id={id} />
}

/**
 * The operator's choice of account (a select over GET /accounts, a hundred at a time with "Load
 * more accounts"); the choice goes into the URL. Renders nothing for account administrators.
 */
export function AccountPicker() {
  const { session } = useSession()
  const { accountId, operator, choose } = useChosenAccount()
  const [pages, setPages] = useState(1)
  const accounts = useApi(
    async (signal) => {
      if (!operator) return { accounts: [] as Account[], total: 0 }
      const all: Account[] = []
      let total = 0
      for (let page = 1; page <= pages; page++) {
        const result = await api.GET('/accounts', { params: { query: { page, per_page: ACCOUNTS_PER_PAGE } }, signal })
        all.push(...unwrap(result).accounts)
        total = totalOf(result.response)
      }
      return { accounts: all, total }
    },
    [operator, pages],
  )
  if (!operator) return null

  const ownId: string = session.account.id
  const loaded = accounts.data?.accounts ?? []
  const options = loaded.map((account) => ({
    value: account.id,
    label: `${account.name}${account.kind === 'service' ? ' (operators)' : ''}${account.id === ownId ? ' · your account' : ''}`,
  }))
  if (!loaded.some((account) => account.id === accountId)) {
    options.unshift({ value: accountId, label: accountId === ownId ? `${session.account.name} · your account` : `Account ${accountId}` })
  }
  const more = accounts.data !== undefined && loaded.length < accounts.data.total

  return (
    <div className="filters admin-account-picker">
      <SelectField label="Account" value={accountId} options={options} anyLabel={null} onChange={choose} />
      {more && (
        <button type="button" onClick={() => setPages((n) => n + 1)} disabled={accounts.state === 'loading'}>
          Load more accounts
        </button>
      )}
      {accounts.state === 'loading' && <Loading what="Loading the accounts" />}
      {accounts.state === 'error' && <ErrorMessage error={`The list of accounts could not be loaded: ${failureText(accounts.error)}`} onRetry={accounts.reload} />}
    </div>
  )
}
