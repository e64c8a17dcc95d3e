import {
  BENEFIT_STATUS,
  COBRA_QUALIFYING_EVENT,
  COVERAGE_LEVEL,
  EMPLOYMENT_STATUS,
  GENDER,
  MAINTENANCE_REASON,
  MAINTENANCE_TYPE,
  MARITAL_STATUS,
  RELATIONSHIP,
  VOLUME_AMOUNT_QUALIFIER,
  productFromLineCode,
  type CodeTable,
} from './edi-834.codes.js'
import { Edi834ParseError } from './edi-834.errors.js'
import type { Edi834Address, Edi834Coverage, Edi834Member, Edi834Provider } from './edi-834.model.js'
import { fromD8 } from './x12-segments.js'
import { el, type X12Token } from './x12-tokenize.js'

/** Maps a code back to the service's word; a code we have no word for is an error, not a guess. */
export function wordOf<W extends string>(table: CodeTable<W>, value: string, token: X12Token, element: string): W {
  const word = table.toWord.get(value)
  if (word === undefined) throw new Edi834ParseError('unsupported_code', `${element} '${value}' is not a code this service reads`, token.position)
  return word
}

export function dateOf(value: string, token: X12Token, element: string): string {
  const iso = fromD8(value)
  if (iso === null) throw new Edi834ParseError('bad_value', `${element} is not a CCYYMMDD date`, token.position)
  return iso
}

/** Where in loop 2000 the reader is: N3/N4, LX, REF and DTP mean different things in each. */
type Place = 'member' | '2100A' | '2100C' | 'other2100' | '2300' | '2310' | '2700' | 'after2700'

interface AddressDraft {
  token: X12Token
  address: Edi834Address | null
}

interface CoverageDraft {
  hd: X12Token
  coverage: Omit<Edi834Coverage, 'startDate'> & { startDate: string | null }
}

/** A coverage whose DTP*348 was read: what an `Edi834Coverage` needs. */
const hasStartDate = (coverage: CoverageDraft['coverage']): coverage is Edi834Coverage => coverage.startDate !== null

/** Collects one loop 2000 (INS up to the next INS or SE) into an `Edi834Member`. */
export class MemberBuilder {
  private place: Place = 'member'
  /**
   * The member being read, with every field from the start (the ones only `finish` knows hold
   * placeholders until then): `finish` fills it in and hands it over. Completing one object keeps
   * every member the same shape; copying it with `{ ...member, field: value }` instead went
   * through V8's slow path for each of a census's 125,000 members (a third of reading an 834).
   */
  private readonly member: Edi834Member
  private subscriberIdentifier: string | null = null
  private birth: { date: string; gender: string } | null = null
  private sawName = false
  private residential: AddressDraft | null = null
  private mailing: AddressDraft | null = null
  private readonly coverages: CoverageDraft[] = []
  private readonly categories: { name: string; value: string }[] = []

  constructor(private readonly ins: X12Token) {
    const indicator = el(ins, 1)
    if (indicator !== 'Y' && indicator !== 'N') throw new Edi834ParseError('unsupported_code', `INS01 '${indicator}' is not Y or N`, ins.position)
    const handicap = el(ins, 10)
    this.member = {
      subscriber: indicator === 'Y',
      relationship: wordOf(RELATIONSHIP, el(ins, 2), ins, 'INS02'),
      maintenance: wordOf(MAINTENANCE_TYPE, el(ins, 3), ins, 'INS03'),
      // INS04 is situational: without it no reason was given.
      reason: el(ins, 4) === '' ? 'no_reason' : wordOf(MAINTENANCE_REASON, el(ins, 4), ins, 'INS04'),
      benefitStatus: wordOf(BENEFIT_STATUS, el(ins, 5), ins, 'INS05'),
      cobraQualifyingEvent: el(ins, 7) === '' ? null : wordOf(COBRA_QUALIFYING_EVENT, el(ins, 7), ins, 'INS07'),
      employmentStatus: el(ins, 8) === '' ? null : wordOf(EMPLOYMENT_STATUS, el(ins, 8), ins, 'INS08'),
      handicapped: handicap === 'Y' ? true : handicap === 'N' ? false : null,
      groupPolicyNumber: null,
      memberId: '',
      carrierMemberId: null,
      employmentStartDate: null,
      employmentEndDate: null,
      cobraStartDate: null,
      eligibilityStartDate: null,
      eligibilityEndDate: null,
      maintenanceEffectiveDate: null,
      firstName: '',
      middleName: null,
      lastName: '',
      ssn: null,
      phone: null,
      email: null,
      residentialAddress: null,
      mailingAddress: null,
      maritalStatus: null,
      tobaccoUse: null,
      subscriberIdentifier: '',
      birthDate: '',
      gender: '',
      coverages: [],
      reportingCategories: [],
    }
  }

