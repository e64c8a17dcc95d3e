import { describe, expect, it } from 'vitest'
import {
  finishOpenApiDocument,
  nameProblemResponses,
  nameSharedParameters,
  nameSharedSuccessResponses,
  optionalWhenDefaulted,
  pascalCase,
  referToNamedSchemas,
} from './openapi-document.js'

const address = { type: 'object', required: ['city'], properties: { city: { type: 'string' } }, additionalProperties: false }
const copy = <T>(value: T): T => structuredClone(value)

describe('naming shared schemas in the OpenAPI document', () => {
  it('when a route schema contains a copy of a named schema, then the copy becomes a $ref and its neighbours stay', () => {
    const document = {
      components: { schemas: { Address: copy(address) } },
      paths: {
        '/people': {
          post: {
            requestBody: {
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { home: copy(address), work: { anyOf: [copy(address), { type: 'null' }] }, name: { type: 'string' } } },
                },
              },
            },
          },
        },
      },
    }
    const schema = referToNamedSchemas(document).paths['/people'].post.requestBody.content['application/json'].schema
    expect(schema.properties.home).toEqual({ $ref: '#/components/schemas/Address' })
    expect(schema.properties.work).toEqual({ anyOf: [{ $ref: '#/components/schemas/Address' }, { type: 'null' }] })
    expect(schema.properties.name).toEqual({ type: 'string' })
  })

  it('when a copy has its keys in another order, then it is still recognised', () => {
    const reordered = { additionalProperties: false, properties: { city: { type: 'string' } }, required: ['city'], type: 'object' }
    const document = { components: { schemas: { Address: copy(address) } }, paths: { '/a': { get: { responses: { 200: { content: { 'application/json': { schema: reordered } } } } } } } }
    expect(referToNamedSchemas(document).paths['/a'].get.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Address' })
  })

  it('when a component contains another, then the inner one is referenced and the component keeps its own body', () => {
    const person = { type: 'object', properties: { address: copy(address) } }
    const { components } = referToNamedSchemas({ components: { schemas: { Address: copy(address), Person: person } }, paths: {} })
    expect(components.schemas.Address).toEqual(address)
    expect(components.schemas.Person).toEqual({ type: 'object', properties: { address: { $ref: '#/components/schemas/Address' } } })
  })

  it('when an example or a field named example looks like a named schema, then only the field (a schema) is replaced', () => {
    const media = { schema: { type: 'object', properties: { example: copy(address) } }, example: copy(address) }
    const document = { components: { schemas: { Address: copy(address) } }, paths: { '/a': { get: { responses: { 200: { content: { 'application/json': media } } } } } } }
    const out = referToNamedSchemas(document).paths['/a'].get.responses[200].content['application/json']
    expect(out.schema.properties.example).toEqual({ $ref: '#/components/schemas/Address' })
    expect(out.example).toEqual(address)
  })

  it('when two components have the same schema, then generating the document fails naming both', () => {
    expect(() => referToNamedSchemas({ components: { schemas: { Address: copy(address), Place: copy(address) } }, paths: {} })).toThrow(/Address and Place/)
  })
})

describe('shared responses and parameters', () => {
  const problem = (code: string) => ({
    description: 'Not found',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example: { code, status: 404 } } },
  })

  it('when two operations answer the same problem, then both refer to one named response called after its code', () => {
    const document = {
      paths: { '/a': { get: { responses: { 404: problem('group_not_found') } } }, '/b': { get: { responses: { 404: problem('group_not_found') } } } },
    }
    const ref = { $ref: '#/components/responses/GroupNotFound' }
    expect(nameProblemResponses(document)).toEqual({
      paths: { '/a': { get: { responses: { 404: ref } } }, '/b': { get: { responses: { 404: ref } } } },
      components: { responses: { GroupNotFound: problem('group_not_found') } },
    })
  })

  it('when a query parameter has a default, then it is optional in the document while path parameters stay required', () => {
    const document = {
      paths: {
        '/a/{id}': {
          get: {
            parameters: [
              { in: 'query', name: 'page', required: true, schema: { type: 'integer', default: 1 } },
              { in: 'path', name: 'id', required: true, schema: { type: 'string' } },
            ],
            requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['roles', 'email'], properties: { roles: { type: 'array', default: [] }, email: { type: 'string' } } } } } },
          },
        },
      },
    }
    const operation = optionalWhenDefaulted(document).paths['/a/{id}'].get
    expect(operation.parameters[0]).not.toHaveProperty('required')
    expect(operation.parameters[1]?.required).toBe(true)
    expect(operation.requestBody.content['application/json'].schema.required).toEqual(['email'])
  })

  it('when every list describes page alike but one describes it differently, then the odd one keeps its own inline', () => {
    const page = { in: 'query', name: 'page', schema: { type: 'integer' } }
    const odd = { ...page, description: 'Another meaning' }
    const document = { paths: { '/a': { get: { parameters: [copy(page)] } }, '/b': { get: { parameters: [copy(page)] } }, '/c': { get: { parameters: [odd] } } } }
    const out = nameSharedParameters(document)
    expect(out.paths['/a'].get.parameters[0]).toEqual({ $ref: '#/components/parameters/Page' })
    expect(out.paths['/c'].get.parameters[0]).toEqual(odd)
  })

  it('when operations give the same answer, then it becomes a response named after the entity it carries', () => {
    const answer = (description: string) => ({
      description,
      content: { 'application/json': { schema: { type: 'object', properties: { group: { $ref: '#/components/schemas/Group' } } }, example: { group: { id: '1' } } } },
    })
    const document = {
      paths: {
        '/groups': { post: { responses: { 201: answer('The group') } } },
        '/groups/{id}': { get: { responses: { 200: answer('The group') } }, put: { responses: { 200: answer('The group') } } },
        '/groups/{id}/archive': { post: { responses: { 200: answer('The archived group') } } },
      },
    }
    const out = nameSharedSuccessResponses(document)
    expect(out.paths['/groups/{id}'].get.responses[200]).toEqual({ $ref: '#/components/responses/Group' })
    expect(out.paths['/groups'].post.responses[201]).toEqual({ $ref: '#/components/responses/Group' })
    expect(out.paths['/groups/{id}/archive'].post.responses[200]).toEqual(answer('The archived group'))
  })

  it('when the document is finished, then the object it was given is left as it was', () => {
    const document = { components: { schemas: { Address: copy(address) } }, paths: { '/a': { get: { parameters: [{ in: 'query', name: 'page', required: true, schema: { default: 1 } }] } } } }
    const before = copy(document)
    finishOpenApiDocument(document)
    expect(document).toEqual(before)
  })

  it('when names are snake_case, then component names are PascalCase', () => {
    expect(pascalCase('per_page')).toBe('PerPage')
    expect(pascalCase('missing_credentials')).toBe('MissingCredentials')
  })
})
