import { sql } from 'kysely'
import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { errorsCsv } from '../src/modules/errors/errors.csv.js'
import { ERROR_SORTS, ErrorHistoryEntrySchema, ErrorSchema } from '../src/modules/errors/errors.schema.js'
import { autoResolveErrors, raiseErrors, type CheckContext, type FoundDiscrepancy } from '../src/modules/errors/raise-errors.js'
import { consoleUser, signedIn, withSession } from './helpers/console-session.js'
import { parseCsv } from './helpers/csv.js'
import { deliveriesOf, insertWatcher, raiseByHand, registerUser } from './helpers/error-fixtures.js'
import { insertMember, insertPlan, insertReadySetup, type MemberRow, type ReadySetup } from './helpers/setup-factories.js'
import { call, expectProblem, startTestApp, systemActor, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Issue 17: the error list as a day's work queue. Names, account and age on every error; filters
 * by group, account, assigned person and search; sorting; counts; assignment to a person; each
 * error's history; and the CSV export.
 */

let t: TestApp
let operator: Credential
let opsUser: { id: string; email: string }
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
  opsUser = await registerUser(t, operator, `ops-${uuidv7()}@example.com`, ['operations'])
})
afterAll(async () => t?.close())

type ErrorJson = Record<string, unknown> & { id: string; age_seconds: number; assigned_user: { id: string; email: string } | null }
const DAY = 86_400

function conforming(error: ErrorJson): ErrorJson {
  const problems = [...Value.Errors(ErrorSchema, error)].map((e) => `${e.instancePath} ${e.message}`)
  expect(problems, JSON.stringify(error)).toEqual([])
  return error
}

const get = (who: Credential, url: string, headers: Record<string, string> = {}) => call(t.app, who, 'GET', url, undefined, headers)
const errorsOf = async (who: Credential, url: string): Promise<ErrorJson[]> => {
  const res = await get(who, url)
  expect(res.statusCode, res.body).toBe(200)
  return (res.json().errors as ErrorJson[]).map(conforming)
}
const idsOf = async (who: Credential, url: string) => (await errorsOf(who, url)).map((e) => e.id)
const assign = (who: Credential, id: string, userId: string | null) => call(t.app, who, 'PUT', `/errors/${id}/assignment`, { assignment: { user_id: userId } })

/** Raises an error by hand and makes it look raised `daysAgo` days ago. */
async function raised(cp: string, error: Record<string, unknown>, daysAgo: number): Promise<string> {
  const res = await raiseByHand(t, operator, cp, error)
  expect(res.statusCode, res.body).toBe(201)
  const id = res.json().error.id as string
  await sql`update errors set aged_from = now() - make_interval(days => ${daysAgo}), created_at = now() - make_interval(days => ${daysAgo}) where id = ${id}`.execute(t.db)
  return id
}

async function rename(member: MemberRow, firstName: string, lastName: string): Promise<void> {
  await t.db.updateTable('members').set({ first_name: firstName, last_name: lastName }).where('id', '=', member.id).execute()
}

/**
 * Partner A: a group "Carrow Foundry <tag>" with three errors raised 3, 1 and 2 days ago (a
 * failure about Alice Quill's birth date held by the partner, a warning about Bob Smith_ers'
 * gender held by the service, an info about a plan with no member); partner B: one error.
 */
interface Queue {
  tag: string
  a: Credential
  b: Credential
  setupA: ReadySetup
  setupB: ReadySetup
  alice: MemberRow
  bob: MemberRow
  planName: string
  e1: string
  e2: string
  e3: string
  eB: string
}

