import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('users', () => {
  it('when a partner registers a user, then it is answered as the user object of the interface (2.3)', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'Jane.Doe@Example.com', role_names: ['benefits_admin'] } })
    expect(res.statusCode).toBe(201)
    const { user } = res.json()
    expect(user).toEqual({ id: expect.any(String), email: 'jane.doe@example.com', created_at: expect.any(String), role_names: ['benefits_admin'] })
    expect(user).not.toHaveProperty('deactivated_at')
    const read = await call(t.app, partner, 'GET', `/users/${user.id}`)
    expect(read.json().user).toEqual(user)
  })

  it('when the same email is registered twice in an account (any case), then the second answers 409', async () => {
    const partner = await t.newPartner()
    await call(t.app, partner, 'POST', '/users', { user: { email: 'dup@example.com' } })
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'DUP@example.com' } })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'email_already_registered', errors: [{ pointer: '/user/email' }] })
  })

  it('when the email is not of the form text@text.text, then 422 points at it', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'not-an-email' } })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toEqual([{ pointer: '/user/email', code: 'invalid_format', detail: expect.any(String) }])
  })

  it('when another account asks for the user, then it answers 404 as for an unknown id', async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner()
    const created = await call(t.app, owner, 'POST', '/users', { user: { email: 'mine@example.com' } })
    const res = await call(t.app, stranger, 'GET', `/users/${created.json().user.id}`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('user_not_found')
  })

  it('when a user is deactivated, then deactivated_at appears, stays fixed on repeat, and the status filter sees it', async () => {
    const partner = await t.newPartner()
    const { user } = (await call(t.app, partner, 'POST', '/users', { user: { email: 'leaver@example.com' } })).json()
    const first = await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)
    expect(first.statusCode).toBe(200)
    expect(first.json().user.deactivated_at).toEqual(expect.any(String))
    const second = await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)
    expect(second.json().user.deactivated_at).toBe(first.json().user.deactivated_at)
    const active = await call(t.app, partner, 'GET', '/users?status=active')
    expect(active.json().users).toEqual([])
    const deactivated = await call(t.app, partner, 'GET', '/users?status=deactivated')
    expect(deactivated.json().users.map((u: { id: string }) => u.id)).toEqual([user.id])
  })

  it('when users are listed, then only the caller account users come back, paginated with headers', async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner()
    await call(t.app, other, 'POST', '/users', { user: { email: 'other@example.com' } })
    for (const n of [1, 2, 3]) await call(t.app, partner, 'POST', '/users', { user: { email: `u${n}@example.com` } })
    const res = await call(t.app, partner, 'GET', '/users?per_page=2&page=2')
    expect(res.statusCode).toBe(200)
    expect(res.json().users.map((u: { email: string }) => u.email)).toEqual(['u3@example.com'])
    expect(res.headers).toMatchObject({ total: '3', 'per-page': '2', page: '2' })
    expect(res.headers.link).toContain('rel="first"')
    expect(res.headers.link).toContain('rel="prev"')
    expect(res.headers.link).not.toContain('rel="next"')
  })
})
