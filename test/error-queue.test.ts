import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { discrepancyMessage } from '../src/modules/errors/discrepancy-messages.js'
import { ErrorSchema } from '../src/modules/errors/errors.schema.js'
import { completedPcpSetup, deliveriesOf, insertWatcher, raiseByHand, registerUser, type PcpSetup } from './helpers/error-fixtures.js'
import { insertCoveragePeriod, insertMember, insertPlan, insertReadySetup } from './helpers/setup-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
let operator: Credential
let opsUser: { id: string; email: string }
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
  opsUser = await registerUser(t, operator, `ops-${uuidv7()}@example.com`, ['operations'])
})
afterAll(async () => t?.close())

const listOf = (who: Credential, coveragePeriodId: string, query = '') => call(t.app, who, 'GET', `/coverage_periods/${coveragePeriodId}/errors${query}`)
const getError = (who: Credential, id: string) => call(t.app, who, 'GET', `/errors/${id}`)

/**
 * Error answers are JSON built by PostgreSQL and sent as is, past the response serializer: each
 * one read here must match the documented schema exactly (no key missing, none extra).
 */
function conforming<T>(error: T): T {
  const problems = [...Value.Errors(ErrorSchema, error)].map((e) => `${e.instancePath} ${e.message}`)
  expect(problems, JSON.stringify(error)).toEqual([])
  return error
}
const comment = (who: Credential, id: string, body: unknown) => call(t.app, who, 'POST', `/errors/${id}/comments`, body)
const resolve = (who: Credential, id: string, body: unknown) => call(t.app, who, 'POST', `/errors/${id}/resolution`, body)
const giveBack = (who: Credential, id: string, body: unknown) => call(t.app, who, 'POST', `/errors/${id}/return`, body)
const idsOf = (res: { json(): { errors: { id: string }[] } }) => res.json().errors.map((e) => e.id).sort()

const EVERY_KEY = [
  'account_id', 'account_name', 'age_seconds', 'assigned_user', 'assignee', 'census_requests', 'comments', 'coverage_period_id', 'created_at',
  'created_by', 'discrepancy', 'employer_name', 'group_id', 'id', 'member_id', 'member_name', 'message', 'plan_id', 'plan_name', 'reopened_at',
  'resolution', 'resolution_message', 'severity', 'source', 'status', 'transaction_ids', 'updated_at',
]
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('errors raised by complete setup', () => {
  it('when setup finds HMO enrollments without a PCP, then the coverage period lists one full error resource per member, the same as GET /errors/{id}', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)

    const res = await listOf(partner, setup.coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers.total).toBe('2')
    expect(res.headers['cache-control']).toBe('no-store')
    const errors = res.json().errors
    expect(errors.map((e: { member_id: string }) => e.member_id).sort()).toEqual([setup.parent.id, setup.child.id].sort())
    for (const error of errors) {
      conforming(error)
      expect(Object.keys(error).sort()).toEqual(EVERY_KEY)
      expect(error).toMatchObject({
        coverage_period_id: setup.coveragePeriod.id,
        group_id: setup.group.id,
        plan_id: setup.hmo.id,
        assignee: 'partner',
        created_by: null,
        comments: [],
        discrepancy: { carrier: null, platform: null, parameter: 'primary_care_provider', kind: 'platform_missing' },
        message: discrepancyMessage('primary_care_provider', 'platform_missing').message,
        resolution: null,
        resolution_message: null,
        reopened_at: null,
        severity: 'failure',
        status: 'unresolved',
        source: 'api',
        transaction_ids: [],
        census_requests: null,
      })
      expect(error.created_at).toMatch(ISO_MS)
      const single = await getError(partner, error.id)
      expect(single.statusCode, single.body).toBe(200)
      expect(single.headers['cache-control']).toBe('no-store')
      expect(single.json().error).toEqual(error)
    }
  })

  it('when a coverage period has no errors, then its list is empty; an unknown one is 404', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const empty = await listOf(partner, setup.coveragePeriod.id)
    expect(empty.statusCode, empty.body).toBe(200)
    expect(empty.json()).toEqual({ errors: [] })
    expect(empty.headers.total).toBe('0')
    const unknown = await listOf(partner, uuidv7())
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().code).toBe('coverage_period_not_found')
    expect((await getError(partner, uuidv7())).json().code).toBe('error_not_found')
  })
})

