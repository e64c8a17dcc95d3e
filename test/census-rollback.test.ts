import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CarrierCatalog } from '../src/modules/carriers/carriers.catalog.js'
import type { CensusSubscriberInputT } from '../src/modules/census/census-input.schema.js'
import type { CensusSource } from '../src/modules/census/census-source.js'
import { createCensusService } from '../src/modules/census/index.js'
import { boundedHeapGrowthJobs } from '../src/lib/heap-growth.js'
import { carrierRecord, generateFamilies, installPopulation, type Population } from './helpers/census-population.js'
import { startTestApp, systemActor, testSsnProtection, type TestApp } from './helpers/test-app.js'

/**
 * A census that fails midway leaves nothing behind and answers with its own error. Its batches'
 * writes run while the next batches are compared (census-comparison.ts); when the reading fails,
 * the writes still in flight end before the transaction rolls back (batch-writes.ts), else a
 * batch's later statements could run on their own after the rollback and commit. That race
 * depends on timing to the millisecond and is not forced here: this checks the outcome.
 */

const FAMILIES = 1200 // batches of 250: the failure comes with two batches' writes in flight

let t: TestApp
let population: Population
let records: CensusSubscriberInputT[]
beforeAll(async () => {
  t = await startTestApp()
  const families = generateFamilies(FAMILIES, 31_337)
  population = await installPopulation(t, await t.newPartner(), families)
  // Every member with a carrier id to learn: what a write after the rollback would leave behind.
  records = families.map((family, i) => {
    const record = carrierRecord(family)
    return { ...record, carrier_member_id: `ROLL${i}`, dependents: record.dependents.map((d, j) => ({ ...d, carrier_member_id: `ROLL${i}-${j}` })) }
  })
}, 600_000)
afterAll(async () => t?.close())

/**
 * The census, read twice as a census is; its second reading fails after `batchesRead` batches
 * (never with Infinity). `boundedJobs` gets how many heap-bounded jobs ran at each batch read.
 */
function failingSource(batchesRead: number, boundedJobs: number[] = []): CensusSource {
  let readings = 0
  return {
    format: 'json',
    asOf: undefined,
    async *batches(size: number) {
      const reading = ++readings
      for (let start = 0; start < records.length; start += size) {
        boundedJobs.push(boundedHeapGrowthJobs())
        if (reading === 2 && start >= batchesRead * size) throw new Error('the census could not be read further')
        yield records.slice(start, start + size)
      }
    },
  }
}

describe('a census that fails midway', () => {
  it('when its second reading fails with writes in flight, then it fails with that error and nothing it wrote stays', async () => {
    const census = createCensusService({ db: t.db, ssn: testSsnProtection(), carriers: new CarrierCatalog() })
    await expect(census.submitCensusSource(systemActor('census-rollback'), population.coveragePeriodId, failingSource(3))).rejects.toThrow('could not be read further')
    // A statement sent after the rollback would have run by now.
    await new Promise((resolve) => setTimeout(resolve, 500))

    // This population's members only: a database kept between runs holds an earlier run's, learnt by the next test.
    const learnt = await t.db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('group_id', '=', population.groupId)
      .where('carrier_member_id', 'like', 'ROLL%')
      .executeTakeFirstOrThrow()
    expect(Number(learnt.count)).toBe(0)
    const requests = await t.db.selectFrom('census_requests').select('id').where('coverage_period_id', '=', population.coveragePeriodId).execute()
    expect(requests).toEqual([])
    const settled = await t.db
      .selectFrom('member_transactions')
      .select('id')
      .where('coverage_period_id', '=', population.coveragePeriodId)
      .where('status', 'in', ['synced', 'errors'])
      .execute()
    expect(settled).toEqual([])
  }, 120_000)

  it("when the service bounds a census's heap growth, then the bound holds through both readings and is released after it, failed or not", async () => {
    const bounded = createCensusService({ db: t.db, ssn: testSsnProtection(), carriers: new CarrierCatalog(), heapGrowingPercent: 100 })
    const whileFailing: number[] = []
    await expect(bounded.submitCensusSource(systemActor('census-heap'), population.coveragePeriodId, failingSource(2, whileFailing))).rejects.toThrow('could not be read further')
    expect(boundedHeapGrowthJobs()).toBe(0)

    const whileReconciling: number[] = []
    const done = await bounded.submitCensusSource(systemActor('census-heap'), population.coveragePeriodId, failingSource(Infinity, whileReconciling))
    expect(done.created).toBe(true)
    expect(boundedHeapGrowthJobs()).toBe(0)
    // Both readings of 1,200 families in batches of 250, each batch read under the bound.
    expect(whileReconciling).toEqual(Array(10).fill(1))
    expect(whileFailing.length).toBeGreaterThan(5)
    expect(whileFailing.every((jobs) => jobs === 1)).toBe(true)

    const unbounded: number[] = []
    const census = createCensusService({ db: t.db, ssn: testSsnProtection(), carriers: new CarrierCatalog() })
    await census.submitCensusSource(systemActor('census-heap'), population.coveragePeriodId, failingSource(Infinity, unbounded))
    expect(unbounded.every((jobs) => jobs === 0)).toBe(true)
  }, 120_000)
})
