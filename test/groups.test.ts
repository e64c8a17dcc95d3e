import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

/** Inserts `count` groups for the account, one millisecond apart, and answers their ids oldest first. */
async function insertGroups(owner: Credential, count: number): Promise<string[]> {
  const start = Date.now()
  const rows = Array.from({ length: count }, (_, n) => ({
    id: uuidv7(),
    account_id: owner.accountId,
    external_identifier: `group-${n + 1}`,
    organization_name: `Employer ${n + 1}`,
    insurance_market: 'small_group',
    created_at: new Date(start + n),
    updated_at: new Date(start + n),
  }))
  await t.db.insertInto('groups').values(rows).execute()
  return rows.map((row) => row.id)
}

function parseLinks(header: string | undefined): Record<string, URL> {
  const links: Record<string, URL> = {}
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>;\s*rel="([a-z]+)"/.exec(part.trim())
    if (match) links[match[2]!] = new URL(match[1]!)
  }
  return links
}

const pageOf = (url: URL | undefined) => url && [url.pathname, url.searchParams.get('page'), url.searchParams.get('per_page')]
const ids = (body: { groups: Array<{ id: string }> }) => body.groups.map((g) => g.id)

describe('GET /groups', () => {
  it('when a partner has groups, then they come back oldest first as group objects', async () => {
    const partner = await t.newPartner()
    const [id] = await insertGroups(partner, 1)
    const res = await call(t.app, partner, 'GET', '/groups')
    expect(res.statusCode).toBe(200)
    expect(res.json().groups).toEqual([
      {
        id,
        account_id: partner.accountId,
        external_identifier: 'group-1',
        insurance_market: 'small_group',
        phase: 'installation',
        // A group written without employer data (as before issue 3) answers nulls, not a failure.
        employer: { organization_name: 'Employer 1', fein: null, established_date: null, employer_type: null, census: null },
        producer_agency: null,
        locations: [],
        producers_of_record: [],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ])
  })

  it('when the list spans pages, then Total, Per-Page, Page and Link (first, prev, next, last) describe each page', async () => {
    const partner = await t.newPartner()
    const inserted = await insertGroups(partner, 5)

    const first = await call(t.app, partner, 'GET', '/groups?per_page=2')
    expect(first.statusCode).toBe(200)
    expect(ids(first.json())).toEqual(inserted.slice(0, 2))
    expect(first.headers).toMatchObject({ total: '5', 'per-page': '2', page: '1' })
    const firstLinks = parseLinks(first.headers.link as string)
    expect(Object.keys(firstLinks).sort()).toEqual(['first', 'last', 'next'])
    expect(pageOf(firstLinks.first)).toEqual(['/groups', '1', '2'])
    expect(pageOf(firstLinks.next)).toEqual(['/groups', '2', '2'])
    expect(pageOf(firstLinks.last)).toEqual(['/groups', '3', '2'])

    const middle = await call(t.app, partner, 'GET', '/groups?page=2&per_page=2')
    expect(ids(middle.json())).toEqual(inserted.slice(2, 4))
    expect(middle.headers.page).toBe('2')
    const middleLinks = parseLinks(middle.headers.link as string)
    expect(Object.keys(middleLinks).sort()).toEqual(['first', 'last', 'next', 'prev'])
    expect(pageOf(middleLinks.prev)).toEqual(['/groups', '1', '2'])
    expect(pageOf(middleLinks.next)).toEqual(['/groups', '3', '2'])

    const last = await call(t.app, partner, 'GET', '/groups?page=3&per_page=2')
    expect(ids(last.json())).toEqual(inserted.slice(4))
    const lastLinks = parseLinks(last.headers.link as string)
    expect(Object.keys(lastLinks).sort()).toEqual(['first', 'last', 'prev'])
    expect(pageOf(lastLinks.prev)).toEqual(['/groups', '2', '2'])
  })

  it('when a client follows the next links, then it sees every group exactly once', async () => {
    const partner = await t.newPartner()
    const inserted = await insertGroups(partner, 7)
    const seen: string[] = []
    let url: string | undefined = '/groups?per_page=3'
    while (url) {
      const res = await call(t.app, partner, 'GET', url)
      seen.push(...ids(res.json()))
      const next = parseLinks(res.headers.link as string).next
      url = next ? next.pathname + next.search : undefined
    }
    expect(seen).toEqual(inserted)
  })

  it('when no per_page is given, then pages hold 25', async () => {
    const partner = await t.newPartner()
    const inserted = await insertGroups(partner, 26)
    const res = await call(t.app, partner, 'GET', '/groups')
    expect(res.headers).toMatchObject({ total: '26', 'per-page': '25', page: '1' })
    expect(ids(res.json())).toEqual(inserted.slice(0, 25))
  })

  it("when another partner lists groups, then it sees none of this partner's", async () => {
    const owner = await t.newPartner()
    await insertGroups(owner, 3)
    const stranger = await t.newPartner()
    const res = await call(t.app, stranger, 'GET', '/groups')
    expect(res.statusCode).toBe(200)
    expect(res.json().groups).toEqual([])
    expect(res.headers.total).toBe('0')
  })

  it("when an operator lists groups, then the partner's groups are included", async () => {
    const partner = await t.newPartner()
    const inserted = await insertGroups(partner, 3)
    const operator = await t.newOperator()
    // Oldest first, so these new groups are at the end of every group of every account.
    const head = await call(t.app, operator, 'GET', '/groups?per_page=1')
    const total = Number(head.headers.total)
    expect(total).toBeGreaterThanOrEqual(3)
    const lastPage = Math.ceil(total / 100)
    const seen: string[] = []
    for (const page of [lastPage - 1, lastPage].filter((p) => p >= 1)) {
      seen.push(...ids((await call(t.app, operator, 'GET', `/groups?per_page=100&page=${page}`)).json()))
    }
    expect(seen).toEqual(expect.arrayContaining(inserted))
  })

  it('when per_page is over 100 or below 1, then 422 names per_page', async () => {
    const partner = await t.newPartner()
    for (const value of ['101', '0', 'ten']) {
      const res = await call(t.app, partner, 'GET', `/groups?per_page=${value}`)
      expect(res.statusCode, value).toBe(422)
      expect(res.json().code).toBe('validation_failed')
      expect(res.json().errors, value).toEqual([expect.objectContaining({ parameter: 'per_page' })])
    }
    const largest = await call(t.app, partner, 'GET', '/groups?per_page=100')
    expect(largest.statusCode).toBe(200)
  })

  it('when page is below 1, then 422 names page', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'GET', '/groups?page=0')
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toEqual([expect.objectContaining({ parameter: 'page' })])
  })

  it('when the page is past the end, then 200 with an empty list whose prev link goes to the last page', async () => {
    const partner = await t.newPartner()
    await insertGroups(partner, 3)
    const res = await call(t.app, partner, 'GET', '/groups?page=9&per_page=2')
    expect(res.statusCode).toBe(200)
    expect(res.json().groups).toEqual([])
    expect(res.headers).toMatchObject({ total: '3', page: '9' })
    const links = parseLinks(res.headers.link as string)
    expect(links.next).toBeUndefined()
    expect(pageOf(links.prev)).toEqual(['/groups', '2', '2'])
    expect(pageOf(links.last)).toEqual(['/groups', '2', '2'])
  })

  it('when there are no groups, then first and last both point at page 1', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'GET', '/groups')
    const links = parseLinks(res.headers.link as string)
    expect(Object.keys(links).sort()).toEqual(['first', 'last'])
    expect(pageOf(links.last)).toEqual(['/groups', '1', '25'])
  })

  it('when no credential is sent, then 401', async () => {
    const res = await call(t.app, null, 'GET', '/groups')
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('missing_credentials')
  })
})