describe('POST /coverage_periods/{id}/errors (operators)', () => {
  it('when an operator raises an error, then 201 answers it with catalogue defaults, its creator and a first comment sent by the service', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const res = await raiseByHand(t, operator, setup.coveragePeriod.id, {
      source: 'error_report',
      discrepancy: { parameter: 'birth_date', carrier: '1985-03-15', platform: '1985-03-14' },
      member_id: setup.subscriber.id,
      plan_id: setup.plan.id,
      created_by: opsUser.email.toUpperCase(),
      comment: 'From the carrier error report.',
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const error = conforming(res.json().error)
    const catalogue = discrepancyMessage('birth_date', 'carrier_value_differs')
    expect(error).toMatchObject({
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      member_id: setup.subscriber.id,
      plan_id: setup.plan.id,
      source: 'error_report',
      status: 'unresolved',
      discrepancy: { parameter: 'birth_date', carrier: '1985-03-15', platform: '1985-03-14', kind: 'carrier_value_differs' },
      message: catalogue.message,
      severity: catalogue.severity,
      assignee: catalogue.assignee,
      created_by: { id: opsUser.id, email: opsUser.email, created_at: expect.stringMatching(ISO_MS), role_names: ['operations'] },
    })
    expect(error.created_by).not.toHaveProperty('deactivated_at')
    expect(error.comments).toEqual([
      {
        id: expect.any(String),
        error_id: error.id,
        message: 'From the carrier error report.',
        created_at: error.created_at,
        created_by: { id: opsUser.id, email: opsUser.email, role_names: ['operations'] },
        sent_by: 'service',
      },
    ])
    // The partner sees it exactly as answered; the trail is in the partner's account.
    expect((await getError(partner, error.id)).json().error).toEqual(error)
    const audit = await t.db.selectFrom('audit_events').select(['action', 'account_id', 'actor_account_id']).where('resource_id', '=', error.id).execute()
    expect(audit).toEqual([{ action: 'error.created', account_id: partner.accountId, actor_account_id: operator.accountId }])
  })

  it('when no kind is given, then it follows the values; severity and assignee given override the catalogue', async () => {
    const partner = await t.newPartner()
    const { coveragePeriod } = await insertReadySetup(t.db, partner.accountId)
    const kindOf = async (discrepancy: Record<string, unknown>) => {
      const res = await raiseByHand(t, operator, coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'gender', ...discrepancy } })
      expect(res.statusCode, res.body).toBe(201)
      return res.json().error
    }
    expect((await kindOf({ platform: 'female' })).discrepancy.kind).toBe('carrier_missing')
    expect((await kindOf({ carrier: 'male', platform: null })).discrepancy.kind).toBe('platform_missing')
    expect((await kindOf({ carrier: 'male', platform: 'female' })).discrepancy.kind).toBe('carrier_value_differs')
    const bare = await kindOf({})
    expect(bare.discrepancy).toEqual({ parameter: 'gender', carrier: null, platform: null, kind: 'value_invalid' })
    expect(bare.created_by).toBeNull()
    expect(bare.assignee).toBe(discrepancyMessage('gender', 'value_invalid').assignee)

    const overridden = await raiseByHand(t, operator, coveragePeriod.id, {
      source: 'manual',
      discrepancy: { parameter: 'emails', carrier: ['a@b.c'] },
      kind: 'platform_missing',
      severity: 'failure',
      assignee: 'service',
    })
    expect(overridden.statusCode, overridden.body).toBe(201)
    expect(overridden.json().error).toMatchObject({ severity: 'failure', assignee: 'service', message: discrepancyMessage('emails', 'platform_missing').message })
  })

  it('when the discrepancy is about an SSN, then only the masked last four are kept and answered', async () => {
    const partner = await t.newPartner()
    const { coveragePeriod, subscriber } = await insertReadySetup(t.db, partner.accountId)
    const res = await raiseByHand(t, operator, coveragePeriod.id, {
      source: 'error_report',
      member_id: subscriber.id,
      discrepancy: { parameter: 'social_security_number', carrier: '123-45-6789', platform: 987654321 },
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().error.discrepancy).toMatchObject({ carrier: '***-**-6789', platform: '***-**-4321' })
    const stored = await t.db.selectFrom('errors').select(['discrepancy_carrier', 'discrepancy_platform']).where('id', '=', res.json().error.id).executeTakeFirstOrThrow()
    expect(JSON.stringify(stored)).not.toMatch(/12345|98765/)
  })

  it('when the member, plan, creator, kind or values do not fit, then 422 points at each; partners get 403', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const other = await insertReadySetup(t.db, partner.accountId)
    const otherPeriod = await insertCoveragePeriod(t.db, setup.group, { link: false })
    const otherPlan = await insertPlan(t.db, otherPeriod)

    const res = await raiseByHand(t, operator, setup.coveragePeriod.id, {
      source: 'manual',
      discrepancy: { parameter: 'birth_date', carrier: 'bad value' },
      kind: 'carrier_missing',
      member_id: other.subscriber.id,
      plan_id: otherPlan.id,
      comment: '   ',
    })
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().code).toBe('validation_failed')
    expect(res.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([
      ['/error/kind', 'kind_contradicts_values'],
      ['/error/comment', 'blank'],
      ['/error/member_id', 'not_in_group'],
      ['/error/plan_id', 'not_in_coverage_period'],
    ])

    // Text the database cannot store is refused by the HTTP layer before anything else is looked at.
    const unstorable = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'birth_date', carrier: 'bad\u0000value' }, comment: '   ' })
    expect(unstorable.statusCode, unstorable.body).toBe(422)
    expect(unstorable.json().code).toBe('invalid_character')
    expect(unstorable.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([['/error/discrepancy/carrier', 'invalid_character']])

    const unknownUser = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'gender' }, created_by: 'nobody@example.com' })
    expect(unknownUser.statusCode).toBe(422)
    expect(unknownUser.json().errors).toEqual([expect.objectContaining({ pointer: '/error/created_by', code: 'unknown_user' })])

    const badEnum = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'api', discrepancy: { parameter: 'ssn' } })
    expect(badEnum.statusCode).toBe(422)
    expect(badEnum.json().errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/error/discrepancy/parameter', '/error/source'])

    const huge = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'emails', platform: 'x'.repeat(5000) } })
    expect(huge.json().errors).toEqual([expect.objectContaining({ pointer: '/error/discrepancy/platform', code: 'too_long' })])

    const asPartner = await raiseByHand(t, partner, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'gender' } })
    expect(asPartner.statusCode).toBe(403)
    expect((await raiseByHand(t, operator, uuidv7(), { source: 'manual', discrepancy: { parameter: 'gender' } })).statusCode).toBe(404)
    expect(await t.db.selectFrom('errors').select('id').where('coverage_period_id', '=', setup.coveragePeriod.id).execute()).toEqual([])
  })
})

