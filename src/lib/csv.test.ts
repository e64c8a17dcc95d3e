import { describe, expect, it } from 'vitest'
import { csvDays, csvField, csvHeader, csvLine, csvRecords, type CsvColumn } from './csv.js'

describe('csv', () => {
  it('quotes fields with separators and neutralises formulas', () => {
    expect(csvField(null)).toBe('')
    expect(csvField(12)).toBe('12')
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField('=1+1')).toBe("'=1+1")
    expect(csvField('+1')).toBe("'+1")
    expect(csvField('-1')).toBe("'-1")
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvField('\tx')).toBe("'\tx")
    expect(csvField('=A1,"x"')).toBe(`"'=A1,""x"""`)
  })

  it('when rows are written, then the header carries the byte order mark and every record ends in CRLF', () => {
    const columns: CsvColumn<{ name: string; n: number }>[] = [
      ['Name', (r) => r.name],
      ['Count', (r) => r.n],
    ]
    expect(csvHeader(columns)).toBe('\uFEFFName,Count\r\n')
    expect(csvRecords(columns, [{ name: 'Zoë', n: 1 }, { name: 'a,b', n: 2 }])).toBe('Zoë,1\r\n"a,b",2\r\n')
    expect(csvLine([])).toBe('\r\n')
    expect(csvDays(129_600)).toBe('1.5')
  })
})