async function queue(): Promise<Queue> {
  const tag = uuidv7().slice(-8)
  const a = await t.newPartner(`Platform A ${tag}`)
  const b = await t.newPartner(`Platform B ${tag}`)
  const setupA = await insertReadySetup(t.db, a.accountId)
  const setupB = await insertReadySetup(t.db, b.accountId)
  await t.db.updateTable('groups').set({ organization_name: `Carrow Foundry ${tag}`, external_identifier: `grp-${tag}` }).where('id', '=', setupA.group.id).execute()
  const alice = await insertMember(t.db, setupA.group)
  const bob = await insertMember(t.db, setupA.group)
  // Names of this queue only: the operator searches every account's errors.
  await rename(alice, 'Alice', `Quill-${tag}`)
  await rename(bob, 'Bob', `Smith_ers-${tag}`)
  const planName = `Gold HMO ${tag}`
  const plan = await insertPlan(t.db, setupA.coveragePeriod)
  await t.db.updateTable('plans').set({ description: planName }).where('id', '=', plan.id).execute()
  const cpA = setupA.coveragePeriod.id
  const e1 = await raised(cpA, { source: 'manual', discrepancy: { parameter: 'birth_date', carrier: '1985-03-15', platform: '1985-03-14' }, member_id: alice.id, severity: 'failure', assignee: 'partner' }, 3)
  const e2 = await raised(cpA, { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'male', platform: 'female' }, member_id: bob.id, severity: 'warning', assignee: 'service' }, 1)
  const e3 = await raised(cpA, { source: 'error_report', discrepancy: { parameter: 'plan_id', carrier: 'X1' }, plan_id: plan.id, severity: 'info', assignee: 'partner' }, 2)
  const eB = await raised(setupB.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'male', platform: 'female' }, severity: 'failure', assignee: 'partner' }, 5)
  return { tag, a, b, setupA, setupB, alice, bob, planName, e1, e2, e3, eB }
}

