import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, Uuid } from '../../http/schemas.js'
import { COVERAGE_STATUSES, ELECTION_KEYS } from '../life-events/life-events.schema.js'

export const COVERAGE_LEVELS = ['employee_only', 'employee_and_spouse', 'employee_and_children', 'family', 'employee_and_one_dependent', 'individual'] as const

export const MemberCoverageSchema = Type.Object(
  {
    id: Uuid,
    member_id: Uuid,
    line: Type.Enum([...ELECTION_KEYS], { description: 'The line of coverage: the plan_elections key the coverage was elected under' }),
    plan_id: Uuid,
    coverage_period_id: Uuid,
    start_date: IsoDate,
    end_date: Nullable(Type.String({ format: 'date', description: 'Last day covered; null while no end is known' })),
    status: Type.Enum([...COVERAGE_STATUSES]),
    volume: Nullable(Type.Integer({ description: 'Amount of coverage (life, AD&D, disability), integer cents' })),
    coverage_level: Type.Enum([...COVERAGE_LEVELS], {
      description: "Who of the family holds the plan during this coverage (the 834's HD05): it counts only members covered on these dates",
    }),
    qualifying_life_event_id: Type.String({ format: 'uuid', description: 'The qualifying life event whose election set this coverage' }),
  },
  { additionalProperties: false },
)
export type MemberCoverage = Static<typeof MemberCoverageSchema>

export const MemberCoveragesQuery = Type.Object(
  {
    as_of: Type.Optional(
      Type.String({
        pattern: '^((?!0000)[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])|all)$',
        description: 'The date to read the coverage in force on, YYYY-MM-DD (default: today, UTC), or `all` for the whole history',
      }),
    ),
  },
  { additionalProperties: false },
)

const example = {
  id: '0193a4b2-0000-7000-8000-000000000050',
  member_id: '0193a4b2-0000-7000-8000-000000000030',
  line: 'medical',
  plan_id: '0193a4b2-0000-7000-8000-000000000020',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000010',
  start_date: '2027-01-01',
  end_date: null,
  status: 'employer_sponsored',
  volume: null,
  coverage_level: 'employee_and_spouse',
  qualifying_life_event_id: '0193a4b2-0000-7000-8000-000000000040',
}

export const MemberCoverageList = Type.Object(
  {
    as_of: Nullable(Type.String({ format: 'date', description: 'The date read, or null for the whole history' })),
    coverages: Type.Array(MemberCoverageSchema),
  },
  {
    description: 'The coverage in force on the date (at most one per line), or every coverage the member has had, by line and start date',
    examples: [{ as_of: '2027-03-01', coverages: [example] }],
  },
)