describe('filters', () => {
  interface Queue {
    partner: Credential
    setup: PcpSetup
    ids: Record<'pcpParent' | 'pcpChild' | 'birthDate' | 'emails' | 'resolved' | 'returned', string>
  }
  let q: Queue

  beforeAll(async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const other = await insertMember(t.db, setup.group, { firstName: 'Othername' })
    const raise = async (error: Record<string, unknown>) => {
      const res = await raiseByHand(t, operator, setup.coveragePeriod.id, error)
      expect(res.statusCode, res.body).toBe(201)
      return res.json().error.id as string
    }
    const birthDate = await raise({ source: 'error_report', member_id: other.id, discrepancy: { parameter: 'birth_date', carrier: '1990-01-01', platform: '1990-01-02' } })
    const emails = await raise({ source: 'manual', member_id: other.id, discrepancy: { parameter: 'emails', platform: ['x@example.com'] } })
    const resolved = await raise({ source: 'manual', discrepancy: { parameter: 'region', carrier: 'north' }, severity: 'warning' })
    const returned = await raise({ source: 'manual', member_id: other.id, discrepancy: { parameter: 'gender', carrier: 'male', platform: 'female' } })
    expect((await resolve(partner, resolved, { message: 'Fixed.' })).statusCode).toBe(200)
    expect((await giveBack(partner, returned, { message: 'Ours is right.' })).statusCode).toBe(200)
    q = {
      partner,
      setup,
      ids: { pcpParent: setup.errorIdOf.get(setup.parent.id)!, pcpChild: setup.errorIdOf.get(setup.child.id)!, birthDate, emails, resolved, returned },
    }
  })

  const expectIds = async (query: string, names: (keyof Queue['ids'])[]) => {
    const res = await listOf(q.partner, q.setup.coveragePeriod.id, query)
    expect(res.statusCode, res.body).toBe(200)
    expect(idsOf(res), query).toEqual(names.map((name) => q.ids[name]).sort())
    expect(res.headers.total).toBe(String(names.length))
  }

  it('when each filter is used alone, then exactly the matching errors are listed', async () => {
    await expectIds('', ['pcpParent', 'pcpChild', 'birthDate', 'emails', 'resolved', 'returned'])
    await expectIds('?status=unresolved', ['pcpParent', 'pcpChild', 'birthDate', 'emails'])
    await expectIds('?status=resolved', ['resolved'])
    await expectIds('?status=returned', ['returned'])
    // emails/carrier_missing defaults to the service; the returned one went partner → service.
    await expectIds('?assignee=service', ['emails', 'returned'])
    await expectIds('?assignee=partner', ['pcpParent', 'pcpChild', 'birthDate', 'resolved'])
    await expectIds('?severity=failure', ['pcpParent', 'pcpChild', 'birthDate'])
    await expectIds('?severity=info', ['emails'])
    await expectIds('?severity=warning', ['resolved', 'returned'])
    await expectIds('?source=api', ['pcpParent', 'pcpChild'])
    await expectIds('?source=error_report', ['birthDate'])
    await expectIds('?source=manual', ['emails', 'resolved', 'returned'])
    await expectIds('?source=reconciliation', [])
    await expectIds('?parameter=primary_care_provider', ['pcpParent', 'pcpChild'])
    await expectIds('?parameter=birth_date', ['birthDate'])
    await expectIds(`?member_id=${q.setup.child.id}`, ['pcpChild'])
  })

  it('when filters are combined, then they all apply', async () => {
    await expectIds('?status=unresolved&assignee=partner', ['pcpParent', 'pcpChild', 'birthDate'])
    await expectIds('?status=unresolved&assignee=service', ['emails'])
    await expectIds('?source=manual&severity=warning&status=returned', ['returned'])
    await expectIds(`?parameter=primary_care_provider&member_id=${q.setup.parent.id}&status=unresolved`, ['pcpParent'])
    await expectIds(`?member_id=${q.setup.parent.id}&source=manual`, [])
  })

  it('when a filter has an unknown value or the name is unknown, then 422 names the parameter', async () => {
    for (const [name, value] of [['status', 'open'], ['assignee', 'carrier'], ['severity', 'critical'], ['source', 'email'], ['parameter', 'ssn'], ['member_id', 'not-a-uuid']]) {
      const res = await listOf(q.partner, q.setup.coveragePeriod.id, `?${name}=${value}`)
      expect(res.statusCode, `${name}=${value}`).toBe(422)
      expect(res.headers['content-type']).toContain('application/problem+json')
      expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ parameter: name }] })
    }
    const unknownName = await listOf(q.partner, q.setup.coveragePeriod.id, '?state=unresolved')
    expect(unknownName.json()).toMatchObject({ code: 'validation_failed', errors: [{ parameter: 'state', code: 'unknown_field' }] })
    const queue = await call(t.app, q.partner, 'GET', '/errors?assignee=everyone')
    expect(queue.json()).toMatchObject({ code: 'validation_failed', errors: [{ parameter: 'assignee' }] })
  })

  it('when paging, then pages follow creation order with Total and Link, and filters carry into the links', async () => {
    const all = idsOf(await listOf(q.partner, q.setup.coveragePeriod.id))
    const first = await listOf(q.partner, q.setup.coveragePeriod.id, '?status=unresolved&per_page=3')
    const second = await listOf(q.partner, q.setup.coveragePeriod.id, '?status=unresolved&per_page=3&page=2')
    expect(first.headers.total).toBe('4')
    expect(first.json().errors).toHaveLength(3)
    expect(second.json().errors).toHaveLength(1)
    expect(first.headers.link).toContain('status=unresolved')
    expect(first.headers.link).toContain('rel="next"')
    const paged = [...first.json().errors, ...second.json().errors]
    expect(paged.map((e: { created_at: string }) => e.created_at)).toEqual([...paged.map((e: { created_at: string }) => e.created_at)].sort())
    expect(paged.every((e: { id: string }) => all.includes(e.id))).toBe(true)
  })

  it('when the cross-coverage-period queue is read, then it holds the account\'s errors only, narrowed by coverage_period_id and group_id', async () => {
    const another = await completedPcpSetup(t, q.partner)
    const mine = await call(t.app, q.partner, 'GET', '/errors?per_page=100&status=unresolved&assignee=partner')
    expect(mine.statusCode, mine.body).toBe(200)
    expect(idsOf(mine)).toEqual([q.ids.pcpParent, q.ids.pcpChild, q.ids.birthDate, ...another.errorIdOf.values()].sort())
    const byPeriod = await call(t.app, q.partner, 'GET', `/errors?coverage_period_id=${another.coveragePeriod.id}`)
    expect(idsOf(byPeriod)).toEqual([...another.errorIdOf.values()].sort())
    const byGroup = await call(t.app, q.partner, 'GET', `/errors?group_id=${q.setup.group.id}&source=api`)
    expect(idsOf(byGroup)).toEqual([q.ids.pcpParent, q.ids.pcpChild].sort())

    const stranger = await t.newPartner('Stranger')
    const theirs = await call(t.app, stranger, 'GET', `/errors?coverage_period_id=${q.setup.coveragePeriod.id}`)
    expect(theirs.json()).toEqual({ errors: [] })
    expect((await call(t.app, stranger, 'GET', '/errors')).json()).toEqual({ errors: [] })
    const asOperator = await call(t.app, operator, 'GET', `/errors?coverage_period_id=${q.setup.coveragePeriod.id}&per_page=100`)
    expect(asOperator.json().errors).toHaveLength(6)
  })
})

