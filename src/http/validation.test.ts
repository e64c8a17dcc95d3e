import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Uuid } from './schemas.js'
import { validatorCompiler } from './validation.js'

const validate = (httpPart: 'params' | 'querystring' | 'body', schema = Type.Object({ id: Uuid, page: Type.Optional(Type.Integer({ minimum: 1 })) })) =>
  validatorCompiler({ schema, httpPart, method: 'GET', url: '/x/:id' }) as (value: unknown) => { value?: Record<string, unknown>; error?: unknown[] }

const ID = '0193A4B2-0000-7000-8000-00000000BEEF'

describe('ids and numbers in the URL', () => {
  it('when a path or query id is upper case, then every module sees it lower case, as the database writes it', () => {
    expect(validate('params')({ id: ID }).value).toEqual({ id: ID.toLowerCase() })
    expect(validate('querystring')({ id: ID, page: '2' }).value).toEqual({ id: ID.toLowerCase(), page: 2 })
    // A body is taken as sent: its ids are the client's text.
    expect(validate('body')({ id: ID }).value).toEqual({ id: ID })
  })

  it('when an integer is not written in digits, then it is refused rather than read as another number', () => {
    for (const page of ['1.5', '0x10', '1e3', ' 1']) expect(validate('querystring')({ id: ID, page }).error, page).toBeDefined()
    expect(validate('querystring')({ id: ID, page: '007' }).value?.page).toBe(7)
  })
})
