import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { coveragePeriodBody, DEMO_USER_EMAIL, installmentBody, PLANS, qualifyingLifeEventBody, subscribersBody } from './demo-data.js'
import { DemoFailure, describeValue, line, maskSsns, plural, step, waitFor, type DemoApi } from './demo-client.js'
import { explainSegment, maskBirthYear } from './demo-834.js'

/**
 * The walkthrough `npm run demo` narrates: the whole life cycle through the HTTP API, as a client
 * platform (partner key) and the operations team (operator key) would drive it, with the sandbox
 * EDI carrier answering in the background.
 */
export interface DemoContext {
  api: DemoApi
  partnerKey: string
  operatorKey: string
  /** Where the sandbox EDI carrier's files are written (OUTBOUND_DIR). */
  outboundDirectory: string
}

interface Member { id: string; external_identifier: string; first_name: string; last_name: string; status: string }
interface Subscriber extends Member { dependents: Member[]; residential_address: Record<string, unknown>; [field: string]: unknown }
interface Installment { id: string; status: string; group: { id: string; locations: { id: string }[] }; progress: { name: string; status: string }[] }
interface CoveragePeriod { id: string; state: string; carrier_group_number: string | null; coverage_start_date: string; coverage_end_date: string | null }
interface WorkOrder { id: string; status: string; coverage_period_id: string; history: { status: string; by: string; message: string }[] }
interface FileDelivery { id: string; kind: string; status: string; file_name: string; member_count: number; transaction_count: number; byte_size: number | null; last_error: string | null }
interface CensusRequest {
  id: string; status: string; format: string; submitted_by: string; subscriber_count: number; member_count: number; matched_count: number
  discrepancy_count: number; errors_created: number; errors_reopened: number; errors_resolved: number
}
interface ErrorResource {
  id: string; member_id: string | null; status: string; assignee: string; severity: string; message: string
  discrepancy: { carrier: unknown; platform: unknown; parameter: string; kind: string }
  comments: { message: string; sent_by: string; created_by: { email: string } | null }[]
  resolution: { message: string; resolved_by: string } | null
}

export interface DemoSummary {
  groupId: string
  coveragePeriodId: string
  carrierGroupNumber: string
  deliveries: FileDelivery[]
  census: CensusRequest[]
  errors: ErrorResource[]
}