describe('comments', () => {
  it('when a partner comments as a registered user, then 201 answers the comment, sent by the partner, and the error lists it', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${uuidv7()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.parent.id)!

    const res = await comment(partner, errorId, { message: 'Asking the member for a provider.', created_by: jane.email })
    expect(res.statusCode, res.body).toBe(201)
    const created = res.json().comment
    expect(created).toEqual({
      id: expect.any(String),
      error_id: errorId,
      message: 'Asking the member for a provider.',
      created_at: expect.stringMatching(ISO_MS),
      created_by: { id: jane.id, email: jane.email, role_names: ['benefits_admin'] },
      sent_by: 'partner',
    })
    const byOperator = await comment(operator, errorId, { message: 'Carrier confirms it is needed.', created_by: opsUser.email })
    expect(byOperator.statusCode, byOperator.body).toBe(201)
    expect(byOperator.json().comment.sent_by).toBe('service')

    const error = conforming((await getError(partner, errorId)).json().error)
    expect(error.comments).toEqual([created, byOperator.json().comment])
    expect(error.status).toBe('unresolved')
    const listed = await call(t.app, partner, 'GET', `/errors/${errorId}/comments?per_page=1&page=2`)
    expect(listed.statusCode, listed.body).toBe(200)
    expect(listed.headers.total).toBe('2')
    expect(listed.json()).toEqual({ comments: [byOperator.json().comment] })
    const fromList = (await listOf(partner, setup.coveragePeriod.id, `?member_id=${setup.parent.id}`)).json().errors[0]
    expect(fromList.comments).toEqual(error.comments)
  })

  it('when created_by is unknown, of another account, deactivated or malformed, then 422 at /created_by and nothing is written', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.child.id)!
    const gone = await registerUser(t, partner, `gone-${uuidv7()}@example.com`)
    expect((await call(t.app, partner, 'POST', `/users/${gone.id}/deactivation`)).statusCode).toBe(200)

    const cases: [string | undefined, string][] = [
      ['nobody@example.com', 'unknown_user'],
      [opsUser.email, 'unknown_user'], // the operator's user is not the partner's
      [gone.email, 'user_deactivated'],
      ['jane', 'invalid_format'],
      ['jane@example', 'invalid_format'],
      [undefined, 'required'],
    ]
    for (const [createdBy, code] of cases) {
      const res = await comment(partner, errorId, { message: 'Hello', ...(createdBy === undefined ? {} : { created_by: createdBy }) })
      expect(res.statusCode, String(createdBy)).toBe(422)
      expect(res.json().errors, String(createdBy)).toEqual([expect.objectContaining({ pointer: '/created_by', code })])
    }
    const blank = await comment(partner, errorId, { message: ' ', created_by: gone.email })
    expect(blank.json().errors).toEqual([expect.objectContaining({ pointer: '/message', code: 'blank' })])
    expect(await t.db.selectFrom('error_comments').select('id').where('error_id', '=', errorId).execute()).toEqual([])
  })
})

