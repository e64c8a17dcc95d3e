/**
 * US states, DC and territories with their two-digit FIPS state codes (FIPS PUB 5-2 / ANSI
 * INCITS 38). A county FIPS code is five digits whose first two are its state's code.
 */
export const STATE_FIPS: Readonly<Record<string, string>> = Object.freeze({
  AL: '01', AK: '02', AZ: '04', AR: '05', CA: '06', CO: '08', CT: '09', DE: '10', DC: '11', FL: '12',
  GA: '13', HI: '15', ID: '16', IL: '17', IN: '18', IA: '19', KS: '20', KY: '21', LA: '22', ME: '23',
  MD: '24', MA: '25', MI: '26', MN: '27', MS: '28', MO: '29', MT: '30', NE: '31', NV: '32', NH: '33',
  NJ: '34', NM: '35', NY: '36', NC: '37', ND: '38', OH: '39', OK: '40', OR: '41', PA: '42', RI: '44',
  SC: '45', SD: '46', TN: '47', TX: '48', UT: '49', VT: '50', VA: '51', WA: '53', WV: '54', WI: '55',
  WY: '56', AS: '60', GU: '66', MP: '69', PR: '72', VI: '78', UM: '74',
})

export const STATE_CODES = Object.freeze(Object.keys(STATE_FIPS).sort())

export function isStateCode(value: string): boolean {
  return Object.hasOwn(STATE_FIPS, value)
}

/** True when the county code is five digits and lies in the given state. */
export function countyMatchesState(fipsCountyCode: string, state: string): boolean {
  return /^\d{5}$/.test(fipsCountyCode) && STATE_FIPS[state] === fipsCountyCode.slice(0, 2)
}