export async function runWalkthrough(ctx: DemoContext): Promise<DemoSummary> {
  const { api, partnerKey: partner, operatorKey: operator } = ctx
  const names = new Map<string, string>()
  const nameOf = (memberId: string | null) => (memberId ? (names.get(memberId) ?? memberId) : 'the group')

  // ---- 1. Installation, as the client platform ----
  step(1, 'Install a group with the sandbox EDI carrier (client platform, partner key)')
  const user = (await api.post<{ user: { id: string; email: string } }>(partner, '/users', { user: { email: DEMO_USER_EMAIL, role_names: ['benefits_admin'] } })).user
  line(`POST /users -> registered user ${user.email} (${user.id}), who will comment on errors`)
  const installment = (await api.post<{ group_installment: Installment }>(partner, '/group_installments', installmentBody())).group_installment
  const groupId = installment.group.id
  line(`POST /group_installments -> installment ${installment.id} (${installment.status}), group ${groupId} "Acme Widgets Inc."`)
  const cp = (await api.post<{ coverage_period: CoveragePeriod }>(partner, `/groups/${groupId}/coverage_periods`, coveragePeriodBody())).coverage_period
  line(`POST /groups/{id}/coverage_periods -> coverage period ${cp.id}, ${cp.coverage_start_date} to ${cp.coverage_end_date}, state ${cp.state}`)
  const [medical, dental] = await Promise.all(PLANS.map(async (body) => (await api.post<{ plan: { id: string } }>(partner, `/coverage_periods/${cp.id}/plans`, body)).plan))
  line(`POST /coverage_periods/{id}/plans -> ${PLANS[0].plan.description} ${medical!.id}, ${PLANS[1].plan.description} ${dental!.id}`)
  const subscribers = (await api.post<{ subscribers: Subscriber[] }>(partner, `/groups/${groupId}/subscribers`, subscribersBody(installment.group.locations[0]!.id))).subscribers
  for (const s of subscribers) for (const m of [s, ...s.dependents]) names.set(m.id, `${m.first_name} ${m.last_name}`)
  const dependents = subscribers.reduce((n, s) => n + s.dependents.length, 0)
  line(`POST /groups/{id}/subscribers -> ${subscribers.length} families, ${subscribers.length + dependents} members: ${subscribers.map((s) => `${s.first_name} ${s.last_name} (+${s.dependents.length})`).join(', ')}`)
  for (const s of subscribers) {
    await api.post(partner, `/subscribers/${s.id}/qualifying_life_events`, qualifyingLifeEventBody(cp.id, { medical: medical!.id, dental: dental!.id }, s))
  }
  line(`POST /subscribers/{id}/qualifying_life_events x${subscribers.length} -> initial enrollment: medical for every member, dental for the employees`)
  const progress = (await api.get<{ group_installment: Installment }>(partner, `/group_installments/${installment.id}`)).group_installment.progress
  line(`GET /group_installments/{id} -> ${progress.map((p) => `${p.name} ${p.status}`).join(', ')}`)
  const opened = (await api.post<{ work_order: WorkOrder }>(partner, `/coverage_periods/${cp.id}/complete_setup`)).work_order
  const configured = (await api.get<{ coverage_period: CoveragePeriod }>(partner, `/coverage_periods/${cp.id}`)).coverage_period
  line(`POST /coverage_periods/{id}/complete_setup -> work order ${opened.id} ${opened.status}; coverage period ${configured.state}`)

  // ---- 2. The operations team works the order ----
  step(2, 'The operations team works the order (operator key)')
  const queue = (await api.get<{ work_orders: WorkOrder[] }>(operator, '/work_orders?status=open')).work_orders
  const order = queue.find((w) => w.coverage_period_id === cp.id)
  if (!order) throw new DemoFailure('GET /work_orders?status=open does not list the new work order')
  line(`GET /work_orders?status=open -> ${queue.length} open; ours is ${order.id}`)
  for (const [status, message] of [
    ['in_progress', 'Checking plans and enrollments.'],
    ['submitted', 'Sent to the carrier.'],
  ] as const) {
    const moved = (await api.post<{ work_order: WorkOrder }>(operator, `/work_orders/${order.id}/transitions`, { status, message })).work_order
    line(`POST /work_orders/{id}/transitions ${status} -> ${moved.status}`)
  }
  const inTest = (await api.get<{ coverage_period: CoveragePeriod }>(partner, `/coverage_periods/${cp.id}`)).coverage_period
  line(`coverage period ${inTest.state}: the group goes to the carrier as a full 834`)

  // ---- 3. The full 834 and the installation ----
  step(3, 'The full 834 goes out and the sandbox carrier installs the group')
  const deliveries = async () => (await api.get<{ file_deliveries: FileDelivery[] }>(partner, `/coverage_periods/${cp.id}/file_deliveries`)).file_deliveries
  const full = await waitFor('the full 834 to be sent', async () => sentDelivery(await deliveries(), 'full'))
  line(`GET /coverage_periods/{id}/file_deliveries -> ${full.kind} ${full.status}: ${full.file_name}, ${full.member_count} members, ${full.byte_size} bytes`)
  const written = join(ctx.outboundDirectory, 'sandbox_edi', full.file_name)
  if (!existsSync(written)) throw new DemoFailure(`the 834 is not in the outbound directory: ${written}`)
  line(`written to ${written}`)
  const content = await api.text(operator, `/file_deliveries/${full.id}/content`)
  const segments = segmentsOf(content)
  // The header and the first member's whole loop (up to the next INS), then the trailer: every kind of segment once.
  const firstMember = segments.findIndex((s) => s.startsWith('INS'))
  const secondMember = segments.findIndex((s, i) => i > firstMember && s.startsWith('INS'))
  const trailer = segments.length - 3
  const shown = segments.slice(0, secondMember > 0 ? secondMember : trailer)
  line(`GET /file_deliveries/{id}/content (operator) -> ${segments.length} segments, one per line below ("*" separates elements).`)
  line('The header and the first member, each segment with what it says (SSN and birth year masked):')
  for (const segment of shown) printSegment(segment)
  line(`  ... ${plural(trailer - shown.length, 'segment')} more: the other members' loops, each starting with INS ...`)
  for (const segment of segments.slice(trailer)) printSegment(segment)
  const completed = await waitFor('the sandbox carrier to complete the work order', async () => {
    const workOrder = (await api.get<{ work_order: WorkOrder }>(partner, `/coverage_periods/${cp.id}/work_order`)).work_order
    return workOrder.status === 'completed' ? workOrder : undefined
  })
  const last = completed.history[completed.history.length - 1]!
  line(`GET /coverage_periods/{id}/work_order -> ${completed.status} by "${last.by}": ${last.message}`)
  const installed = (await api.get<{ coverage_period: CoveragePeriod }>(partner, `/coverage_periods/${cp.id}`)).coverage_period
  const group = (await api.get<{ group: { phase: string } }>(partner, `/groups/${groupId}`)).group
  const installmentNow = (await api.get<{ group_installment: Installment }>(partner, `/group_installments/${installment.id}`)).group_installment
  line(`coverage period ${installed.state}, carrier_group_number ${installed.carrier_group_number}; group phase ${group.phase}; installment ${installmentNow.status}`)
  if (installed.state !== 'production' || !installed.carrier_group_number || group.phase !== 'member_management') {
    throw new DemoFailure('the group was not installed as expected (coverage period production, group in member_management)')
  }

  // ---- 4. The carrier's census and the errors it raised ----
  step(4, "The carrier answers with a census; its discrepancies become errors")
  const censusList = async () => (await api.get<{ census_requests: CensusRequest[] }>(partner, `/coverage_periods/${cp.id}/census_requests`)).census_requests
  const [firstCensus] = await waitFor('the carrier\'s census', async () => {
    const list = await censusList()
    return list.length >= 1 ? list : undefined
  })
  printCensus(firstCensus!)
  const reconciliationErrors = async () =>
    (await api.get<{ errors: ErrorResource[] }>(partner, `/coverage_periods/${cp.id}/errors?source=reconciliation&per_page=100`)).errors
  const raised = await reconciliationErrors()
  line(`GET /coverage_periods/{id}/errors?source=reconciliation -> ${plural(raised.length, 'error')}:`)
  for (const e of raised) printError(e, nameOf(e.member_id))
  const addressError = raised.find((e) => e.discrepancy.parameter === 'residential_address')
  const birthDateError = raised.find((e) => e.discrepancy.parameter === 'birth_date')
  if (!addressError?.member_id || !birthDateError) throw new DemoFailure('the census did not raise the expected address and birth date errors')

  // ---- 5. A member change delivered as an 834 ----
  step(5, 'A member change: the client corrects the address, it travels as a change 834')
  const current = (await api.get<{ subscriber: Subscriber }>(partner, `/subscribers/${addressError.member_id}`)).subscriber
  const { id: _id, group_id: _group, status: _status, current_qualifying_life_events: _events, dependents: _dependents, created_at: _created, updated_at: _updated, social_security_number: _ssn, ...fields } = current
  const newAddress = { ...current.residential_address, address_line_1: '99 Oak Ave' }
  const updated = (await api.put<{ subscriber: Subscriber }>(partner, `/subscribers/${current.id}`, { subscriber: { ...fields, residential_address: newAddress } })).subscriber
  line(`PUT /subscribers/{id} (${nameOf(current.id)}) -> address ${describeValue('residential_address', newAddress)}; status ${updated.status}`)
  const change = await waitFor('the change 834 to be sent', async () => sentDelivery(await deliveries(), 'change'))
  line(`change ${change.status}: ${change.file_name}, ${plural(change.transaction_count, 'transaction')}, ${plural(change.member_count, 'member')}`)
  const changeContent = await api.text(operator, `/file_deliveries/${change.id}/content`)
  line('its member loops start with these INS segments (maintenance 001 = change):')
  for (const segment of segmentsOf(changeContent).filter((s) => s.startsWith('INS'))) printSegment(segment)
  const [secondCensus] = await waitFor('the carrier\'s next census', async () => {
    const list = await censusList()
    return list.length >= 2 ? list : undefined
  })
  printCensus(secondCensus!)
  const afterChange = await reconciliationErrors()
  const addressNow = afterChange.find((e) => e.id === addressError.id)!
  line(`address error ${addressNow.id} -> ${addressNow.status}${addressNow.resolution ? ` by ${addressNow.resolution.resolved_by}: ${addressNow.resolution.message}` : ''}`)
  const synced = (await api.get<{ subscriber: Subscriber }>(partner, `/subscribers/${current.id}`)).subscriber
  line(`GET /subscribers/{id} -> status ${synced.status}`)
  if (addressNow.status !== 'resolved' || synced.status !== 'synced') throw new DemoFailure('the change did not settle the address error and sync the subscriber')

  // ---- 6. Comment on and resolve the birth date error ----
  step(6, `Work the error queue: comment on the birth date error and resolve it (as ${DEMO_USER_EMAIL})`)
  await api.post(partner, `/errors/${birthDateError.id}/comments`, {
    message: 'HR checked the birth certificate: our date is right. Asking the carrier to correct theirs.',
    created_by: DEMO_USER_EMAIL,
  })
  line(`POST /errors/{id}/comments -> comment added to ${birthDateError.id}`)
  await api.post(partner, `/errors/${birthDateError.id}/resolution`, { message: 'Carrier confirmed it will correct the birth date on its side.', resolved_by: DEMO_USER_EMAIL })
  const resolved = (await api.get<{ error: ErrorResource }>(partner, `/errors/${birthDateError.id}`)).error
  line(`POST /errors/{id}/resolution, then GET /errors/{id} -> ${resolved.status} by ${resolved.resolution?.resolved_by}: ${resolved.resolution?.message}`)
  line(`comments: ${resolved.comments.map((c) => `[${c.sent_by}${c.created_by ? ` ${c.created_by.email}` : ''}] ${c.message}`).join(' | ')}`)
  if (resolved.status !== 'resolved') throw new DemoFailure('the birth date error is not resolved')

  return {
    groupId,
    coveragePeriodId: cp.id,
    carrierGroupNumber: installed.carrier_group_number,
    deliveries: await deliveries(),
    census: await censusList(),
    errors: await reconciliationErrors(),
  }
}