  read(seg: X12Token): void {
    const m = this.member
    const coverage = this.coverages.at(-1)?.coverage
    switch (seg.id) {
      case 'REF': {
        const [qualifier, value] = [el(seg, 1), el(seg, 2)]
        if (this.place === 'member') {
          if (qualifier === '0F') this.subscriberIdentifier = value
          else if (qualifier === '1L') m.groupPolicyNumber = value
          else if (qualifier === '17') m.memberId = value
          else if (qualifier === '23') m.carrierMemberId = value
        } else if (this.place === '2300' && coverage && qualifier === 'CE') {
          coverage.planExternalIdentifier = value
        } else if (this.place === '2700') {
          const category = this.categories.at(-1)
          if (category && category.value === '') category.value = value
        }
        break
      }
      case 'DTP':
        this.readDate(seg)
        break
      case 'NM1':
        this.readName(seg)
        break
      case 'PER':
        if (this.place !== '2100A') break
        for (let n = 3; n <= 7; n += 2) {
          if (el(seg, n) === 'TE' && m.phone === null) m.phone = el(seg, n + 1)
          if (el(seg, n) === 'EM' && m.email === null) m.email = el(seg, n + 1)
        }
        break
      case 'N3':
      case 'N4':
        this.readAddress(seg)
        break
      case 'DMG':
        if (this.place !== '2100A') break
        this.birth = { date: dateOf(el(seg, 2), seg, 'DMG02'), gender: wordOf(GENDER, el(seg, 3), seg, 'DMG03') }
        m.maritalStatus = el(seg, 4) === '' ? null : wordOf(MARITAL_STATUS, el(seg, 4), seg, 'DMG04')
        break
      case 'HLH':
        if (this.place === '2100A') m.tobaccoUse = el(seg, 1) === 'T' ? true : el(seg, 1) === 'N' ? false : null
        break
      case 'HD':
        this.readCoverage(seg)
        break
      case 'AMT':
        if (this.place === '2300' && coverage && el(seg, 1) === VOLUME_AMOUNT_QUALIFIER) {
          const volume = Number(el(seg, 2))
          if (el(seg, 2) === '' || !Number.isFinite(volume)) throw new Edi834ParseError('bad_value', 'AMT02 is not a number', seg.position)
          coverage.volume = volume
        }
        break
      case 'LX':
        if (this.place === '2300' || this.place === '2310') this.place = '2310'
        else if (this.place === '2700') this.categories.push({ name: '', value: '' })
        break
      case 'LS':
        this.place = '2700'
        break
      case 'LE':
        this.place = 'after2700'
        break
      case 'N1':
        if (this.place === '2700' && el(seg, 1) === '75') {
          const category = this.categories.at(-1)
          if (category) category.name = el(seg, 2)
        }
        break
    }
  }

  private readDate(seg: X12Token): void {
    const m = this.member
    const qualifier = el(seg, 1)
    if (this.place === 'member') {
      const value = (): string => dateOf(el(seg, 3), seg, 'DTP03')
      if (qualifier === '336') m.employmentStartDate = value()
      else if (qualifier === '337') m.employmentEndDate = value()
      else if (qualifier === '340') m.cobraStartDate = value()
      else if (qualifier === '356') m.eligibilityStartDate = value()
      else if (qualifier === '357') m.eligibilityEndDate = value()
      else if (qualifier === '303') m.maintenanceEffectiveDate = value()
    } else if (this.place === '2300') {
      const coverage = this.coverages.at(-1)?.coverage
      // RD8 is CCYYMMDD-CCYYMMDD: begin dates take its start, end dates its end.
      const raw = el(seg, 2) === 'RD8' ? (qualifier === '349' ? el(seg, 3).slice(-8) : el(seg, 3).slice(0, 8)) : el(seg, 3)
      if (coverage && qualifier === '348') coverage.startDate = dateOf(raw, seg, 'DTP03')
      if (coverage && qualifier === '349') coverage.endDate = dateOf(raw, seg, 'DTP03')
      if (coverage && qualifier === '303') coverage.maintenanceEffectiveDate = dateOf(raw, seg, 'DTP03')
    }
  }

