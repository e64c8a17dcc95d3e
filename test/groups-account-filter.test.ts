import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { groupBody } from './helpers/group-fixtures.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// GET /groups?account_id=: the console's Group picker lists one account's groups with it, so an
// operator with thousands of groups still finds every group of the account chosen. It behaves as
// GET /errors?account_id= does: it narrows what the caller may see and never widens it.

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

async function newGroup(who: Credential, organizationName = 'Acme Widgets Inc.'): Promise<string> {
  const res = await call(t.app, who, 'POST', '/groups', { group: groupBody({ employer: { ...(groupBody().employer as object), organization_name: organizationName } }) })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().group.id
}

/** The ids a listing answers, and its Total header. */
async function listed(who: Credential, query: string) {
  const res = await call(t.app, who, 'GET', `/groups?${query}`)
  expect(res.statusCode, res.body).toBe(200)
  return { ids: res.json().groups.map((g: { id: string }) => g.id) as string[], total: res.headers.total }
}

describe('GET /groups?account_id=', () => {
  it('when an operator names an account, then only that account’s groups answer, oldest first', async () => {
    const operator = await t.newOperator()
    const [first, second] = [await t.newPartner(), await t.newPartner()]
    // A name no other test uses: on PostgreSQL other files' groups share the database.
    const tag = `Tagged ${Math.random().toString(36).slice(2, 10)}`
    const a1 = await newGroup(first, tag)
    const b1 = await newGroup(second, tag)
    const a2 = await newGroup(first, tag)

    expect(await listed(operator, `account_id=${first.accountId}`)).toEqual({ ids: [a1, a2], total: '2' })
    expect(await listed(operator, `account_id=${second.accountId}`)).toEqual({ ids: [b1], total: '1' })
    // Without the filter the operator still sees every account's groups.
    expect(await listed(operator, `search=${encodeURIComponent(tag)}`)).toEqual({ ids: [a1, b1, a2], total: '3' })
  })

  it('when an operator names an account together with a search, then both filters apply', async () => {
    const operator = await t.newOperator()
    const [first, second] = [await t.newPartner(), await t.newPartner()]
    const pine = await newGroup(first, 'Pinewood Dental')
    await newGroup(first, 'Birch & Co')
    await newGroup(second, 'Pinewood Elsewhere')
    expect(await listed(operator, `account_id=${first.accountId}&search=pinewood`)).toEqual({ ids: [pine], total: '1' })
  })

  it('when an operator names an account with no groups (or none at all), then the list is empty, not an error', async () => {
    const operator = await t.newOperator()
    const empty = await t.newPartner()
    expect(await listed(operator, `account_id=${empty.accountId}`)).toEqual({ ids: [], total: '0' })
    expect(await listed(operator, 'account_id=0193a4b2-0000-7000-8000-00000000dead')).toEqual({ ids: [], total: '0' })
  })

  it('when a partner names its own account, then its groups answer; another account’s id finds nothing, as on GET /errors', async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const own = await newGroup(partner)
    await newGroup(other)

    expect(await listed(partner, `account_id=${partner.accountId}`)).toEqual({ ids: [own], total: '1' })
    expect(await listed(partner, `account_id=${other.accountId}`)).toEqual({ ids: [], total: '0' })
    // The same answer as the error queue gives a partner for another account: an empty list.
    const errors = await call(t.app, partner, 'GET', `/errors?account_id=${other.accountId}`)
    expect(errors.statusCode, errors.body).toBe(200)
    expect(errors.headers.total).toBe('0')
  })

  it('when the account id is not a uuid, then 422 validation_failed names the parameter', async () => {
    const operator = await t.newOperator()
    for (const bad of ['not-a-uuid', '123', '0193a4b2-0000-7000-8000-00000000000g']) {
      const res = await call(t.app, operator, 'GET', `/groups?account_id=${bad}`)
      expectProblem(res, 422, 'validation_failed')
      expect(JSON.stringify(res.json())).toContain('account_id')
    }
    expectProblem(await call(t.app, await t.newPartner(), 'GET', '/groups?account_id='), 422, 'validation_failed')
  })

  it('when the filtered list spans pages, then Total, Page, Per-Page and the Link header count the account’s groups and keep the filter', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const ids = [await newGroup(partner), await newGroup(partner), await newGroup(partner)]
    await newGroup(await t.newPartner())

    const res = await call(t.app, operator, 'GET', `/groups?account_id=${partner.accountId}&page=2&per_page=2`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().groups.map((g: { id: string }) => g.id)).toEqual([ids[2]])
    expect(res.headers).toMatchObject({ total: '3', page: '2', 'per-page': '2' })
    const link = String(res.headers.link)
    expect(link).toContain('rel="prev"')
    expect(link).not.toContain('rel="next"')
    for (const rel of link.split(', ')) expect(rel).toContain(`account_id=${partner.accountId}`)

    const first = await call(t.app, operator, 'GET', `/groups?account_id=${partner.accountId}&per_page=2`)
    expect(first.json().groups.map((g: { id: string }) => g.id)).toEqual(ids.slice(0, 2))
    expect(String(first.headers.link)).toContain(`account_id=${partner.accountId}&per_page=2&page=2>; rel="next"`)
  })
})