describe('return', () => {
  it('when the assigned partner returns an unresolved error, then it is returned to the service with the message as its comment', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${uuidv7()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.parent.id)!

    const res = await giveBack(partner, errorId, { message: 'The member is not in an HMO.', created_by: jane.email })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const error = conforming(res.json().error)
    expect(error).toMatchObject({ status: 'returned', assignee: 'service', resolution: null })
    expect(error.comments).toEqual([
      expect.objectContaining({ message: 'The member is not in an HMO.', sent_by: 'partner', created_by: expect.objectContaining({ id: jane.id }) }),
    ])
    expect((await getError(partner, errorId)).json().error).toEqual(error)

    const again = await giveBack(partner, errorId, { message: 'Again.' })
    expect(again.statusCode).toBe(422)
    expect(again.json()).toMatchObject({ code: 'error_not_unresolved' })
    expect(again.json().detail).toContain('returned')
  })

  it('when the party not assigned returns, then 422; the service returns its own errors to the partner without naming a user', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.parent.id)!

    const byService = await giveBack(operator, errorId, { message: 'Not ours.' })
    expect(byService.statusCode).toBe(422)
    expect(byService.json().code).toBe('error_not_assigned_to_caller')

    const raised = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'emails', platform: ['a@b.c'] } })
    const serviceError = raised.json().error
    expect(serviceError.assignee).toBe('service')
    expect((await giveBack(partner, serviceError.id, { message: 'Yours.' })).json().code).toBe('error_not_assigned_to_caller')
    const back = await giveBack(operator, serviceError.id, { message: 'Please confirm the address.' })
    expect(back.statusCode, back.body).toBe(200)
    expect(back.json().error).toMatchObject({ status: 'returned', assignee: 'partner' })
    expect(back.json().error.comments).toEqual([expect.objectContaining({ sent_by: 'service', created_by: null, message: 'Please confirm the address.' })])
  })

  it('when a resolved error is returned, then 422 names the status and nothing changes', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.child.id)!
    expect((await resolve(partner, errorId, { message: 'Done.' })).statusCode).toBe(200)
    const before = (await getError(partner, errorId)).json().error
    const res = await giveBack(partner, errorId, { message: 'Changed my mind.' })
    expect(res.statusCode).toBe(422)
    expect(res.json().code).toBe('error_not_unresolved')
    expect(res.json().detail).toContain('resolved')
    expect((await getError(partner, errorId)).json().error).toEqual(before)
  })
})