describe('what a person reads on each error', () => {
  it('when a partner lists its errors, then each names the member, plan, employer and account, and says how long it has waited', async () => {
    const q = await queue()
    const errors = await errorsOf(q.a, `/coverage_periods/${q.setupA.coveragePeriod.id}/errors?per_page=100`)
    const byId = new Map(errors.map((e) => [e.id, e]))
    expect(byId.get(q.e1)).toMatchObject({ member_name: `Alice Quill-${q.tag}`, plan_name: null, employer_name: `Carrow Foundry ${q.tag}`, account_id: q.a.accountId, account_name: `Platform A ${q.tag}`, assigned_user: null })
    expect(byId.get(q.e3)).toMatchObject({ member_name: null, plan_name: q.planName })
    // Raised three days ago: the age is three days, give or take the test's own seconds.
    expect(byId.get(q.e1)!.age_seconds).toBeGreaterThanOrEqual(3 * DAY)
    expect(byId.get(q.e1)!.age_seconds).toBeLessThan(3 * DAY + 120)
    // The single read answers the same fields.
    const single = (await get(q.a, `/errors/${q.e1}`)).json().error as ErrorJson
    conforming(single)
    expect(single).toMatchObject({ member_name: `Alice Quill-${q.tag}`, employer_name: `Carrow Foundry ${q.tag}`, account_name: `Platform A ${q.tag}` })
  })

  it('when a member, plan, employer, account or assigned person is renamed, then the errors show the new name at once', async () => {
    const q = await queue()
    const user = await registerUser(t, q.a, `namer-${uuidv7()}@example.com`, [])
    expect((await assign(q.a, q.e1, user.id)).statusCode).toBe(200)
    const plan = (await t.db.selectFrom('errors').select('plan_id').where('id', '=', q.e3).executeTakeFirstOrThrow()).plan_id!
    await rename(q.alice, 'Alicia', `Quillon-${q.tag}`)
    await t.db.updateTable('plans').set({ description: `Platinum PPO ${q.tag}` }).where('id', '=', plan).execute()
    await t.db.updateTable('groups').set({ organization_name: `Carrow Works ${q.tag}` }).where('id', '=', q.setupA.group.id).execute()
    await t.db.updateTable('accounts').set({ name: `Platform A renamed ${q.tag}` }).where('id', '=', q.a.accountId).execute()
    await t.db.updateTable('users').set({ email: `renamed-${user.email}` }).where('id', '=', user.id).execute()
    const byId = new Map((await errorsOf(q.a, `/coverage_periods/${q.setupA.coveragePeriod.id}/errors?per_page=100`)).map((e) => [e.id, e]))
    expect(byId.get(q.e1)).toMatchObject({ member_name: `Alicia Quillon-${q.tag}`, employer_name: `Carrow Works ${q.tag}`, account_name: `Platform A renamed ${q.tag}`, assigned_user: { id: user.id, email: `renamed-${user.email}` } })
    expect(byId.get(q.e3)).toMatchObject({ plan_name: `Platinum PPO ${q.tag}`, member_name: null })
    // The single read and the other account's errors agree: nothing else was touched.
    expect((await get(q.a, `/errors/${q.e1}`)).json().error).toMatchObject({ member_name: `Alicia Quillon-${q.tag}` })
    expect((await get(q.b, `/errors/${q.eB}`)).json().error.account_name).toBe((await t.db.selectFrom('accounts').select('name').where('id', '=', q.b.accountId).executeTakeFirstOrThrow()).name)
  })

  it('when an error is returned, then its age counts from the return', async () => {
    const q = await queue()
    expect((await get(q.a, `/errors/${q.e1}`)).json().error.age_seconds).toBeGreaterThanOrEqual(3 * DAY)
    const res = await call(t.app, q.a, 'POST', `/errors/${q.e1}/return`, { message: 'Please check with the carrier.' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().error.age_seconds).toBeLessThan(60)
  })
})

describe('filters and search', () => {
  it('when an operator filters by group or account, then only those errors come back; a partner naming another account finds nothing', async () => {
    const q = await queue()
    expect((await idsOf(operator, `/errors?group_id=${q.setupA.group.id}&per_page=100`)).sort()).toEqual([q.e1, q.e2, q.e3].sort())
    expect(await idsOf(operator, `/errors?account_id=${q.b.accountId}&per_page=100`)).toEqual([q.eB])
    expect(await idsOf(q.a, `/errors?account_id=${q.b.accountId}`)).toEqual([])
    expect(await idsOf(q.a, `/errors?group_id=${q.setupB.group.id}`)).toEqual([])
  })

  it('when q is given, then it matches member names and identifiers and employer names and group identifiers, case-insensitively', async () => {
    const q = await queue()
    // The operator's queue, narrowed to this test's account: other test files share a PostgreSQL database.
    const search = (text: string) => idsOf(operator, `/errors?q=${encodeURIComponent(text)}&account_id=${q.a.accountId}&per_page=100`)
    expect(await search(`QUILL-${q.tag.toUpperCase()}`)).toEqual([q.e1])
    expect(await search(`alice quill-${q.tag}`)).toEqual([q.e1])
    // An identifier of this test's own: the factories' `member-<n>` is a substring of `member-<n>0`
    // and repeats across test files sharing a PostgreSQL database.
    await t.db.updateTable('members').set({ external_identifier: `emp-${q.tag}-alice` }).where('id', '=', q.alice.id).execute()
    expect(await search(`EMP-${q.tag}-ALICE`)).toEqual([q.e1])
    // The employer's name and the group's identifier find every error of the group.
    expect((await search(`foundry ${q.tag}`)).sort()).toEqual([q.e1, q.e2, q.e3].sort())
    expect((await search(`grp-${q.tag}`)).sort()).toEqual([q.e1, q.e2, q.e3].sort())
    // An error found both by its member's name and by its employer's is listed and counted once.
    const both = await get(operator, `/errors?q=${q.tag}&account_id=${q.a.accountId}&per_page=100`)
    expect(both.json().errors.map((e: ErrorJson) => e.id).sort()).toEqual([q.e1, q.e2, q.e3].sort())
    expect(both.headers.total).toBe('3')
    expect((await get(operator, `/errors/counts?q=${q.tag}&account_id=${q.a.accountId}`)).json().counts.total).toBe(3)
    // LIKE's wildcards are plain characters: `_` matches only an underscore, `%` only a percent sign.
    expect(await search(`smith_ers-${q.tag}`)).toEqual([q.e2])
    expect(await search(`smithxers-${q.tag}`)).toEqual([])
    expect(await search('%')).toEqual([])
    // Search composes with the other filters.
    expect(await idsOf(operator, `/errors?q=foundry%20${q.tag}&severity=warning`)).toEqual([q.e2])
  })

  it('when a search names more than 5,000 members, then it still finds and counts every matching error', async () => {
    const q = await queue()
    // 5,001 more members whose names contain Alice's, past the count a search resolves to ids (it
    // then matches by subquery); only Alice has an error.
    await sql`insert into members (id, account_id, group_id, kind, external_identifier, first_name, last_name, birth_date, gender, emails, phone_numbers)
      select gen_random_uuid(), ${q.a.accountId}, ${q.setupA.group.id}, 'subscriber', 'wide-' || ${q.tag} || '-' || n, 'Wide', 'Quill-' || ${q.tag} || '-' || n, date '1980-01-01', 'female', '[]', '[]'
        from generate_series(1, 5001) as n`.execute(t.db)
    const cp = q.setupA.coveragePeriod.id
    const listed = await get(q.a, `/coverage_periods/${cp}/errors?q=quill-${q.tag}&per_page=10`)
    expect(listed.statusCode, listed.body).toBe(200)
    expect(listed.json().errors.map((e: ErrorJson) => e.id)).toEqual([q.e1])
    expect(listed.headers.total).toBe('1')
    expect((await get(q.a, `/coverage_periods/${cp}/errors/counts?q=quill-${q.tag}`)).json().counts.total).toBe(1)
  })

  it('when a filter value is not one the API knows, then 422 names the parameter', async () => {
    const res = await get(operator, '/errors?sort=colour&assigned_user_id=someone&q=')
    expectProblem(res, 422, 'validation_failed')
    expect(res.json().errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['assigned_user_id', 'q', 'sort'])
  })
})

describe('sorting', () => {
  it('when sorted by age, severity, parameter or status, either way, then the page comes in that order', async () => {
    const q = await queue()
    const url = (sort: string) => `/coverage_periods/${q.setupA.coveragePeriod.id}/errors?sort=${sort}`
    // Raised 3, 1 and 2 days ago.
    expect(await idsOf(q.a, url('-age'))).toEqual([q.e1, q.e3, q.e2])
    expect(await idsOf(q.a, url('age'))).toEqual([q.e2, q.e3, q.e1])
    expect(await idsOf(q.a, url('severity'))).toEqual([q.e1, q.e2, q.e3])
    expect(await idsOf(q.a, url('-severity'))).toEqual([q.e3, q.e2, q.e1])
    expect(await idsOf(q.a, url('parameter'))).toEqual([q.e1, q.e2, q.e3]) // birth_date, gender, plan_id
    expect(await idsOf(q.a, url('-parameter'))).toEqual([q.e3, q.e2, q.e1])
    expect(await idsOf(q.a, url('created_at'))).toEqual([q.e1, q.e3, q.e2])
    expect(await idsOf(q.a, url('-created_at'))).toEqual([q.e2, q.e3, q.e1])
    // Pages follow the order: the second page of one holds the next error.
    expect(await idsOf(q.a, `${url('-age')}&per_page=1&page=2`)).toEqual([q.e3])
    // Status: unresolved, returned, resolved; ties oldest waiting first.
    expect((await call(t.app, operator, 'POST', `/errors/${q.e2}/resolution`, { message: 'Fixed.' })).statusCode).toBe(200)
    expect((await call(t.app, q.a, 'POST', `/errors/${q.e3}/return`, { message: 'Yours.' })).statusCode).toBe(200)
    expect(await idsOf(q.a, url('status'))).toEqual([q.e1, q.e3, q.e2])
    expect(await idsOf(q.a, url('-status'))).toEqual([q.e2, q.e3, q.e1])
  })
})

describe('counts', () => {
  it('when counts are asked for with the filters of the list, then they agree with the list by status and severity', async () => {
    const q = await queue()
    expect((await call(t.app, q.a, 'POST', `/errors/${q.e3}/return`, { message: 'Yours.' })).statusCode).toBe(200)
    const cp = q.setupA.coveragePeriod.id
    const counts = async (who: Credential, url: string) => {
      const res = await get(who, url)
      expect(res.statusCode, res.body).toBe(200)
      return res.json().counts
    }
    expect(await counts(q.a, `/coverage_periods/${cp}/errors/counts`)).toEqual({
      total: 3,
      by_status: { unresolved: 2, returned: 1, resolved: 0 },
      by_severity: { failure: 1, warning: 1, info: 1 },
    })
    // A partner's queue counts its own errors only; the operator's every account's, narrowed by account.
    expect((await counts(q.a, '/errors/counts')).total).toBe(3)
    expect(await counts(operator, `/errors/counts?account_id=${q.b.accountId}`)).toEqual({
      total: 1,
      by_status: { unresolved: 1, returned: 0, resolved: 0 },
      by_severity: { failure: 1, warning: 0, info: 0 },
    })
    // Filters the stored counts cannot answer (search, parameter) count the errors themselves.
    expect(await counts(operator, `/errors/counts?q=quill-${q.tag}`)).toEqual({ total: 1, by_status: { unresolved: 1, returned: 0, resolved: 0 }, by_severity: { failure: 1, warning: 0, info: 0 } })
    expect((await counts(q.a, `/coverage_periods/${cp}/errors/counts?status=unresolved&severity=warning`)).total).toBe(1)
    const listed = await get(q.a, `/coverage_periods/${cp}/errors?status=unresolved&severity=warning`)
    expect(listed.headers.total).toBe('1')
    expectProblem(await get(q.b, `/coverage_periods/${cp}/errors/counts`), 404, 'coverage_period_not_found')
  })
})

describe('assignment to a person', () => {
  it('when the holding party assigns an error to one of its active users, then the error names them, and only they are in their queue', async () => {
    const q = await queue()
    const jane = await registerUser(t, q.a, `jane-${q.tag}@example.com`)
    const res = await assign(q.a, q.e1, jane.id)
    expect(res.statusCode, res.body).toBe(200)
    expect(conforming(res.json().error).assigned_user).toEqual({ id: jane.id, email: jane.email })
    expect(await idsOf(q.a, `/errors?assigned_user_id=${jane.id}`)).toEqual([q.e1])
    expect((await idsOf(q.a, `/coverage_periods/${q.setupA.coveragePeriod.id}/errors?assigned_user_id=none`)).sort()).toEqual([q.e2, q.e3].sort())
    // The same person again changes nothing: no second history entry.
    expect((await assign(q.a, q.e1, jane.id)).statusCode).toBe(200)
    const history = (await get(q.a, `/errors/${q.e1}/history`)).json().history as { type: string }[]
    expect(history.filter((h) => h.type === 'assigned')).toHaveLength(1)
    // Unassigning.
    const cleared = await assign(q.a, q.e1, null)
    expect(cleared.json().error.assigned_user).toBeNull()
  })

  it('when the party not holding the error, another account, or a user who cannot hold it is named, then the assignment is refused', async () => {
    const q = await queue()
    const jane = await registerUser(t, q.a, `jane-${q.tag}@example.com`)
    const stranger = await registerUser(t, q.b, `stranger-${q.tag}@example.com`)
    // e2 is held by the service: the partner cannot assign it, the operator can, to its own people only.
    expectProblem(await assign(q.a, q.e2, jane.id), 422, 'error_not_assigned_to_caller')
    expectProblem(await assign(operator, q.e2, jane.id), 422, 'validation_failed')
    expect((await assign(operator, q.e2, opsUser.id)).json().error.assigned_user.id).toBe(opsUser.id)
    // Another account's user, or the error of another account.
    const foreign = await assign(q.a, q.e1, stranger.id)
    expectProblem(foreign, 422, 'validation_failed')
    expect(foreign.json().errors).toEqual([expect.objectContaining({ pointer: '/assignment/user_id', code: 'unknown_user' })])
    expectProblem(await assign(q.b, q.e1, stranger.id), 404, 'error_not_found')
    // A deactivated user.
    expect((await call(t.app, q.a, 'POST', `/users/${jane.id}/deactivation`)).statusCode).toBe(200)
    const deactivated = await assign(q.a, q.e1, jane.id)
    expect(deactivated.json().errors).toEqual([expect.objectContaining({ pointer: '/assignment/user_id', code: 'user_deactivated' })])
    // A resolved error can be unassigned, not assigned.
    const mary = await registerUser(t, q.a, `mary-${q.tag}@example.com`)
    expect((await call(t.app, q.a, 'POST', `/errors/${q.e3}/resolution`, { message: 'Done.' })).statusCode).toBe(200)
    expectProblem(await assign(q.a, q.e3, mary.id), 422, 'error_resolved')
    expect((await assign(q.a, q.e3, null)).statusCode).toBe(200)
  })

  it('when an error is assigned and unassigned, then watchers receive error.assigned with ids only', async () => {
    const q = await queue()
    const watcher = await insertWatcher(t.db, q.a.accountId, ['error.assigned'])
    const jane = await registerUser(t, q.a, `jane-${q.tag}@example.com`)
    expect((await assign(q.a, q.e1, jane.id)).statusCode).toBe(200)
    expect((await assign(q.a, q.e1, null)).statusCode).toBe(200)
    const delivered = await deliveriesOf(t.db, watcher)
    expect(delivered.map((d) => [d.type, d.data.error_id, d.data.assigned_user_id, d.data.previous_assigned_user_id])).toEqual([
      ['error.assigned', q.e1, jane.id, null],
      ['error.assigned', q.e1, null, jane.id],
    ])
    for (const d of delivered) for (const secret of [jane.email, 'Alice', 'Quill', '1985-03']) expect(d.text).not.toContain(secret)
  })

  it('when an assigned error is handed back to the other party, then nobody is assigned any more', async () => {
    const q = await queue()
    const jane = await registerUser(t, q.a, `jane-${q.tag}@example.com`)
    expect((await assign(q.a, q.e1, jane.id)).statusCode).toBe(200)
    const res = await call(t.app, q.a, 'POST', `/errors/${q.e1}/return`, { message: 'The carrier has it wrong.', created_by: jane.email })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().error).toMatchObject({ assignee: 'service', assigned_user: null })
  })

  it('when the console user asks for "my queue", then assigned_user_id=me is them; with an API key it is a 422', async () => {
    const q = await queue()
    const user = await consoleUser(t, q.a, ['benefits_admin'])
    const session = await signedIn(t.app, user)
    expect((await withSession(t.app, session, 'PUT', `/errors/${q.e1}/assignment`, { assignment: { user_id: user.id } })).statusCode).toBe(200)
    const mine = await withSession(t.app, session, 'GET', '/errors?assigned_user_id=me')
    expect(mine.json().errors.map((e: ErrorJson) => e.id)).toEqual([q.e1])
    const byKey = await get(q.a, '/errors?assigned_user_id=me')
    expectProblem(byKey, 422, 'validation_failed')
    expect(byKey.json().errors).toEqual([expect.objectContaining({ parameter: 'assigned_user_id', code: 'no_signed_in_user' })])
  })

  it('when several errors are assigned at once, then all are or none is', async () => {
    const q = await queue()
    const jane = await registerUser(t, q.a, `jane-${q.tag}@example.com`)
    const bulk = (ids: string[]) => call(t.app, q.a, 'POST', '/errors/assignments', { assignment: { user_id: jane.id, error_ids: ids } })
    // e2 is the service's and eB another account's: nothing changes, each is named.
    const refused = await bulk([q.e1, q.e2, q.eB])
    expectProblem(refused, 422, 'validation_failed')
    expect(refused.json().errors).toEqual([
      expect.objectContaining({ pointer: '/assignment/error_ids/1', code: 'error_not_assigned_to_caller' }),
      expect.objectContaining({ pointer: '/assignment/error_ids/2', code: 'error_not_found' }),
    ])
    expect((await get(q.a, `/errors/${q.e1}`)).json().error.assigned_user).toBeNull()
    const done = await bulk([q.e3, q.e1])
    expect(done.statusCode, done.body).toBe(200)
    expect(done.json().errors.map((e: ErrorJson) => [e.id, e.assigned_user?.id])).toEqual([
      [q.e3, jane.id],
      [q.e1, jane.id],
    ])
  })
})

