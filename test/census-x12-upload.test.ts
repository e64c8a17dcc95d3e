import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CensusRequest } from '../src/modules/census/census.schema.js'
import type { ErrorResource } from '../src/modules/errors/errors.schema.js'
import { auditFile, installForCensus, type CensusGroup } from './helpers/census-fixtures.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * A census sent as the 834 itself (Content-Type application/edi-x12 or text/plain, as_of in the
 * query) streams like a JSON census (census-834-body.ts) and reconciles exactly as the same file
 * sent as text in `x12_834`.
 */

let t: TestApp
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

async function group(): Promise<CensusGroup> {
  return installForCensus(t, await t.newPartner())
}

function postFile(g: CensusGroup, text: string, query = '', contentType = 'application/edi-x12') {
  return call(t.app, operator, 'POST', `/coverage_periods/${g.coveragePeriodId}/census_requests${query}`, text, { 'content-type': contentType })
}

async function errorsOf(g: CensusGroup): Promise<ErrorResource[]> {
  const res = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/errors?source=reconciliation&per_page=100`)
  return res.json().errors as ErrorResource[]
}

const changedFile = () =>
  auditFile(3, (members) => {
    members.find((m) => m.firstName === 'JOHN' && m.lastName === 'DOE2')!.birthDate = '1984-02-03'
  })

describe('an 834 posted as the body', () => {
  it('when the file is the body, then it reconciles as the same file sent in x12_834 does, and as_of comes from the query', async () => {
    const [streamed, inJson] = [await group(), await group()]
    const file = await changedFile()
    const res = await postFile(streamed, file, '?as_of=2027-01-20')
    expect(res.statusCode, res.body).toBe(201)
    const census = res.json().census_request as CensusRequest
    expect(census).toMatchObject({ format: 'x12_834', as_of: '2027-01-20', subscriber_count: 3, member_count: 9, matched_count: 9, discrepancy_count: 1, errors_created: 1 })

    const viaJson = await call(t.app, operator, 'POST', `/coverage_periods/${inJson.coveragePeriodId}/census_requests`, { census_request: { x12_834: file } })
    expect(viaJson.statusCode, viaJson.body).toBe(201)
    const shape = (errors: ErrorResource[], g: CensusGroup) =>
      errors.map((e) => ({ member: g.families.findIndex((f) => [f.subscriberId, f.spouseId, f.childId].includes(e.member_id!)), discrepancy: e.discrepancy }))
    expect(shape(await errorsOf(streamed), streamed)).toEqual(shape(await errorsOf(inJson), inJson))
    expect(await errorsOf(streamed)).toHaveLength(1)

    // The same file again, streamed or as text, is the latest census: 200, nothing changes.
    for (const again of [await postFile(streamed, file, '', 'text/plain; charset=utf-8'), await call(t.app, operator, 'POST', `/coverage_periods/${streamed.coveragePeriodId}/census_requests`, { census_request: { x12_834: file } })]) {
      expect(again.statusCode, again.body).toBe(200)
      expect(again.json().census_request.id).toBe(census.id)
    }
  })

  it('when the file cannot be read, is cut short or holds a NUL, then 422 and nothing is recorded', async () => {
    const g = await group()
    const file = await auditFile()
    const cutShort = file.slice(0, file.indexOf('INS*Y', file.indexOf('INS*Y') + 1))
    for (const broken of [cutShort, file.replace('*834*', '*835*'), file.replace('DMG*D8*19850615', 'DMG*D8*19851315'), `ISA*${'x'.repeat(200)}~`, '']) {
      const res = await postFile(g, broken)
      expectProblem(res, 422, 'census_invalid')
      expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '' })])
    }
    expectProblem(await postFile(g, file.replace('JANEA', 'JA\u0000NEA')), 422, 'invalid_character')
    expectProblem(await postFile(g, file, '?as_of=2027-13-40'), 422, 'validation_failed')
    const list = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/census_requests`)
    expect(list.json().census_requests).toEqual([])
  })
})

describe('an 834 sent in x12_834 of a JSON census', () => {
  const postJson = (g: CensusGroup, text: string) => postFile(g, text, '', 'application/json')
  /** The JSON body with the file's separators written as \u escapes (`~` as \u007e, `*` as \u002A). */
  const escapedBody = (file: string, extra = '') => `{"census_request":{"as_of":"2027-01-20","x12_834":${JSON.stringify(file).replace(/~/g, '\\u007e').replace(/\*/g, '\\u002A')}${extra}}}`

  it('when its text is escaped in any way JSON allows, then it is decoded as it streams and reconciles as the same file posted as the body', async () => {
    const [inJson, asBody] = [await group(), await group()]
    const file = await changedFile()
    const res = await postJson(inJson, escapedBody(file))
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().census_request).toMatchObject({ format: 'x12_834', as_of: '2027-01-20', subscriber_count: 3, member_count: 9, matched_count: 9, discrepancy_count: 1, errors_created: 1 })
    const direct = await postFile(asBody, file, '?as_of=2027-01-20')
    expect(direct.statusCode, direct.body).toBe(201)
    const shape = (errors: ErrorResource[], g: CensusGroup) =>
      errors.map((e) => ({ member: g.families.findIndex((f) => [f.subscriberId, f.spouseId, f.childId].includes(e.member_id!)), discrepancy: e.discrepancy }))
    expect(shape(await errorsOf(inJson), inJson)).toEqual(shape(await errorsOf(asBody), asBody))
    // The decoded text is the file itself: posted as the body now, it is the same census again.
    const again = await postFile(inJson, file, '?as_of=2027-01-20')
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().census_request.id).toBe(res.json().census_request.id)
  })

  it('when its text escapes a NUL or a lone surrogate, is not valid JSON, or comes with subscribers, then the census is refused as before and nothing is recorded', async () => {
    const g = await group()
    const file = await auditFile()
    for (const hidden of ['\\u0000', '\\ud800']) {
      // Escaped in the JSON text itself (JSON.stringify would escape the backslash).
      const res = await postJson(g, escapedBody(file).replace('JANEA', `JA${hidden}NEA`))
      expectProblem(res, 422, 'invalid_character')
      expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/census_request/x12_834' })])
    }
    for (const broken of [escapedBody(file).replace('JANEA', 'JA\\xNEA'), escapedBody(file).replace('JANEA', 'JA\tNEA'), escapedBody(file).replace(/"\}\}$/, '\\u00"}}')]) {
      expectProblem(await postJson(g, broken), 400, 'malformed_json')
    }
    const both = await postJson(g, escapedBody(file, ',"subscribers":[]'))
    expectProblem(both, 422, 'census_invalid')
    const cutShort = await postJson(g, escapedBody(file.slice(0, file.lastIndexOf('SE*'))))
    expectProblem(cutShort, 422, 'census_invalid')
    expect(cutShort.json().errors).toEqual([expect.objectContaining({ pointer: '/census_request/x12_834' })])
    const list = await call(t.app, operator, 'GET', `/coverage_periods/${g.coveragePeriodId}/census_requests`)
    expect(list.json().census_requests).toEqual([])
  })
})
