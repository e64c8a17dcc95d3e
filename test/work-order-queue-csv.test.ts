import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXPORT_PAGE_ROWS } from '../src/db/csv-export.js'
import { consoleUser, signedIn, withSession, type SignedIn } from './helpers/console-session.js'
import { parseCsv } from './helpers/csv.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { insertCoveragePeriod, insertReadySetup } from './helpers/setup-factories.js'
import { call, expectProblem, type Credential, type TestApp, startTestApp } from './helpers/test-app.js'

/**
 * The operators' work-order queue as CSV (GET /work_orders with Accept: text/csv): every matching
 * order across keyset pages, in the list's order, with human headers, a byte order mark and
 * formulas neutralised; operators only; negotiated exactly as the error list negotiates.
 */

let t: TestApp
let operator: Credential
let operatorUserId: string
let operatorSession: SignedIn
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
  const user = await consoleUser(t, operator)
  operatorUserId = user.id
  operatorSession = await signedIn(t.app, user)
})
afterAll(async () => t?.close())

const HEADER = [
  'Work order ID',
  'Status',
  'Age (days)',
  'In status since',
  'Account',
  'Employer',
  'Group external ID',
  'Coverage period',
  'Coverage start',
  'Coverage end',
  'Carrier',
  'Carrier group number',
  'Assigned to',
  'Last message',
  'Last change by',
  'Created',
  'Updated',
  'Account ID',
  'Group ID',
  'Coverage period ID',
]

const csv = (who: Credential, query: string, accept = 'text/csv') => call(t.app, who, 'GET', `/work_orders?${query}`, undefined, { accept })

/** The export's rows as objects keyed by header, after checking the file's form. */
async function exported(query: string, who: Credential = operator): Promise<Record<string, string>[]> {
  const res = await csv(who, query)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
  expect(res.body.startsWith('\uFEFF')).toBe(true)
  const [header, ...rows] = parseCsv(res.body.slice(1))
  expect(header).toEqual(HEADER)
  return rows.map((row) => {
    expect(row).toHaveLength(HEADER.length)
    return Object.fromEntries(HEADER.map((name, index) => [name, row[index]!]))
  })
}

/** Every id the JSON list gives for the query, page after page of 100. */
async function listedIds(query: string): Promise<string[]> {
  const ids: string[] = []
  for (let page = 1; ; page++) {
    const res = await call(t.app, operator, 'GET', `/work_orders?${query}&per_page=100&page=${page}`)
    expect(res.statusCode, res.body).toBe(200)
    const rows = res.json().work_orders as { id: string }[]
    ids.push(...rows.map((row) => row.id))
    if (rows.length < 100) return ids
  }
}

const STATUSES = ['open', 'in_progress', 'submitted', 'needs_information', 'cancelled']

/**
 * `count` work orders of the partner, written straight into the tables (through the API this
 * would take minutes): each its own group ("Bulk Employer <n>") and coverage period, cloned from
 * one made by the factories. Statuses, ages and creation times repeat, so every sort meets ties
 * and needs its tie-breakers to page correctly.
 */
async function bulkWorkOrders(partner: Credential, count: number): Promise<void> {
  const { group } = await insertGroupWithLocation(t.db, partner.accountId, { installment: false, carrierName: 'sandbox_manual' })
  const template = await insertCoveragePeriod(t.db, group, { carrierName: 'sandbox_manual', link: false })
  const tag = `bulk-${group.id.slice(-8)}`
  await sql`
    insert into groups
    select (jsonb_populate_record(null::groups, to_jsonb(g) || jsonb_build_object(
             'id', gen_random_uuid(), 'external_identifier', ${tag} || '-' || n, 'organization_name', 'Bulk Employer ' || n))).*
      from groups g, generate_series(1, ${count}::int) n
     where g.id = ${group.id}`.execute(t.db)
  await sql`
    insert into coverage_periods
    select (jsonb_populate_record(null::coverage_periods, to_jsonb(cp) || jsonb_build_object('id', gen_random_uuid(), 'group_id', g.id))).*
      from coverage_periods cp, groups g
     where cp.id = ${template.id} and g.account_id = ${partner.accountId} and g.external_identifier like ${`${tag}-%`}`.execute(t.db)
  await sql`
    insert into work_orders (id, account_id, coverage_period_id, status, history, status_changed_at, created_at, updated_at)
    select gen_random_uuid(), cp.account_id, cp.id, s.status,
           jsonb_build_array(jsonb_build_object('status', s.status, 'at', '2026-11-20T10:00:00.000Z', 'by', 'bulk loader', 'message', 'Loaded')),
           now() - make_interval(mins => x.n % 7), now() - make_interval(hours => x.n % 5), now()
      from coverage_periods cp
      join groups g on g.id = cp.group_id
      cross join lateral (select substring(g.external_identifier from '[0-9]+$')::int as n) x
      cross join lateral (select (${STATUSES}::text[])[1 + x.n % ${STATUSES.length}::int] as status) s
     where g.account_id = ${partner.accountId} and g.external_identifier like ${`${tag}-%`}`.execute(t.db)
}