describe('history', () => {
  it('when an error is raised, commented, assigned, returned and resolved, then its history shows each, oldest first, with who did it', async () => {
    const q = await queue()
    const jane = await registerUser(t, q.a, `jane-${q.tag}@example.com`)
    expect((await call(t.app, q.a, 'POST', `/errors/${q.e1}/comments`, { message: 'Looking at it.', created_by: jane.email })).statusCode).toBe(201)
    expect((await assign(q.a, q.e1, jane.id)).statusCode).toBe(200)
    expect((await call(t.app, q.a, 'POST', `/errors/${q.e1}/return`, { message: 'Carrier side.', created_by: jane.email })).statusCode).toBe(200)
    expect((await call(t.app, operator, 'POST', `/errors/${q.e1}/resolution`, { message: 'Corrected at the carrier.', resolved_by: opsUser.email })).statusCode).toBe(200)

    const res = await get(q.a, `/errors/${q.e1}/history`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers.total).toBe('5')
    const history = res.json().history
    for (const entry of history) expect([...Value.Errors(ErrorHistoryEntrySchema, entry)]).toEqual([])
    expect(history.map((h: { type: string }) => h.type)).toEqual(['raised', 'commented', 'assigned', 'returned', 'resolved'])
    expect(history[0]).toMatchObject({ actor: 'Test operator key', party: 'service', to_status: 'unresolved', assignee: 'partner' })
    expect(history[1]).toMatchObject({ actor: jane.email, party: 'partner', comment: { message: 'Looking at it.' } })
    expect(history[2]).toMatchObject({ actor: 'Platform A ' + q.tag + ' key', party: 'partner', assigned_user: { id: jane.id, email: jane.email } })
    // A return is one entry with its message, not a comment like any other; it unassigns.
    expect(history[3]).toMatchObject({ type: 'returned', actor: jane.email, comment: { message: 'Carrier side.' }, from_status: 'unresolved', to_status: 'returned', assignee: 'service', assigned_user: null })
    expect(history[4]).toMatchObject({ actor: opsUser.email, party: 'service', from_status: 'returned', to_status: 'resolved' })
    expectProblem(await get(q.b, `/errors/${q.e1}/history`), 404, 'error_not_found')
  })

  it('when a check raises, no longer finds and finds again a discrepancy, then the history shows raised, auto_resolved and reopened by the check', async () => {
    const q = await queue()
    const actor = systemActor(q.a.accountId)
    const context: CheckContext = { accountId: q.a.accountId, coveragePeriodId: q.setupA.coveragePeriod.id, groupId: q.setupA.group.id, source: 'reconciliation' }
    const found: FoundDiscrepancy = { memberId: q.alice.id, planId: null, parameter: 'gender', kind: 'carrier_value_differs', carrier: 'male', platform: 'female' }
    const [raisedError] = await t.db.transaction().execute((tx) => raiseErrors(tx, actor, context, [found]))
    await t.db.transaction().execute((tx) =>
      autoResolveErrors(tx, actor, { coveragePeriodId: context.coveragePeriodId, source: 'reconciliation', keepDedupeKeys: [] }, { message: 'Gone.', resolvedBy: 'reconciliation' }),
    )
    await t.db.transaction().execute((tx) => raiseErrors(tx, actor, context, [found]))
    const history = (await get(q.a, `/errors/${raisedError!.id}/history`)).json().history
    expect(history.map((h: { type: string; actor: string; party: string | null }) => [h.type, h.actor, h.party])).toEqual([
      ['raised', 'reconciliation', null],
      ['auto_resolved', 'reconciliation', null],
      ['reopened', 'reconciliation', null],
    ])
  })
})

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let all = ''
  for await (const chunk of stream) all += String(chunk)
  return all
}

