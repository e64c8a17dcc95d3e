import { Type, type Static } from 'typebox'
import type { FieldProblem } from '../../lib/domain-error.js'
import { countyMatchesState, STATE_CODES } from '../../lib/us-geography.js'

/** A US address as the interface document gives it (group.primary_location.employer_address). */
export const AddressSchema = Type.Object(
  {
    address_line_1: Type.String({ minLength: 1, maxLength: 200 }),
    address_line_2: Type.Optional(Type.String({ maxLength: 200 })),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    state: Type.Enum([...STATE_CODES], { description: 'Two-letter code of a US state, DC or territory' }),
    zip: Type.String({ pattern: '^[0-9]{5}$', description: '5 digits' }),
    fips_county_code: Type.Optional(
      Type.String({ pattern: '^[0-9]{5}$', description: '5 digits; the first two are the state FIPS code' }),
    ),
  },
  { additionalProperties: false },
)
export type Address = Static<typeof AddressSchema>

/** Rules the schema cannot express: the county must lie in the state. */
export function addressProblems(address: Address, pointer: string): FieldProblem[] {
  if (address.fips_county_code && !countyMatchesState(address.fips_county_code, address.state)) {
    return [
      {
        pointer: `${pointer}/fips_county_code`,
        detail: `is not a county of ${address.state} (its first two digits must be the state FIPS code)`,
        code: 'county_not_in_state',
      },
    ]
  }
  return []
}