/** A work order opened through the API, its employer renamed. */
async function openWorkOrder(partner: Credential, employer: string): Promise<{ workOrderId: string; groupId: string }> {
  const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_manual' })
  await t.db.updateTable('groups').set({ organization_name: employer }).where('id', '=', setup.group.id).execute()
  const res = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
  expect(res.statusCode, res.body).toBe(201)
  return { workOrderId: res.json().work_order.id, groupId: setup.group.id }
}

describe('every matching work order, in the list’s order', () => {
  let bulk: Credential
  const BULK = EXPORT_PAGE_ROWS + 35
  beforeAll(async () => {
    bulk = await t.newPartner('Bulk Partner')
    await bulkWorkOrders(bulk, BULK)
  }, 120_000)

  it('when more work orders match than a keyset page holds, then every one is a row once, in the order of each sort', async () => {
    for (const sort of [undefined, 'created_at', '-created_at', 'age', '-age', 'status', '-status']) {
      const query = `account_id=${bulk.accountId}${sort ? `&sort=${sort}` : ''}`
      const ids = (await exported(query)).map((row) => row['Work order ID'])
      expect(ids, `sort=${sort}`).toHaveLength(BULK)
      expect(new Set(ids).size, `sort=${sort}`).toBe(BULK)
      expect(ids, `sort=${sort}`).toEqual(await listedIds(query))
    }
  }, 120_000)

  it('when filters are given, then the export has exactly the rows the list has, past a page of the JSON list', async () => {
    for (const query of [`account_id=${bulk.accountId}&status=in_progress&sort=-age`, `account_id=${bulk.accountId}&q=${encodeURIComponent('bulk employer 10')}&sort=status`]) {
      const ids = (await exported(query)).map((row) => row['Work order ID'])
      const listed = await listedIds(query)
      expect(ids).toEqual(listed)
      expect(ids.length).toBeGreaterThan(0)
    }
    // Each row of the status filter says so.
    expect(new Set((await exported(`account_id=${bulk.accountId}&status=submitted`)).map((row) => row.Status))).toEqual(new Set(['submitted']))
  }, 60_000)
})