describe('CSV export', () => {
  it('when the list is asked for as text/csv, then every matching error comes as a row, past one page, with names and no SSN', async () => {
    const q = await queue()
    const cp = q.setupA.coveragePeriod.id
    await rename(q.bob, '=HYPERLINK("http://evil.example")', 'Smith, "Jr"')
    const ssn = await raised(cp, { source: 'manual', discrepancy: { parameter: 'social_security_number', carrier: '123-45-6789', platform: '987-65-4321' }, member_id: q.alice.id, severity: 'failure', assignee: 'service' }, 0)
    // More than a page (25 by default).
    for (let i = 0; i < 25; i++) await raised(cp, { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'male', platform: 'female' }, severity: 'info', assignee: 'partner' }, 0)

    const res = await get(q.a, `/coverage_periods/${cp}/errors?sort=-age`, { accept: 'text/csv' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="errors-\d{4}-\d{2}-\d{2}\.csv"$/)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.body.startsWith('\uFEFFError ID,Status,Severity,')).toBe(true)
    const [header, ...rows] = parseCsv(res.body.slice(1))
    expect(rows).toHaveLength(29)
    const column = (name: string) => header!.indexOf(name)
    // In the order asked: the oldest waiting first (e1, three days).
    expect(rows[0]![column('Error ID')]).toBe(q.e1)
    expect(rows[0]![column('Member')]).toBe(`Alice Quill-${q.tag}`)
    expect(rows[0]![column('Employer')]).toBe(`Carrow Foundry ${q.tag}`)
    expect(rows[0]![column('Account')]).toBe(`Platform A ${q.tag}`)
    expect(Number(rows[0]![column('Age (days)')])).toBeCloseTo(3, 0)
    expect(rows[0]![column('Carrier value')]).toBe('1985-03-15')
    // A formula is neutralised, quotes and commas survive.
    const bobRow = rows.find((r) => r[column('Error ID')] === q.e2)!
    expect(bobRow[column('Member')]).toBe(`'=HYPERLINK("http://evil.example") Smith, "Jr"`)
    // No SSN, masked or not.
    const ssnRow = rows.find((r) => r[column('Error ID')] === ssn)!
    expect([ssnRow[column('Carrier value')], ssnRow[column('Platform value')]]).toEqual(['', ''])
    expect(res.body).not.toMatch(/6789|4321/)
  })

  it('when a filter is given, then the export has exactly the rows the list counts; JSON stays the default', async () => {
    const q = await queue()
    const res = await get(operator, `/errors?q=foundry%20${q.tag}&severity=failure`, { accept: 'text/csv' })
    const rows = parseCsv(res.body.slice(1)).slice(1)
    expect(rows.map((r) => r[0])).toEqual([q.e1])
    // JSON preferred by weight, or not asked for CSV at all: JSON.
    const json = await get(operator, `/errors?q=foundry%20${q.tag}`, { accept: 'application/json, text/csv;q=0.5' })
    expect(json.headers['content-type']).toMatch(/^application\/json/)
    expect((await get(operator, `/errors?q=foundry%20${q.tag}`, { accept: '*/*' })).headers['content-type']).toMatch(/^application\/json/)
    // Another account's coverage period is a 404 problem, not an empty file.
    expectProblem(await get(q.b, `/coverage_periods/${q.setupA.coveragePeriod.id}/errors`, { accept: 'text/csv' }), 404, 'coverage_period_not_found')
  })

  it('when the export reads many pages, then each continues where the last ended, in every sort the list has', async () => {
    const q = await queue()
    const cp = q.setupA.coveragePeriod.id
    // Ties on every sort key but id: four errors waiting since the same microsecond.
    const twins: string[] = []
    for (let i = 0; i < 4; i++) twins.push(await raised(cp, { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'male', platform: 'female' }, severity: 'warning', assignee: 'partner' }, 4))
    await sql`update errors set aged_from = date_trunc('day', now()) - interval '4 days 0.123456 seconds' where id = any(${twins}::uuid[])`.execute(t.db)
    for (const sort of ERROR_SORTS) {
      const listed = await idsOf(q.a, `/coverage_periods/${cp}/errors?sort=${sort}&per_page=100`)
      expect(listed).toHaveLength(7)
      // Pages of two rows: the keyset crosses ties, and timestamps must keep their microseconds.
      const csv = await text(errorsCsv(t.db, { coveragePeriodId: cp, accountScope: q.a.accountId }, {}, sort, 2))
      expect(parseCsv(csv.slice(1)).slice(1).map((row) => row[0]), sort).toEqual(listed)
    }
  })
})
