import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { generateFamilies, installPopulation, type Population } from './helpers/census-population.js'
import { completeWorkOrder, memberLoops, segmentsOf, type MemberLoop } from './helpers/life-event-scenarios.js'
import { call, type Credential } from './helpers/test-app.js'

/**
 * A full file is read a page of families at a time, with pages read ahead while earlier ones are
 * written (carrier-delivery/file-builder.ts). A group of more families than two pages (200 each)
 * and a last page part-full must still give every member exactly one loop, families whole and in
 * subscriber id order, and header totals that count what the file holds.
 */
const FAMILIES = 450

let bed: CarrierTestBed
let operator: Credential
let population: Population
let loops: MemberLoop[]
let segments: string[]

beforeAll(async () => {
  bed = await startCarrierTestBed()
  operator = await bed.t.newOperator()
  population = await installPopulation(bed.t, await bed.t.newPartner(), generateFamilies(FAMILIES, 834))
  await completeWorkOrder(bed.t, bed.workers, operator, population.workOrderId, 'G-PAGES')
  const listed = await call(bed.t.app, operator, 'GET', `/coverage_periods/${population.coveragePeriodId}/file_deliveries?per_page=100`)
  expect(listed.statusCode).toBe(200)
  const deliveries = listed.json().file_deliveries as { id: string; kind: string; status: string }[]
  expect(deliveries.map((d) => [d.kind, d.status])).toEqual([['full', 'sent']])
  const content = await call(bed.t.app, operator, 'GET', `/file_deliveries/${deliveries[0]!.id}/content`)
  expect(content.statusCode).toBe(200)
  loops = memberLoops(content.body)
  segments = segmentsOf(content.body)
}, 240_000)
afterAll(async () => bed?.close())

describe('a full file of more families than two pages', () => {
  it('when it is built, then every member has exactly one loop', () => {
    const expected = population.ids.flatMap((family) => [family.subscriberId, ...family.dependentIds])
    expect(loops).toHaveLength(expected.length)
    expect(new Set(loops.map((loop) => loop.memberId))).toEqual(new Set(expected))
  })

  it('when it is built, then each family is whole and the families follow their subscribers’ ids', () => {
    const familyOf = new Map(population.ids.flatMap((family) => [family.subscriberId, ...family.dependentIds].map((id) => [id, family.subscriberId] as const)))
    const order: string[] = []
    for (const loop of loops) {
      const subscriberId = familyOf.get(loop.memberId)!
      if (loop.ins.startsWith('INS*Y*')) {
        expect(subscriberId).toBe(loop.memberId)
        order.push(subscriberId)
      } else {
        // A dependent's loop comes after its own subscriber's, before the next family's.
        expect(subscriberId).toBe(order.at(-1))
      }
    }
    expect(order).toHaveLength(FAMILIES)
    expect(order).toEqual([...order].sort())
  })

  it('when it is built, then its header counts the subscribers and dependents it holds', () => {
    const dependents = population.ids.reduce((sum, family) => sum + family.dependentIds.length, 0)
    expect(segments).toContain(`QTY*ET*${FAMILIES}`)
    expect(segments).toContain(`QTY*DT*${dependents}`)
    expect(segments).toContain(`QTY*TO*${FAMILIES + dependents}`)
  })
})
