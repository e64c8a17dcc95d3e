import { describe, expect, it } from 'vitest'
import { todayUtc } from '../../lib/clock.js'
import { producerProblems } from './groups.rules.js'
import type { ProducerInputT } from './groups.schema.js'

const producer = (commission_split: number, writing_producer = false): ProducerInputT => ({
  last_name: 'Broker',
  national_producer_number: '1234567',
  email: 'pat@example.com',
  signature_date: '2026-01-01',
  commission_split,
  writing_producer,
  agency: null,
})
const codes = (producers: ProducerInputT[]) => producerProblems(producers, '/p', '2026-11-22').map((p) => `${p.pointer} ${p.code}`)

describe('producer rules', () => {
  it('when no producer is given, then nothing is wrong', () => {
    expect(codes([])).toEqual([])
  })

  it('when one producer has 100, then it is valid; any other split is not', () => {
    expect(codes([producer(100)])).toEqual([])
    expect(codes([producer(99.99)])).toEqual(['/p/0/commission_split commission_split_not_100'])
  })

  it('when splits with two decimals sum to exactly 100, then floating point does not get in the way', () => {
    expect(codes([producer(33.33), producer(33.33), producer(33.34)])).toEqual([])
    expect(codes([producer(0.1), producer(0.2), producer(99.7)])).toEqual([])
  })

  it('when several splits do not sum to 100, then one problem on the array gives the sum', () => {
    const [problem] = producerProblems([producer(60), producer(30)], '/p', '2026-11-22')
    expect(problem).toMatchObject({ pointer: '/p', code: 'commission_split_sum' })
    expect(problem!.detail).toContain('sum to 90')
  })

  it('when three producers write, then the third is pointed at', () => {
    expect(codes([producer(40, true), producer(30, true), producer(30, true)])).toEqual(['/p/2/writing_producer too_many_writing_producers'])
  })

  it('when a signature date is after today, then it is refused', () => {
    expect(codes([{ ...producer(100), signature_date: '2026-11-23' }])).toEqual(['/p/0/signature_date date_in_future'])
  })

  it('when today is asked for, then it is the UTC date', () => {
    expect(todayUtc(new Date('2026-11-22T23:59:59.000Z'))).toBe('2026-11-22')
  })
})