describe('the columns', () => {
  it('when a work order is exported, then its row names the account, employer, coverage period and assignee, its age in days, and neutralises formulas', async () => {
    const partner = await t.newPartner('=cmd|"/C calc"!A0, Inc')
    const { workOrderId, groupId } = await openWorkOrder(partner, '=HYPERLINK("http://evil.example","x")')
    await t.db.updateTable('groups').set({ external_identifier: '+1-555-0100' }).where('id', '=', groupId).execute()
    const assigned = await call(t.app, operator, 'PUT', `/work_orders/${workOrderId}/assignment`, { assignment: { user_id: operatorUserId } })
    expect(assigned.statusCode, assigned.body).toBe(200)
    const moved = await call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status: 'in_progress', message: '@SUM(A1) -- checking "plans", then rates' })
    expect(moved.statusCode, moved.body).toBe(200)
    await t.db
      .updateTable('work_orders')
      .set({ status_changed_at: new Date(Date.now() - 3 * 86_400_000) })
      .where('id', '=', workOrderId)
      .execute()
    const json = (await call(t.app, operator, 'GET', `/work_orders/${workOrderId}`)).json().work_order

    const res = await csv(operator, `account_id=${partner.accountId}`)
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="work-orders-\d{4}-\d{2}-\d{2}\.csv"$/)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]))
    expect(res.body.endsWith('\r\n')).toBe(true)

    const [row] = await exported(`account_id=${partner.accountId}`)
    expect(row).toEqual({
      'Work order ID': workOrderId,
      Status: 'in_progress',
      'Age (days)': '3.0',
      'In status since': json.status_changed_at,
      Account: `'=cmd|"/C calc"!A0, Inc`,
      Employer: `'=HYPERLINK("http://evil.example","x")`,
      'Group external ID': "'+1-555-0100",
      'Coverage period': json.coverage_period_external_identifier,
      'Coverage start': '2027-01-01',
      'Coverage end': '2027-12-31',
      Carrier: 'sandbox_manual',
      'Carrier group number': '',
      'Assigned to': json.assigned_user.email,
      'Last message': `'@SUM(A1) -- checking "plans", then rates`,
      'Last change by': json.history.at(-1).by,
      Created: json.created_at,
      Updated: json.updated_at,
      'Account ID': partner.accountId,
      'Group ID': groupId,
      'Coverage period ID': json.coverage_period_id,
    })
    // Quotes are doubled inside a quoted field.
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`)
  })

  it('when nothing matches, then the file is the byte order mark and the header row', async () => {
    const empty = await t.newPartner()
    const res = await csv(operator, `account_id=${empty.accountId}`)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe(`\uFEFF${HEADER.join(',')}\r\n`)
  })
})

describe('who may export, and how it is asked for', () => {
  it('when a partner asks for the queue as CSV, then it is refused with a problem (operators only), never a file', async () => {
    const partner = await t.newPartner()
    await openWorkOrder(partner, 'Partner Own Co')
    const res = await csv(partner, `account_id=${partner.accountId}`)
    expectProblem(res, 403, 'forbidden')
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  it('when an operator filters by account, then only that account’s orders are in the file; "me" is the console user’s own queue', async () => {
    const mine = await t.newPartner()
    const other = await t.newPartner()
    const a = await openWorkOrder(mine, 'Mine One')
    const b = await openWorkOrder(mine, 'Mine Two')
    const foreign = await openWorkOrder(other, 'Not Mine')
    for (const id of [a.workOrderId, foreign.workOrderId]) {
      expect((await call(t.app, operator, 'PUT', `/work_orders/${id}/assignment`, { assignment: { user_id: operatorUserId } })).statusCode).toBe(200)
    }

    expect((await exported(`account_id=${mine.accountId}`)).map((row) => row['Work order ID'])).toEqual([a.workOrderId, b.workOrderId])
    const res = await withSession(t.app, operatorSession, 'GET', `/work_orders?assigned_user_id=me&account_id=${mine.accountId}`, undefined, { accept: 'text/csv' })
    expect(res.statusCode, res.body).toBe(200)
    expect(parseCsv(res.body.slice(1)).slice(1).map((row) => row[0])).toEqual([a.workOrderId])
    // An API key has no user: the same 422 problem as the JSON list, before any byte of a file.
    const refused = await csv(operator, 'assigned_user_id=me')
    expectProblem(refused, 422, 'validation_failed')
    expect(refused.json().errors).toEqual([{ parameter: 'assigned_user_id', code: 'no_signed_in_user', detail: expect.any(String) }])
  })

  it('when a query parameter is wrong, then the CSV request answers the 422 problem the JSON list answers', async () => {
    for (const query of ['sort=oldest', 'status=waiting', 'per_page=1000', 'q=']) {
      const res = await csv(operator, query)
      expectProblem(res, 422, 'validation_failed')
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    }
  })

  it('when Accept headers vary, then the work-order queue answers CSV or JSON exactly when the error list does', async () => {
    const partner = await t.newPartner()
    await openWorkOrder(partner, 'Negotiated Co')
    const kinds: Record<string, 'csv' | 'json'> = {
      'text/csv': 'csv',
      'TEXT/CSV': 'csv',
      'text/csv;q=0.9, application/json;q=0.5': 'csv',
      'text/csv, */*;q=0.1': 'csv',
      'application/json, text/csv;q=0.5': 'json',
      'text/csv;q=0.5, application/json': 'json',
      // A tie goes to JSON, and so does a wildcard.
      'text/csv, application/json': 'json',
      '*/*': 'json',
      'text/*': 'json',
      'text/csv, text/*': 'csv',
      // Neither asked for: JSON, as the error list answers (neither answers 406).
      'text/html': 'json',
      'application/xml': 'json',
    }
    const kindOf = (contentType: unknown) => {
      const text = String(contentType)
      return text.startsWith('text/csv') ? 'csv' : text.startsWith('application/json') ? 'json' : text
    }
    for (const [accept, expected] of Object.entries(kinds)) {
      const workOrders = await csv(operator, `account_id=${partner.accountId}`, accept)
      const errors = await call(t.app, operator, 'GET', `/errors?account_id=${partner.accountId}`, undefined, { accept })
      expect([workOrders.statusCode, errors.statusCode], accept).toEqual([200, 200])
      expect(kindOf(workOrders.headers['content-type']), accept).toBe(expected)
      expect(kindOf(errors.headers['content-type']), `the error list with ${accept}`).toBe(expected)
    }
    // Without Accept: JSON, paginated.
    const plain = await call(t.app, operator, 'GET', `/work_orders?account_id=${partner.accountId}`)
    expect(plain.headers['content-type']).toMatch(/^application\/json/)
    expect(plain.headers.total).toBe('1')
  })
})