describe('resolution', () => {
  it('when resolved with resolved_by, then the resolution names the user; without, the API key; a second resolution replaces the first', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane-${uuidv7()}@example.com`)
    const errorId = setup.errorIdOf.get(setup.parent.id)!

    const res = await resolve(partner, errorId, { message: 'Provider selection sent.', resolved_by: jane.email })
    expect(res.statusCode, res.body).toBe(200)
    const error = conforming(res.json().error)
    expect(error).toMatchObject({
      status: 'resolved',
      resolution_message: 'Provider selection sent.',
      resolution: { message: 'Provider selection sent.', created_at: expect.stringMatching(ISO_MS), resolved_by: jane.email },
    })
    expect((await getError(partner, errorId)).json().error).toEqual(error)

    const again = await resolve(partner, errorId, { message: 'Confirmed with the carrier.' })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().error.resolution).toMatchObject({ message: 'Confirmed with the carrier.', resolved_by: 'Test partner key' })
    expect(again.json().error.resolution_message).toBe('Confirmed with the carrier.')
    const stored = await t.db.selectFrom('errors').select(['resolved_by_user_id', 'resolved_by']).where('id', '=', errorId).executeTakeFirstOrThrow()
    expect(stored).toEqual({ resolved_by_user_id: null, resolved_by: 'Test partner key' })
  })

  it('when a returned error is resolved by the operator, then it is resolved naming the operator key', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.child.id)!
    expect((await giveBack(partner, errorId, { message: 'Please check.' })).statusCode).toBe(200)
    const res = await resolve(operator, errorId, { message: 'Carrier waived it.', resolved_by: opsUser.email })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().error).toMatchObject({ status: 'resolved', assignee: 'service', resolution: { resolved_by: opsUser.email } })
  })

  it('when resolved_by is not an active user of the account or the message is missing, then 422 and the error stays open', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const errorId = setup.errorIdOf.get(setup.child.id)!
    const unknown = await resolve(partner, errorId, { message: 'Done.', resolved_by: 'ghost@example.com' })
    expect(unknown.statusCode).toBe(422)
    expect(unknown.json().errors).toEqual([expect.objectContaining({ pointer: '/resolved_by', code: 'unknown_user' })])
    const missing = await resolve(partner, errorId, {})
    expect(missing.json().errors).toEqual([expect.objectContaining({ pointer: '/message', code: 'required' })])
    expect((await getError(partner, errorId)).json().error.status).toBe('unresolved')
  })
})

describe('tenancy', () => {
  it("when another partner names an error or its coverage period, then 404 everywhere and nothing changes; the operator sees it", async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner('Stranger')
    const strangerUser = await registerUser(t, stranger, `s-${uuidv7()}@example.com`)
    const setup = await completedPcpSetup(t, owner)
    const errorId = setup.errorIdOf.get(setup.parent.id)!
    const before = (await getError(owner, errorId)).json().error

    const answers = [
      await getError(stranger, errorId),
      await call(t.app, stranger, 'GET', `/errors/${errorId}/comments`),
      await comment(stranger, errorId, { message: 'Hi', created_by: strangerUser.email }),
      await resolve(stranger, errorId, { message: 'Mine now' }),
      await giveBack(stranger, errorId, { message: 'Back' }),
    ]
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(404)
      expect(res.json().code).toBe('error_not_found')
    }
    const list = await listOf(stranger, setup.coveragePeriod.id)
    expect(list.statusCode).toBe(404)
    expect(list.json().code).toBe('coverage_period_not_found')
    expect((await getError(owner, errorId)).json().error).toEqual(before)
    expect((await getError(operator, errorId)).json().error).toEqual(before)
    expect(idsOf(await listOf(operator, setup.coveragePeriod.id))).toEqual([...setup.errorIdOf.values()].sort())
  })
})

describe('GET /discrepancy_messages', () => {
  it('when read, then the catalogue has one entry per parameter and kind, filterable', async () => {
    const partner = await t.newPartner()
    const all = await call(t.app, partner, 'GET', '/discrepancy_messages?per_page=100')
    expect(all.statusCode, all.body).toBe(200)
    expect(all.headers.total).toBe('92')
    expect(all.json().discrepancy_messages).toContainEqual({
      parameter: 'primary_care_provider',
      kind: 'platform_missing',
      message: 'A primary care provider selection is required for this HMO enrollment.',
      severity: 'failure',
      assignee: 'partner',
    })
    const birthDate = await call(t.app, partner, 'GET', '/discrepancy_messages?parameter=birth_date')
    expect(birthDate.json().discrepancy_messages.map((m: { kind: string }) => m.kind)).toEqual(['carrier_value_differs', 'carrier_missing', 'platform_missing', 'value_invalid'])
    const carrierMissing = await call(t.app, partner, 'GET', '/discrepancy_messages?kind=carrier_missing&per_page=100')
    expect(carrierMissing.json().discrepancy_messages).toHaveLength(23)
    expect((await call(t.app, partner, 'GET', '/discrepancy_messages?kind=missing')).json()).toMatchObject({ errors: [{ parameter: 'kind' }] })
  })
})

describe('events', () => {
  it('when errors are raised, commented, returned and resolved, then each change queues its event with ids and statuses only', async () => {
    const partner = await t.newPartner()
    const watcherId = await insertWatcher(t.db, partner.accountId)
    const setup = await completedPcpSetup(t, partner)
    const jane = await registerUser(t, partner, `jane.private-${uuidv7()}@example.com`)
    const [parentError, childError] = [setup.errorIdOf.get(setup.parent.id)!, setup.errorIdOf.get(setup.child.id)!]

    const afterSetup = await deliveriesOf(t.db, watcherId)
    expect(afterSetup.map((d) => d.type).sort()).toEqual(['coverage_period.state_changed', 'error.created', 'error.created', 'work_order.status_changed'])
    const workOrder = await t.db.selectFrom('work_orders').select('id').where('coverage_period_id', '=', setup.coveragePeriod.id).executeTakeFirstOrThrow()
    expect(afterSetup.find((d) => d.type === 'work_order.status_changed')!.data).toEqual({
      work_order_id: workOrder.id,
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      previous_status: null,
      status: 'open',
    })
    expect(afterSetup.find((d) => d.type === 'coverage_period.state_changed')!.data).toEqual({
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      previous_state: 'initial',
      state: 'configuration',
    })
    expect(afterSetup.filter((d) => d.type === 'error.created').map((d) => d.data.error_id).sort()).toEqual([parentError, childError].sort())
    expect(afterSetup.find((d) => d.data.error_id === parentError)!.data).toEqual({
      error_id: parentError,
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      member_id: setup.parent.id,
      plan_id: setup.hmo.id,
      parameter: 'primary_care_provider',
      kind: 'platform_missing',
      severity: 'failure',
      source: 'api',
      status: 'unresolved',
      assignee: 'partner',
      assigned_user_id: null,
      reopened: false,
    })

    const secretText = 'Member Parentname born 1985-03-14, SSN 123-45-6789'
    expect((await comment(partner, parentError, { message: secretText, created_by: jane.email })).statusCode).toBe(201)
    expect((await giveBack(partner, childError, { message: secretText, created_by: jane.email })).statusCode).toBe(200)
    expect((await resolve(partner, parentError, { message: secretText, resolved_by: jane.email })).statusCode).toBe(200)
    const raised = await raiseByHand(t, operator, setup.coveragePeriod.id, {
      source: 'error_report',
      member_id: setup.parent.id,
      discrepancy: { parameter: 'social_security_number', carrier: '123-45-6789', platform: '123-45-6788' },
      comment: secretText,
    })
    expect(raised.statusCode, raised.body).toBe(201)
    const byHand = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter: 'birth_date', carrier: '1985-03-14', platform: '1985-03-15' } })
    expect(byHand.statusCode, byHand.body).toBe(201)

    const later = (await deliveriesOf(t.db, watcherId)).slice(afterSetup.length)
    expect(later.map((d) => [d.type, d.data.error_id])).toEqual([
      ['error.commented', parentError],
      ['error.commented', childError],
      ['error.returned', childError],
      ['error.resolved', parentError],
      ['error.created', raised.json().error.id],
      ['error.commented', raised.json().error.id],
      ['error.created', byHand.json().error.id],
    ])
    expect(later[0]!.data).toMatchObject({ comment_id: expect.any(String), sent_by: 'partner', status: 'unresolved' })
    expect(later[2]!.data).toMatchObject({ status: 'returned', assignee: 'service', previous_status: 'unresolved', previous_assignee: 'partner', comment_id: later[1]!.data.comment_id })
    expect(later[3]!.data).toMatchObject({ status: 'resolved', previous_status: 'unresolved', automatic: false })

    const allowed = new Set([
      'error_id', 'coverage_period_id', 'group_id', 'member_id', 'plan_id', 'parameter', 'kind', 'severity', 'source', 'status', 'assignee',
      'reopened', 'comment_id', 'sent_by', 'previous_status', 'previous_assignee', 'automatic', 'work_order_id', 'previous_state', 'state',
      // The person working the error is named by id only (issue 17).
      'assigned_user_id', 'previous_assigned_user_id',
    ])
    for (const delivery of [...afterSetup, ...later]) {
      for (const key of Object.keys(delivery.data)) expect(allowed, `${delivery.type} carries ${key}`).toContain(key)
      // Dash-joined fragments: a bare '6789' could occur in a random uuid.
      for (const secret of ['Parentname', 'Childname', '1985-03', '45-6789', '45-6788', jane.email, 'jane.private', opsUser.email]) {
        expect(delivery.text, `${delivery.type} leaks ${secret}`).not.toContain(secret)
      }
    }
  })

  it('when the watcher did not subscribe to a type, then no delivery of that type is queued', async () => {
    const partner = await t.newPartner()
    const watcherId = await insertWatcher(t.db, partner.accountId, ['error.resolved'])
    const setup = await completedPcpSetup(t, partner)
    expect(await deliveriesOf(t.db, watcherId)).toEqual([])
    expect((await resolve(partner, setup.errorIdOf.get(setup.child.id)!, { message: 'Done.' })).statusCode).toBe(200)
    expect((await deliveriesOf(t.db, watcherId)).map((d) => d.type)).toEqual(['error.resolved'])
  })
})
