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
