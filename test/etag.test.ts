import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { groupBody } from './helpers/group-fixtures.js'
import { dependentBody, insertGroupFixture, subscriberBody, type GroupFixture } from './helpers/member-factories.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import { fakeResolver } from './helpers/webhooks.js'

/**
 * Every resource a client can PUT or PATCH answers with an ETag, and If-Match makes the write
 * conditional (RFC 9110 section 13.1.1): a stale tag is 412 precondition_failed and changes
 * nothing; the current tag (or `*`) lets the write through and the answer carries the new tag.
 */
let t: TestApp
let partner: Credential
let fixture: GroupFixture
let counter = 0
beforeAll(async () => {
  t = await startTestApp({ resolveHost: fakeResolver({ 'hooks.example.com': ['203.0.113.10'] }) })
  partner = await t.newPartner()
  fixture = await insertGroupFixture(t.db, partner.accountId)
})
afterAll(async () => t?.close())

interface Resource {
  /** Creates one and returns the URL to read it at and the URL to write it at. */
  create(): Promise<{ read: string; write: string }>
  method: 'PUT' | 'PATCH'
  /** A valid write body; `n` makes each one different. */
  body(n: number): Promise<Record<string, unknown>> | Record<string, unknown>
  /** The field the body changes, read back from the GET answer. */
  changed(answer: Record<string, unknown>): unknown
}

const subscriberUpdate = (n: number) => {
  const { dependents: _dependents, ...update } = subscriberBody(fixture, 7_000, { first_name: `Jane${n}` })
  return { subscriber: update }
}

const resources: Record<string, Resource> = {
  group: {
    async create() {
      const res = await call(t.app, partner, 'POST', '/groups', { group: groupBody() })
      expect(res.statusCode, res.body).toBe(201)
      const url = `/groups/${res.json().group.id}`
      return { read: url, write: url }
    },
    method: 'PUT',
    async body(n) {
      const { primary_location: _location, ...core } = groupBody({ external_identifier: `etag-group-${n}` })
      return { group: core }
    },
    changed: (answer) => (answer.group as { external_identifier: string }).external_identifier,
  },
  watcher: {
    async create() {
      const res = await call(t.app, partner, 'POST', '/watchers', { watcher: { url: 'https://hooks.example.com/a', event_types: ['error.created'] } })
      expect(res.statusCode, res.body).toBe(201)
      const url = `/watchers/${res.json().watcher.id}`
      return { read: url, write: url }
    },
    method: 'PATCH',
    body: (n) => ({ watcher: { description: `version ${n}` } }),
    changed: (answer) => (answer.watcher as { description: string }).description,
  },
  subscriber: {
    async create() {
      const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 7_000 + ++counter) })
      expect(res.statusCode, res.body).toBe(201)
      const url = `/subscribers/${res.json().subscriber.id}`
      return { read: url, write: url }
    },
    method: 'PUT',
    body: (n) => {
      const body = subscriberUpdate(n)
      return { subscriber: { ...body.subscriber, external_identifier: `etag-emp-${counter}` } }
    },
    changed: (answer) => (answer.subscriber as { first_name: string }).first_name,
  },
  dependent: {
    async create() {
      const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 7_500 + ++counter) })
      expect(res.statusCode, res.body).toBe(201)
      const id = res.json().subscriber.dependents[0].id
      // A dependent is read at /members/{id} and written at /dependents/{id}.
      return { read: `/members/${id}`, write: `/dependents/${id}` }
    },
    method: 'PUT',
    body: (n) => ({ dependent: dependentBody(70_000 + counter, { first_name: `Sam${n}` }) }),
    changed: (answer) => (answer.member as { first_name: string }).first_name,
  },
}

describe.each(Object.entries(resources))('ETag and If-Match on the %s', (_name, resource) => {
  it('when it is read, then the answer carries a strong ETag that stays the same while nothing changes', async () => {
    const { read } = await resource.create()
    const first = await call(t.app, partner, 'GET', read)
    expect(first.statusCode).toBe(200)
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect((await call(t.app, partner, 'GET', read)).headers.etag).toBe(first.headers.etag)
  })

  it('when If-Match names the version read, then the write goes through and answers the new ETag, the one a read then shows', async () => {
    const { read, write } = await resource.create()
    const before = await call(t.app, partner, 'GET', read)
    const res = await call(t.app, partner, resource.method, write, await resource.body(1), { 'if-match': String(before.headers.etag) })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(res.headers.etag).not.toBe(before.headers.etag)
    const after = await call(t.app, partner, 'GET', read)
    expect(after.headers.etag).toBe(res.headers.etag)
  })

  it('when If-Match names a version someone else has replaced, then 412 precondition_failed and nothing changes', async () => {
    const { read, write } = await resource.create()
    const stale = String((await call(t.app, partner, 'GET', read)).headers.etag)
    // Someone else writes first...
    expect((await call(t.app, partner, resource.method, write, await resource.body(2), { 'if-match': stale })).statusCode).toBe(200)
    const current = await call(t.app, partner, 'GET', read)
    // ...so the write based on the old read is refused.
    const res = await call(t.app, partner, resource.method, write, await resource.body(3), { 'if-match': stale })
    expectProblem(res, 412, 'precondition_failed')
    const after = await call(t.app, partner, 'GET', read)
    expect(after.json()).toEqual(current.json())
    expect(after.headers.etag).toBe(current.headers.etag)
    expect(resource.changed(after.json())).toBe(resource.changed(current.json()))
  })

  it('when If-Match is * or absent, then the write goes through whatever the version', async () => {
    const { read, write } = await resource.create()
    expect((await call(t.app, partner, resource.method, write, await resource.body(4), { 'if-match': '*' })).statusCode).toBe(200)
    const res = await call(t.app, partner, resource.method, write, await resource.body(5))
    expect(res.statusCode).toBe(200)
    expect(res.headers.etag).toBe((await call(t.app, partner, 'GET', read)).headers.etag)
  })

  it('when two writers send the same If-Match at once, then exactly one wins and the other gets 412', async () => {
    const { read, write } = await resource.create()
    const tag = String((await call(t.app, partner, 'GET', read)).headers.etag)
    const answers = await Promise.all([6, 7].map(async (n) => call(t.app, partner, resource.method, write, await resource.body(n), { 'if-match': tag })))
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 412])
    const winner = answers.find((a) => a.statusCode === 200)!
    expect((await call(t.app, partner, 'GET', read)).headers.etag).toBe(winner.headers.etag)
  })
})

