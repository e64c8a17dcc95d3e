import { describe, expect, it } from 'vitest'
import { explainSegment, maskBirthYear } from './demo-834.js'

describe('the demo\'s notes on 834 segments', () => {
  it.each([
    ['INS*Y*18*021*28*A***FT', "a member's loop starts: Y subscriber, 18 self, 021 addition, reason 28 initial enrollment, A active, FT full time"],
    ['INS*N*01*001*25*A', "a member's loop starts: N dependent, 01 spouse, 001 change, reason 25 identifying data, A active"],
    ['BGN*00*ref*20261125*1829****RX', "beginning segment: 00 original, reference ref, created 20261125 1829; action RX replace (a full file replacing the carrier's data)"],
    ['HD*021**HLT*Gold PPO 500*FAM', 'health coverage: maintenance 021 addition, line HLT health (medical), coverage level FAM family'],
    ['DTP*348*D8*20270101', 'date 348: benefit (coverage) begin (D8 = CCYYMMDD)'],
    ['REF*0F*emp-0001', "reference 0F: subscriber identifier: the client's external identifier of the employee"],
    ['QTY*ET*3', 'control total ET: 3 employees (subscribers)'],
    ['SE*92*0001', 'transaction set trailer: 92 segments from ST to SE, control number 0001'],
  ])('when the demo prints %s, then its note says what the codes mean', (segment, note) => {
    expect(explainSegment(segment)).toBe(note)
  })

  it('when a birth date is printed, then its year is masked and the note says so', () => {
    expect(maskBirthYear('DMG*D8*19850615*F*M')).toBe('DMG*D8*****0615*F*M')
    expect(explainSegment('DMG*D8*19850615*F*M')).toBe('demographics: birth date (D8; year masked here), gender F female, marital status M married')
    expect(maskBirthYear('DTP*348*D8*20270101')).toBe('DTP*348*D8*20270101')
  })
})