/** The delivery of that kind once sent; a failed one stops the demo with the carrier's reason. */
function sentDelivery(deliveries: FileDelivery[], kind: 'full' | 'change'): FileDelivery | undefined {
  const delivery = deliveries.find((d) => d.kind === kind)
  if (delivery?.status === 'failed') throw new DemoFailure(`the ${kind} delivery failed: ${delivery.last_error}`)
  return delivery?.status === 'sent' ? delivery : undefined
}

/** An X12 file's segments, one per entry, whatever its line breaks. */
const segmentsOf = (x12: string) =>
  x12
    .split('~')
    .map((s) => s.trim())
    .filter(Boolean)

// Segments up to this width get their note beside them; longer ones (ISA) on the next line.
const SEGMENT_COLUMN = 42

/** One segment, masked (SSN, birth year), with its plain-English note. */
function printSegment(segment: string): void {
  const shown = maskBirthYear(maskSsns(segment))
  const note = explainSegment(segment)
  if (shown.length <= SEGMENT_COLUMN) line(`  ${shown.padEnd(SEGMENT_COLUMN)}  ${note}`)
  else {
    line(`  ${shown}`)
    line(`  ${''.padEnd(SEGMENT_COLUMN)}  ${note}`)
  }
}

function printCensus(census: CensusRequest): void {
  line(
    `census ${census.id} from "${census.submitted_by}" (${census.format}, ${census.status}): ${census.subscriber_count} subscribers, ` +
      `${census.member_count} members, ${census.matched_count} matched, ${census.discrepancy_count} discrepancies; ` +
      `errors opened ${census.errors_created}, reopened ${census.errors_reopened}, resolved ${census.errors_resolved}`,
  )
}

function printError(e: ErrorResource, member: string): void {
  const { parameter, kind, carrier, platform } = e.discrepancy
  line(`- ${e.id} ${parameter} ${kind} (${member}): carrier ${describeValue(parameter, carrier)} / platform ${describeValue(parameter, platform)}`)
  line(`  ${e.status}, assigned to ${e.assignee}, ${e.severity}: ${e.message}`)
}
