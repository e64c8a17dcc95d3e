/** Federal Employer Identification Number: exactly nine digits, no separator. */
export function isFein(value: string): boolean {
  return /^\d{9}$/.test(value)
}

export function isZip(value: string): boolean {
  return /^\d{5}$/.test(value)
}

/**
 * A Social Security number the SSA could have issued: nine digits, area not 000, 666 or
 * 900-999, group not 00, serial not 0000. Answers why not, never echoing the number.
 */
export function ssnProblem(value: string): string | undefined {
  if (!/^\d{9}$/.test(value)) return 'must be 9 digits with no separator'
  const area = value.slice(0, 3)
  if (area === '000' || area === '666' || area[0] === '9') return 'has an area number (first three digits) that is never issued'
  if (value.slice(3, 5) === '00') return 'has a group number (digits 4-5) of 00, which is never issued'
  if (value.slice(5) === '0000') return 'has a serial number (last four digits) of 0000, which is never issued'
  return undefined
}

/**
 * National Provider Identifier: ten digits whose last is a Luhn check digit computed over the
 * first nine prefixed with 80840 (the NPI's ISO 7812 issuer prefix), as CMS specifies.
 */
export function isNpi(value: string): boolean {
  if (!/^\d{10}$/.test(value)) return false
  const digits = `80840${value.slice(0, 9)}`
  let sum = 0
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let digit = Number(digits[i])
    if (double) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return (10 - (sum % 10)) % 10 === Number(value[9])
}
