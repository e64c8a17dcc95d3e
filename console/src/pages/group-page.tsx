import { api, totalOf, unwrap } from '../api/client'
import { GroupsCoveragePeriodDetails } from '../components/groups-coverage-period-details'
import { AccountName, useAccountNames } from '../components/admin-account-picker'
import { dateRange, type CoveragePeriod, type Group } from '../components/groups-common'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { formatDate, formatDateTime, words } from '../lib/format'
import { failureText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'

const MEMBERS_PER_PAGE = 25
const PERIODS_PER_PAGE = 100

/** The coverage period shown by default: the one whose coverage starts last. */
function latestOf(periods: CoveragePeriod[]): CoveragePeriod | undefined {
  return periods.reduce<CoveragePeriod | undefined>((latest, period) => {
    if (!latest) return period
    const byStart = period.coverage_start_date.localeCompare(latest.coverage_start_date)
    return byStart > 0 || (byStart === 0 && period.created_at > latest.created_at) ? period : latest
  }, undefined)
}

/**
 * One employer group: its employer data, locations and producers; its coverage periods with the
 * details of one at a time (the latest unless another is chosen, kept in the URL as ?period=);
 * and its members, a page at a time (?page=). SSNs are shown as the service gives them (masked);
 * birth dates are not shown.
 */
export function GroupPage({ id }: { id: string }) {
  const { session } = useSession()
  const operator = isOperator(session)
  const location = useLocation()
  const page = pageOf(location.query)

  const group = useApi(async (signal) => unwrap(await api.GET('/groups/{id}', { params: { path: { id } }, signal })).group, [id])
  const periods = useApi(async (signal) => {
    const result = await api.GET('/groups/{id}/coverage_periods', { params: { path: { id }, query: { page: 1, per_page: PERIODS_PER_PAGE } }, signal })
    return { items: unwrap(result).coverage_periods, total: totalOf(result.response) }
  }, [id])
  const classes = useApi(
    async (signal) => unwrap(await api.GET('/groups/{id}/employment_classifications', { params: { path: { id }, query: { page: 1, per_page: 100 } }, signal })).employment_classifications,
    [id],
  )
  const members = useApi(async (signal) => {
    const result = await api.GET('/groups/{id}/subscribers', { params: { path: { id }, query: { page, per_page: MEMBERS_PER_PAGE } }, signal })
    return { items: unwrap(result).subscribers, total: totalOf(result.response) }
  }, [id, page])
  useLastPageWhenPastEnd(page, MEMBERS_PER_PAGE, members.state === 'ready' ? { rows: members.data.items.length, total: members.data.total } : undefined)
  const names = useAccountNames(operator)

  if (!group.data) {
    return (
      <section>
        <h1>Group</h1>
        {group.state === 'error' ? <ErrorMessage error={failureText(group.error, 'This group')} onRetry={group.reload} /> : <Loading what="Loading the group" />}
        <p>
          <Link to="/groups">Back to the groups</Link>
        </p>
      </section>
    )
  }

  const g = group.data
  const chosenId = location.query.get('period')
  const periodList = periods.data?.items ?? []
  const shown = periodList.find((period) => period.id === chosenId) ?? latestOf(periodList)
  const choose = (period: CoveragePeriod) => navigate(withQuery(location, { period: period.id, deliveries_page: undefined, census_page: undefined }), { replace: true })
  const className = (classId: string) => classes.data?.find((c) => c.id === classId)?.description ?? null

  return (
    <section>
      <p>
        <Link to="/groups">← Groups</Link>
      </p>
      <h1>{g.employer.organization_name}</h1>
      {group.state === 'error' && <ErrorMessage error={failureText(group.error, 'This group')} onRetry={group.reload} />}

      <div className="columns">
        <section className="panel" aria-labelledby="group-employer">
          <h2 id="group-employer">Employer</h2>
          <EmployerFacts group={g} operator={operator} names={names} />
        </section>
        <section className="panel" aria-labelledby="group-producers">
          <h2 id="group-producers">Producers of record</h2>
          <dl className="facts">
            <dt>Producer agency</dt>
            <dd>{g.producer_agency ? `${g.producer_agency.name}${g.producer_agency.national_producer_number ? ` (NPN ${g.producer_agency.national_producer_number})` : ''}` : 'None'}</dd>
          </dl>
          {g.producers_of_record.length === 0 ? (
            <Empty>No producers of record.</Empty>
          ) : (
            <ul className="groups-producers">
              {g.producers_of_record.map((producer) => (
                <li key={producer.id}>
                  <strong>{[producer.first_name, producer.last_name].filter(Boolean).join(' ')}</strong>
                  {producer.writing_producer && <> · writing producer</>}
                  <br />
                  {producer.agency ? producer.agency.name : 'Independent'} · NPN {producer.national_producer_number}
                  {producer.state_license_number && <> · license {producer.state_license_number}</>}
                  <br />
                  {producer.commission_split}% commission · signed {formatDate(producer.signature_date)}
                  <br />
                  <a href={`mailto:${producer.email}`}>{producer.email}</a>
                  {producer.phone_number && <> · {producer.phone_number}</>}
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>

      <section aria-labelledby="group-locations">
        <h2 id="group-locations">Locations</h2>
        {g.locations.length === 0 ? (
          <Empty>No locations.</Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="table-caption">Locations, primary first</caption>
              <thead>
                <tr>
                  <th scope="col">External id</th>
                  <th scope="col">Type</th>
                  <th scope="col">Address</th>
                  <th scope="col">County (FIPS)</th>
                </tr>
              </thead>
              <tbody>
                {g.locations.map((place) => {
                  const address = place.employer_address
                  return (
                    <tr key={place.id}>
                      <td>
                        {place.external_identifier}
                        {place.primary && (
                          <>
                            {' '}
                            <Badge value="primary" />
                          </>
                        )}
                      </td>
                      <td>{words(place.type)}</td>
                      <td>
                        {[address.address_line_1, address.address_line_2].filter(Boolean).join(', ')}, {address.city}, {address.state} {address.zip}
                      </td>
                      <td>{address.fips_county_code ?? '—'}</td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="group-periods">
        <h2 id="group-periods">Coverage periods</h2>
        {periods.state === 'error' && <ErrorMessage error={failureText(periods.error, 'This group')} onRetry={periods.reload} />}
        {periods.state === 'loading' && !periods.data && <Loading what="Loading the coverage periods" />}
        {periods.data &&
          (periodList.length === 0 ? (
            <Empty>This group has no coverage periods yet.</Empty>
          ) : (
            <>
              {periods.data.total > periodList.length && (
                <p className="pager-summary">
                  The first {periodList.length} of {periods.data.total.toLocaleString()} coverage periods.
                </p>
              )}
              <div className="table-wrap">
                <table>
                  <caption className="table-caption">Coverage periods, oldest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">External id</th>
                      <th scope="col">State</th>
                      <th scope="col">Carrier</th>
                      <th scope="col">Coverage</th>
                      <th scope="col">Carrier group number</th>
                      <th scope="col">Details</th>
                    </tr>
                  </thead>
                  <tbody>
                    {periodList.map((period) => {
                      const selected = period.id === shown?.id
                      return (
                        <tr key={period.id} className={selected ? 'groups-selected' : undefined}>
                          <td>{period.external_identifier}</td>
                          <td>
                            <Badge value={period.state} />
                          </td>
                          <td>{period.carrier_name}</td>
                          <td>{dateRange(period.coverage_start_date, period.coverage_end_date)}</td>
                          <td>{period.carrier_group_number ?? '—'}</td>
                          <td>
                            <button type="button" className="groups-details-button" aria-pressed={selected} onClick={() => choose(period)}>
                              Show details
                              <span className="groups-visually-hidden"> of coverage period {period.external_identifier}</span>
                            </button>
                          </td>
                        </tr>
                      )
                    })}
                  </tbody>
                </table>
              </div>
              {shown && <GroupsCoveragePeriodDetails key={shown.id} period={shown} operator={operator} />}
            </>
          ))}
      </section>

      <section aria-labelledby="group-members">
        <h2 id="group-members">Members</h2>
        {members.state === 'error' && <ErrorMessage error={failureText(members.error, 'This group')} onRetry={members.reload} />}
        {members.state === 'loading' && <Loading what={members.data ? 'Updating the members' : 'Loading the members'} />}
        {classes.state === 'error' && <ErrorMessage error={`The employment classes could not be loaded: ${failureText(classes.error, 'This group')}`} onRetry={classes.reload} />}
        {members.data &&
          (members.data.items.length === 0 ? (
            <Empty>{page > 1 ? 'No members on this page.' : 'This group has no members yet.'}</Empty>
          ) : (
            <>
              <div className="table-wrap">
                <table>
                  <caption className="table-caption">Subscribers, page {page}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">External id</th>
                      <th scope="col">SSN</th>
                      <th scope="col">Status</th>
                      <th scope="col" className="number">
                        Dependents
                      </th>
                      <th scope="col">Class</th>
                    </tr>
                  </thead>
                  <tbody>
                    {members.data.items.map((subscriber) => (
                      <tr key={subscriber.id}>
                        <td>{[subscriber.first_name, subscriber.middle_name, subscriber.last_name].filter(Boolean).join(' ')}</td>
                        <td>{subscriber.external_identifier}</td>
                        {/* As the service answers it: masked (***-**-6789). */}
                        <td className="mono groups-nowrap">{subscriber.social_security_number}</td>
                        <td>
                          <Badge value={subscriber.status} />
                        </td>
                        <td className="number">{subscriber.dependents.length}</td>
                        <td>{subscriber.class ? (className(subscriber.class.employment_classification_id) ?? <ShortId id={subscriber.class.employment_classification_id} />) : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ))}
        {members.data && <Pager page={page} perPage={MEMBERS_PER_PAGE} total={members.data.total} label="subscribers" />}
      </section>
    </section>
  )
}

function EmployerFacts({ group, operator, names }: { group: Group; operator: boolean; names: Map<string, string> }) {
  const census = group.employer.census
  return (
    <dl className="facts">
      <dt>Organization</dt>
      <dd>{group.employer.organization_name}</dd>
      <dt>External id</dt>
      <dd>{group.external_identifier}</dd>
      <dt>Market</dt>
      <dd>{words(group.insurance_market)}</dd>
      <dt>Phase</dt>
      <dd>
        <Badge value={group.phase} />
      </dd>
      <dt>Employer type</dt>
      <dd>{words(group.employer.employer_type)}</dd>
      <dt>Established</dt>
      <dd>{formatDate(group.employer.established_date)}</dd>
      {census && (
        <>
          <dt>Employees</dt>
          <dd>
            {census.employees.toLocaleString()} ({census.eligible_employees.toLocaleString()} eligible
            {census.full_time_equivalent_employees !== null ? `, ${census.full_time_equivalent_employees.toLocaleString()} full-time equivalent` : ''})
          </dd>
        </>
      )}
      <dt>Created</dt>
      <dd>{formatDateTime(group.created_at)}</dd>
      {operator && (
        <>
          <dt>Account</dt>
          <dd>
            <AccountName id={group.account_id} names={names} />
          </dd>
        </>
      )}
    </dl>
  )
}
