import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

const Name = Type.String({ minLength: 1, maxLength: 200 })

export const ProviderSelectionInputSchema = Type.Object(
  {
    plan_id: Type.String({ format: 'uuid', description: 'A health_maintenance_organization medical plan the member is covered by (elected into)' }),
    npi: Type.String({ pattern: '^[0-9]{10}$', description: 'National Provider Identifier: 10 digits, the last a valid check digit', examples: ['1234567893'] }),
    first_name: Type.Optional(Name),
    last_name: Type.Optional(Name),
    organization_name: Type.Optional(Name),
    effective_date: IsoDate,
    existing_patient: Type.Optional(Type.Boolean({ description: 'The member is already a patient of this provider' })),
  },
  { additionalProperties: false },
)
export type ProviderSelectionInput = Static<typeof ProviderSelectionInputSchema>

const inputExample = {
  plan_id: '0193a4b2-0000-7000-8000-000000000020',
  npi: '1234567893',
  first_name: 'Alex',
  last_name: 'Rivera',
  effective_date: '2027-01-01',
  existing_patient: true,
}

export const CreateProviderSelectionBody = Type.Object(
  { provider_selection: ProviderSelectionInputSchema },
  { additionalProperties: false, examples: [{ provider_selection: inputExample }] },
)

export const ProviderSelectionSchema = Type.Object(
  {
    id: Uuid,
    member_id: Uuid,
    plan_id: Uuid,
    npi: Type.String(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    organization_name: Nullable(Type.String()),
    effective_date: IsoDate,
    existing_patient: Nullable(Type.Boolean()),
    created_at: Timestamp,
  },
  { additionalProperties: false },
)
export type ProviderSelection = Static<typeof ProviderSelectionSchema>

const example = {
  id: '0193a4b2-0000-7000-8000-000000000050',
  member_id: '0193a4b2-0000-7000-8000-000000000030',
  ...inputExample,
  organization_name: null,
  created_at: '2026-11-22T09:30:00.000Z',
}

export const ProviderSelectionResponse = Type.Object(
  { provider_selection: ProviderSelectionSchema },
  { description: 'The primary care provider selection', examples: [{ provider_selection: example }] },
)
export const ProviderSelectionList = Type.Object(
  { provider_selections: Type.Array(ProviderSelectionSchema) },
  { description: "One page of the member's provider selections, oldest first; see the Total and Link headers", examples: [{ provider_selections: [example] }] },
)
export const ProviderSelectionsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