  private readName(seg: X12Token): void {
    const entity = el(seg, 1)
    if (entity === 'IL' || entity === '74') {
      this.place = '2100A'
      this.sawName = true
      const m = this.member
      m.lastName = el(seg, 3)
      m.firstName = el(seg, 4)
      m.middleName = el(seg, 5) || null
      m.ssn = el(seg, 8) === '34' && el(seg, 9) ? el(seg, 9) : null
    } else if (entity === '31') {
      this.place = '2100C'
    } else if (this.place === '2310' || this.place === '2300') {
      const coverage = this.coverages.at(-1)?.coverage
      this.place = '2310'
      if (!coverage || coverage.primaryCareProvider !== null) return
      const npi = el(seg, 8) === 'XX' ? el(seg, 9) : ''
      const provider: Edi834Provider =
        el(seg, 2) === '2'
          ? { npi, first_name: null, last_name: null, organization_name: el(seg, 3) || null }
          : { npi, first_name: el(seg, 4) || null, last_name: el(seg, 3) || null, organization_name: null }
      coverage.primaryCareProvider = provider
    } else {
      this.place = 'other2100' // 2100B/D-H: another person's or entity's data
    }
  }

  private readAddress(seg: X12Token): void {
    const draft = this.place === '2100A' ? (this.residential ??= { token: seg, address: null }) : this.place === '2100C' ? (this.mailing ??= { token: seg, address: null }) : null
    if (!draft) return
    if (seg.id === 'N3') {
      draft.address = { address_line_1: el(seg, 1), address_line_2: el(seg, 2) || null, city: '', state: '', zip: '', fips_county_code: null }
      return
    }
    if (!draft.address) throw new Edi834ParseError('missing_segment', 'N4 without the N3 before it', seg.position)
    draft.address.city = el(seg, 1)
    draft.address.state = el(seg, 2)
    draft.address.zip = el(seg, 3)
    draft.address.fips_county_code = el(seg, 5) === 'CY' && el(seg, 6) ? el(seg, 6) : null
  }

  private readCoverage(seg: X12Token): void {
    this.place = '2300'
    const product = productFromLineCode(el(seg, 3))
    if (!product) throw new Edi834ParseError('unsupported_code', `HD03 '${el(seg, 3)}' is not a code this service reads`, seg.position)
    if (el(seg, 5) === '') throw new Edi834ParseError('missing_segment', 'HD05 coverage level is missing', seg.position)
    this.coverages.push({
      hd: seg,
      coverage: {
        maintenance: wordOf(MAINTENANCE_TYPE, el(seg, 1), seg, 'HD01'),
        productLine: product.productLine,
        productType: product.productType,
        planDescription: el(seg, 4),
        planExternalIdentifier: '',
        coverageLevel: wordOf(COVERAGE_LEVEL, el(seg, 5), seg, 'HD05'),
        startDate: null,
        endDate: null,
        maintenanceEffectiveDate: null,
        volume: null,
        primaryCareProvider: null,
      },
    })
  }

  finish(): Edi834Member {
    const at = this.ins.position
    if (this.subscriberIdentifier === null) throw new Edi834ParseError('missing_segment', 'member has no REF*0F', at)
    if (!this.sawName) throw new Edi834ParseError('missing_segment', 'member has no NM1*IL', at)
    if (!this.birth) throw new Edi834ParseError('missing_segment', 'member has no DMG', at)
    for (const draft of [this.residential, this.mailing]) {
      if (draft?.address && draft.address.city === '') throw new Edi834ParseError('missing_segment', 'N3 without its N4', draft.token.position)
    }
    const coverages = this.coverages.map(({ hd, coverage }) => {
      if (!hasStartDate(coverage)) throw new Edi834ParseError('missing_segment', 'HD without DTP*348', hd.position)
      return coverage
    })
    // The builder is done with its member: it is completed in place (see `member`).
    const member = this.member
    member.subscriberIdentifier = this.subscriberIdentifier
    member.birthDate = this.birth.date
    member.gender = this.birth.gender
    member.residentialAddress = this.residential?.address ?? null
    member.mailingAddress = this.mailing?.address ?? null
    member.coverages = coverages
    member.reportingCategories = this.categories
    return member
  }
}
