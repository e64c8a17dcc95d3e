import { describe, expect, it } from 'vitest'
import {
  dateKey,
  genderNormaliser,
  nameKey,
  normaliseAddress,
  normaliseCents,
  normaliseDate,
  normaliseEmails,
  normaliseEmploymentStatus,
  normaliseMaritalStatus,
  normaliseNpi,
  normalisePhones,
  normaliseText,
  normaliseTobacco,
  normaliseWageFrequency,
  relationshipKey,
  stateKey,
  zipKey,
  type Normaliser,
} from './normalise.js'

const keyOf = (normalise: Normaliser, raw: unknown) => {
  const result = normalise(raw)
  return result.kind === 'value' ? result.key : result.kind
}

describe('normalisers', () => {
  it('when free text differs only in case, spaces, accents or punctuation, then the keys are equal', () => {
    expect(keyOf(normaliseText, '  North   Region. ')).toBe('north region')
    expect(keyOf(normaliseText, 'NORTH REGION')).toBe('north region')
    expect(keyOf(normaliseText, 'Zoë')).toBe(keyOf(normaliseText, 'ZOE'))
    expect(keyOf(normaliseText, '   ')).toBe('empty')
    expect(keyOf(normaliseText, { region: 1 })).toBe('invalid')
  })

  it('when names are hyphenated, spaced or apostrophised differently, then the match keys are equal', () => {
    expect(nameKey("O'Brien")).toBe(nameKey('OBRIEN'))
    expect(nameKey('Mary-Jane')).toBe(nameKey('MARY JANE'))
    expect(nameKey(' Jane ')).toBe(nameKey('JANE'))
    expect(nameKey('..')).toBeNull()
  })

  it('when a date comes in any accepted spelling, then it becomes YYYY-MM-DD; a day the calendar lacks is invalid', () => {
    for (const spelling of ['1985-03-14', '19850314', '03/14/1985', '3/14/1985', '1985-03-14T00:00:00Z', '1985-03-14T23:30:00-05:00', '1985-03-14T00:00:00.000+0200']) {
      expect(dateKey(spelling)).toBe('1985-03-14')
    }
    expect(dateKey('2024-02-29')).toBe('2024-02-29')
    expect(dateKey('2000-02-29')).toBe('2000-02-29')
    expect(dateKey('1900-02-29')).toBeNull()
    for (const bad of ['31/02/2020', '02/31/2020', '2023-02-29', '2020-13-01', '14.03.1985', '85-03-14', '00000000', 'soon']) {
      expect(normaliseDate(bad)).toEqual({ kind: 'invalid' })
    }
    expect(normaliseDate(null)).toEqual({ kind: 'empty' })
    expect(normaliseDate(19850314)).toEqual({ kind: 'invalid' })
  })

  it('when thousands of different dates and names were read since, then a spelling read again still gets its own key', () => {
    // The key functions remember their recent answers and start afresh when full: an answer
    // must never come from another spelling, whether remembered, forgotten or read anew.
    const expected = (n: number) => `19${String(50 + (n % 50)).padStart(2, '0')}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`
    const spelling = (n: number) => { const [y, m, d] = expected(n).split('-'); return `${Number(m)}/${Number(d)}/${y}` }
    for (let round = 0; round < 3; round++) {
      for (let n = 0; n < 10_000; n += 7) {
        expect(dateKey(spelling(n))).toBe(expected(n))
        expect(nameKey(`O'Name-${n}`)).toBe(`oname${n}`)
      }
    }
    expect(dateKey('02/31/2020')).toBeNull()
    expect(dateKey('02/31/2020')).toBeNull()
  })

  it('when a ZIP has a +4 part or lost its leading zero as a JSON number, then it compares on five digits', () => {
    expect(zipKey('62701-1234')).toBe('62701')
    expect(zipKey('627011234')).toBe('62701')
    expect(zipKey(' 62701 ')).toBe('62701')
    expect(zipKey(2134)).toBe('02134')
    expect(zipKey(21341234)).toBe('02134')
    for (const bad of ['6270', '62701-12', 'ABCDE', '62701 1234']) expect(zipKey(bad)).toBeNull()
  })

  it('when a state is a known two-letter code in any case, then it is read; a full name is not', () => {
    expect(stateKey(' il ')).toBe('IL')
    expect(stateKey('Illinois')).toBeNull()
    expect(stateKey('XX')).toBeNull()
  })

  it('when addresses differ only in street abbreviations, case, unit spelling or line split, then the keys are equal', () => {
    const platform = { address_line_1: '100 North Main Street', address_line_2: 'Apartment 4', city: 'Springfield', state: 'IL', zip: '62701' }
    const key = keyOf(normaliseAddress, platform)
    for (const carrier of [
      { address_line_1: '100 N. MAIN ST.', address_line_2: '#4', city: 'SPRINGFIELD', state: 'il', zip: '62701-1234' },
      { address_line_1: '100 N Main St Apt 4', city: 'Springfield ', state: 'IL', zip: '627011234' },
      { address_line_1: '100 North Main St, Apt # 4', address_line_2: null, city: 'springfield', state: 'IL', zip: 62701 },
    ]) {
      expect(keyOf(normaliseAddress, carrier)).toBe(key)
    }
    expect(keyOf(normaliseAddress, { ...platform, address_line_1: '100 South Main Street' })).not.toBe(key)
    expect(keyOf(normaliseAddress, { ...platform, city: 'Chicago' })).not.toBe(key)
    expect(keyOf(normaliseAddress, { address_line_1: 'constructor' })).toBe('constructor|||')
    expect(keyOf(normaliseAddress, { ...platform, zip: '6270' })).toBe('invalid')
    expect(keyOf(normaliseAddress, { ...platform, state: 'Illinois' })).toBe('invalid')
    expect(keyOf(normaliseAddress, { address_line_1: ' ', city: null })).toBe('empty')
    expect(keyOf(normaliseAddress, '100 Main Street')).toBe('invalid')
  })

  it('when a gender is spelt as the default mapping or the API, then it is read case-insensitively', () => {
    const gender = genderNormaliser()
    for (const [spelling, expected] of [['F', 'female'], ['female', 'female'], ['m', 'male'], ['U', 'unknown'], ['N', 'non_binary'], ['x', 'non_binary'], ['Non_Binary', 'non_binary']]) {
      expect(keyOf(gender, spelling)).toBe(expected)
    }
    expect(keyOf(gender, 'Z')).toBe('invalid')
  })

  it('when a carrier has its own gender mapping, then its codes are read and the API words still are', () => {
    const gender = genderNormaliser({ '1': 'male', '2': 'female' })
    expect(keyOf(gender, '1')).toBe('male')
    expect(keyOf(gender, '2')).toBe('female')
    expect(keyOf(gender, 'female')).toBe('female')
    expect(keyOf(gender, 'F')).toBe('invalid')
  })

  it('when marital status is an API word in any spelling or an X12 code, then it is read; R is no value, U is unreadable', () => {
    expect(keyOf(normaliseMaritalStatus, 'Registered Domestic Partner')).toBe('registered_domestic_partner')
    for (const [code, word] of [['I', 'single'], ['M', 'married'], ['D', 'divorced'], ['W', 'widowed'], ['B', 'registered_domestic_partner'], ['X', 'separated'], ['S', 'separated']]) {
      expect(keyOf(normaliseMaritalStatus, code)).toBe(word)
    }
    expect(keyOf(normaliseMaritalStatus, 'R')).toBe('empty')
    expect(keyOf(normaliseMaritalStatus, 'U')).toBe('invalid')
    expect(keyOf(normaliseMaritalStatus, 'constructor')).toBe('invalid')
  })

  it('when tobacco use is a boolean or a yes/no letter or word, then it is read', () => {
    for (const yes of [true, 'true', 'Y', 'yes', 'T']) expect(keyOf(normaliseTobacco, yes)).toBe('true')
    for (const no of [false, 'FALSE', 'n', 'No', 'F']) expect(keyOf(normaliseTobacco, no)).toBe('false')
    expect(keyOf(normaliseTobacco, 'U')).toBe('empty')
    expect(keyOf(normaliseTobacco, 'sometimes')).toBe('invalid')
    expect(keyOf(normaliseTobacco, 1)).toBe('invalid')
  })

  it('when a relationship is an API word or an X12 code, then it is read; a subscriber without one is self', () => {
    for (const [spelling, word] of [['01', 'spouse'], ['1', 'spouse'], ['19', 'child'], ['05', 'grandchild'], ['53', 'registered_domestic_partner'], ['15', 'court_ordered_dependent'], ['Court Ordered Dependent', 'court_ordered_dependent'], ['CHILD', 'child']]) {
      expect(relationshipKey(spelling, 'dependent')).toBe(word)
    }
    expect(relationshipKey(19, 'dependent')).toBe('child')
    expect(relationshipKey(null, 'subscriber')).toBe('self')
    expect(relationshipKey('18', 'subscriber')).toBe('self')
    expect(relationshipKey(null, 'dependent')).toBeNull()
    expect(relationshipKey('99', 'dependent')).toBeNull()
  })

  it('when employment status or wage frequency differ in case, spaces, hyphens or underscores, then they are one word of the enum', () => {
    for (const spelling of ['FULL TIME', 'Full-Time', 'full_time', 'fulltime']) expect(keyOf(normaliseEmploymentStatus, spelling)).toBe('full_time')
    expect(keyOf(normaliseEmploymentStatus, 'FT')).toBe('invalid')
    for (const spelling of ['BIWEEKLY', 'Bi-Weekly', ' biweekly ']) expect(keyOf(normaliseWageFrequency, spelling)).toBe('biweekly')
    expect(keyOf(normaliseWageFrequency, 'fortnightly')).toBe('invalid')
  })

  it('when money is integer cents as a number or a digit string, then it is read; decimals and negatives are not', () => {
    expect(keyOf(normaliseCents, 6500000)).toBe('6500000')
    expect(keyOf(normaliseCents, '0006500000')).toBe('6500000')
    expect(keyOf(normaliseCents, 0)).toBe('0')
    for (const bad of ['65000.00', 65000.5, -1, '$65,000', '1e5', true]) expect(keyOf(normaliseCents, bad)).toBe('invalid')
  })

  it('when email or phone lists differ in order, case, duplicates or formatting, then they are one set', () => {
    expect(keyOf(normaliseEmails, ['B@Example.com', 'a@example.com', 'b@example.com'])).toBe('a@example.com,b@example.com')
    expect(keyOf(normaliseEmails, ['not-an-email'])).toBe('invalid')
    expect(keyOf(normaliseEmails, [])).toBe('empty')
    expect(keyOf(normaliseEmails, ['', ' '])).toBe('empty')
    expect(keyOf(normalisePhones, ['(555) 555-0123', '1-555-555-0199', '+1 555 555 0123'])).toBe('5555550123,5555550199')
    expect(keyOf(normalisePhones, ['555-0123'])).toBe('invalid')
    expect(keyOf(normalisePhones, ['25555550123'])).toBe('invalid')
  })

  it('when an NPI has separators, then they are ignored; a wrong check digit is invalid', () => {
    expect(keyOf(normaliseNpi, '123-456-7893')).toBe('1234567893')
    expect(keyOf(normaliseNpi, 1234567893)).toBe('1234567893')
    expect(keyOf(normaliseNpi, '1234567890')).toBe('invalid')
    expect(keyOf(normaliseNpi, 'NPI1234567893')).toBe('invalid')
  })
})