describe('If-Match details', () => {
  it('when If-Match lists several tags, one of them current, then the write goes through; a weak tag never matches', async () => {
    const { read, write } = await resources.watcher!.create()
    const tag = String((await call(t.app, partner, 'GET', read)).headers.etag)
    expectProblem(await call(t.app, partner, 'PATCH', write, { watcher: { description: 'weak' } }, { 'if-match': `W/${tag}` }), 412, 'precondition_failed')
    const res = await call(t.app, partner, 'PATCH', write, { watcher: { description: 'listed' } }, { 'if-match': `"old-one", ${tag}` })
    expect(res.statusCode).toBe(200)
  })

  it('when a watcher is deleted with a stale If-Match, then 412 and it still exists; with the current tag, it is deleted', async () => {
    const { read, write } = await resources.watcher!.create()
    const before = String((await call(t.app, partner, 'GET', read)).headers.etag)
    await call(t.app, partner, 'PATCH', write, { watcher: { description: 'changed by someone else' } })
    expectProblem(await call(t.app, partner, 'DELETE', write, undefined, { 'if-match': before }), 412, 'precondition_failed')
    const current = await call(t.app, partner, 'GET', read)
    expect(current.statusCode).toBe(200)
    expect((await call(t.app, partner, 'DELETE', write, undefined, { 'if-match': String(current.headers.etag) })).statusCode).toBe(204)
    expect((await call(t.app, partner, 'GET', read)).statusCode).toBe(404)
  })

  it('when the resource is not in the account, then 404 whatever If-Match says', async () => {
    const { write } = await resources.watcher!.create()
    const other = await t.newPartner()
    const res = await call(t.app, other, 'PATCH', write, { watcher: { description: 'x' } }, { 'if-match': '"anything"' })
    expect(res.statusCode).toBe(404)
  })
})

describe('ETag in the OpenAPI document', () => {
  it('when a client generator reads it, then every PUT and PATCH declares If-Match, the ETag it answers and 412, and so do the reads that give the tag', () => {
    const document = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { operationId: string; parameters?: { in: string; name: string }[]; responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> }>>
      components: { responses: Record<string, { headers?: Record<string, unknown> }> }
    }
    const resolve = (response: { $ref?: string; headers?: Record<string, unknown> }) =>
      response.$ref ? document.components.responses[response.$ref.replace('#/components/responses/', '')]! : response
    // The assignment PUTs (work orders, errors) name the whole assignment, so repeating one is harmless
    // without a condition; and what they answer carries age_seconds, which changes every second, so a
    // tag of it would be stale at once (docs/decisions.md, the work-order queue).
    const writes = Object.values(document.paths)
      .flatMap((item) => Object.entries(item).filter(([method]) => method === 'put' || method === 'patch').map(([, op]) => op))
      .filter((op) => op.operationId !== 'assignWorkOrder' && op.operationId !== 'assignError')
    expect(writes.map((op) => op.operationId).sort()).toEqual(['updateDependent', 'updateGroup', 'updateSubscriber', 'updateWatcher'])
    for (const op of writes) {
      expect(op.parameters?.some((p) => p.in === 'header' && p.name === 'if-match'), op.operationId).toBe(true)
      expect(op.responses['412'], op.operationId).toBeDefined()
      expect(resolve(op.responses['200']!).headers, op.operationId).toHaveProperty('ETag')
    }
    for (const [path, method] of [['/groups/{id}', 'get'], ['/watchers/{id}', 'get'], ['/subscribers/{id}', 'get'], ['/members/{id}', 'get']] as const) {
      expect(resolve(document.paths[path]![method]!.responses['200']!).headers, path).toHaveProperty('ETag')
    }
  })
})
