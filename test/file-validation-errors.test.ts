import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { systemActor } from '../src/lib/actor.js'
import { recordAcknowledgementFindings, type AcknowledgedDelivery, type AcknowledgementFindingsInput } from '../src/modules/acknowledgements/file-validation-errors.js'
import { parseAcknowledgement } from '../src/modules/acknowledgements/x12-ack.parse.js'
import { raiseErrors } from '../src/modules/errors/raise-errors.js'
import { installThroughApi, type ApiInstallation } from './helpers/carrier-side.js'
import { startTestApp, testSsnProtection, type Credential, type TestApp } from './helpers/test-app.js'

// The validator's samples (test/fixtures/x12/README.md): 834 files of three families and its 999s.
const FIXTURES = fileURLToPath(new URL('./fixtures/x12/', import.meta.url))
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8')
/** The samples' REF*17 member ids, family by family: subscriber, spouse, child; subscriber, spouse; subscriber, child. */
const SAMPLE_MEMBERS = [
  ['01a213b2-dc94-7139-a76f-bbd8e7690d39', '01a213b2-dc95-7081-b8f1-56dfbacc0881', '01a213b2-dc95-7082-ab5e-cac2ae26361b'],
  ['01a213b2-dc95-7083-9b58-7d56ac454f2a', '01a213b2-dc95-7084-91d6-207a71d816c9'],
  ['01a213b2-dc95-7085-89dc-ced328d5a56e', undefined, '01a213b2-dc95-7086-9536-fe44882d99d4'],
] as const
/** The bad values the validator copied back in IK4-04 (a birth date): never in an error. */
const COPIED_VALUES = ['1985061', '19850615']

const ssn = testSsnProtection()
let t: TestApp
let partner: Credential

beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
}, 60_000)
afterAll(async () => t?.close())

/** The members of an installation in the samples' order: [subscriber, spouse, child] per family. */
const membersOf = (install: ApiInstallation) => install.families.map((f) => [f.subscriberId, ...f.dependentIds])

/** A sample 834 naming this installation's members in its REF*17s (the samples' plan code gold-ppo is this installation's plan too). */
function sampleFor(install: ApiInstallation, name: string): string {
  let text = fixture(name)
  SAMPLE_MEMBERS.forEach((family, f) =>
    family.forEach((id, m) => {
      if (id) text = text.replaceAll(`REF*17*${id}~`, `REF*17*${membersOf(install)[f]![m]}~`)
    }),
  )
  return text
}

/**
 * A sent 834 delivery holding `content`, with one transaction per family listed, as the sender and
 * settler leave it; `heldBack` families' transactions are in `errors`, as the pre-send check leaves
 * the families it held back whole.
 */
async function storeDelivery(
  install: ApiInstallation,
  content: string,
  options: { kind?: 'full' | 'change'; sentAt?: Date; families?: string[]; heldBack?: string[] } = {},
): Promise<AcknowledgedDelivery> {
  const cp = await t.db.selectFrom('coverage_periods').select(['account_id', 'group_id']).where('id', '=', install.coveragePeriodId).executeTakeFirstOrThrow()
  const id = uuidv7()
  const sentAt = options.sentAt ?? new Date()
  const delivery: AcknowledgedDelivery = {
    id,
    account_id: cp.account_id,
    coverage_period_id: install.coveragePeriodId,
    group_id: cp.group_id,
    kind: options.kind ?? 'full',
    file_name: `${options.kind ?? 'full'}-${id}.x12`,
    interchange_control_number: 1,
  }
  await t.db
    .insertInto('file_deliveries')
    .values({ ...delivery, carrier_name: 'sandbox_edi', channel: 'edi', status: 'sent', sent_at: sentAt, acknowledgement_status: 'awaited', created_at: sentAt, updated_at: sentAt })
    .execute()
  // Two chunks cut inside a segment, as the writer's chunks are.
  const bytes = Buffer.from(content, 'utf8')
  const cut = Math.floor(bytes.length / 2)
  for (const [seq, part] of [bytes.subarray(0, cut), bytes.subarray(cut)].entries()) {
    const sealed = ssn.sealBytes(part)
    await t.db.insertInto('file_delivery_chunks').values({ file_delivery_id: id, seq, key_id: sealed.keyId, data: sealed.data }).execute()
  }
  for (const subscriberId of [...(options.families ?? []), ...(options.heldBack ?? [])]) {
    const held = options.heldBack?.includes(subscriberId) ?? false
    await t.db
      .insertInto('member_transactions')
      .values({
        id: uuidv7(),
        account_id: cp.account_id,
        coverage_period_id: install.coveragePeriodId,
        group_id: cp.group_id,
        subscriber_id: subscriberId,
        member_id: subscriberId,
        kind: options.kind === 'change' ? 'subscriber_updated' : 'installation',
        status: held ? 'errors' : 'submitted',
        file_delivery_id: id,
        created_at: sentAt,
        submitted_at: held ? null : sentAt,
        ...(held ? { completed_at: sentAt } : {}),
        updated_at: sentAt,
      })
      .execute()
  }
  return delivery
}

/** What the ingestion hands over once the acknowledgement is stored: its model and the status it states. */
function record(delivery: AcknowledgedDelivery, text: string, now = new Date()) {
  const model = parseAcknowledgement(text)
  const status: AcknowledgementFindingsInput['status'] = model.ta1s.some((ta1) => ta1.status === 'rejected') ? 'rejected' : (model.groups.at(-1)?.status ?? 'accepted')
  return t.db.transaction().execute((tx) => recordAcknowledgementFindings(tx, { ssn }, { delivery, acknowledgementId: uuidv7(), model, status }, now))
}

const errorsOf = (delivery: AcknowledgedDelivery) =>
  t.db.selectFrom('errors').selectAll().where('coverage_period_id', '=', delivery.coverage_period_id).where('dedupe_key', 'like', `%:ack:${delivery.id}:%`).orderBy('dedupe_key').execute()
const transactionsOf = async (delivery: AcknowledgedDelivery, subscriberId?: string) => {
  let query = t.db.selectFrom('member_transactions').select('id').where('file_delivery_id', '=', delivery.id)
  if (subscriberId) query = query.where('subscriber_id', '=', subscriberId)
  return (await query.orderBy('created_at').orderBy('id').execute()).map((row) => row.id)
}

/** A 999 answering set 0001 of group 1 with these IK3/IK4 lines and IK5 verdict. */
function ack999(findings: string[], ik5 = 'R*5', ak9 = 'R*1*1*0'): string {
  const body = ['ST*999*0001*005010X231', 'AK1*BE*1*005010X220A1', 'AK2*834*0001*005010X220A1', ...findings, `IK5*${ik5}`, `AK9*${ak9}`]
  return [
    'ISA*00*          *00*          *ZZ*SANDBOX_EDI    *ZZ*ENROLLSYNC     *261125*1739*^*00501*611251739*0*T*:',
    'GS*FA*SANDBOX_EDI*ENROLLSYNC*20261125*173922*79923069*X*005010X231',
    ...body,
    `SE*${body.length + 1}*0001`,
    'GE*1*79923069',
    'IEA*1*611251739',
  ].map((s) => `${s}~\n`).join('')
}

const ta1 = (status: 'A' | 'R', note: string) =>
  `ISA*00*          *00*          *ZZ*SANDBOX_EDI    *ZZ*ENROLLSYNC     *261125*1739*^*00501*611251740*0*T*:~TA1*000000001*261125*1713*${status}*${note}~IEA*0*611251740~`

describe('file_validation errors from a carrier\'s 999', () => {
  let install: ApiInstallation
  beforeAll(async () => {
    install = await installThroughApi(t, partner, 'sandbox_edi', 3)
  }, 60_000)

  it('when the validator\'s 999 rejects DMG02 and DMG03, then two errors name the first subscriber, birth date and gender, with its family\'s transactions and no value', async () => {
    const [first, second] = install.families
    const delivery = await storeDelivery(install, sampleFor(install, 'full-member-element-errors.834.x12'), { families: [first!.subscriberId, second!.subscriberId] })
    const { raised } = await record(delivery, fixture('full-member-element-errors.999.x12'))
    expect(raised.map((r) => r.outcome)).toEqual(['created', 'created'])
    const errors = await errorsOf(delivery)
    expect(errors.map((e) => [e.discrepancy_parameter, e.member_id, e.plan_id])).toEqual([
      ['birth_date', first!.subscriberId, null],
      ['gender', first!.subscriberId, null],
    ])
    for (const error of errors) {
      expect(error).toMatchObject({ source: 'file_validation', assignee: 'service', severity: 'failure', discrepancy_kind: 'value_invalid', status: 'unresolved', discrepancy_carrier: null, discrepancy_platform: null })
      expect(error.transaction_ids).toEqual(await transactionsOf(delivery, first!.subscriberId))
      for (const value of COPIED_VALUES) expect(JSON.stringify(error)).not.toContain(value)
    }
    expect(errors.map((e) => e.message)).toEqual([
      "The carrier's 999 rejected DMG02 in loop 2100A: a data element has an invalid date (IK4 code 8).",
      "The carrier's 999 rejected DMG03 in loop 2100A: a data element has an invalid code value (IK4 code 7).",
    ])

    // The same 999 received twice raises nothing new.
    const again = await record(delivery, fixture('full-member-element-errors.999.x12'))
    expect(again.raised.map((r) => r.outcome)).toEqual(['unchanged', 'unchanged'])
  })

  it('when the validator\'s 999 reports a required REF missing, then the error is the second subscriber\'s record', async () => {
    const second = install.families[1]!
    const delivery = await storeDelivery(install, sampleFor(install, 'full-required-segment-missing.834.x12'), { families: [second.subscriberId] })
    await record(delivery, fixture('full-required-segment-missing.999.x12'))
    const errors = await errorsOf(delivery)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ member_id: second.subscriberId, plan_id: null, discrepancy_parameter: 'subscriber' })
    expect(errors[0]!.message).toBe("The carrier's 999 rejected REF: a required segment missing (IK3 code 3).")
    expect(errors[0]!.transaction_ids).toEqual(await transactionsOf(delivery, second.subscriberId))
  })

  it('when findings lie in coverage loops, then the plan is linked when the coverage period has it, and a dependent\'s finding names the dependent', async () => {
    const [subscriber, spouse] = membersOf(install)[0]!
    const delivery = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'))
    // 21: DTP*348 of the subscriber's gold-ppo coverage; 24: of dental-base (no such plan here); 30: the spouse's NM1.
    await record(delivery, ack999(['IK3*DTP*21**8', 'IK4*3*1251*8*20270231', 'IK3*DTP*24**8', 'IK4*3*1251*8*20270231', 'IK3*NM1*30**8', 'IK4*3*1035*6*D0e']))
    const errors = await errorsOf(delivery)
    expect(errors.map((e) => [e.discrepancy_parameter, e.member_id, e.plan_id])).toEqual(
      expect.arrayContaining([
        ['plan_start_date', subscriber, install.planId],
        ['plan_start_date', subscriber, null],
        ['dependent', spouse, null],
      ]),
    )
    expect(errors).toHaveLength(3)
    expect(errors.find((e) => e.discrepancy_parameter === 'dependent')!.message).toBe("The carrier's 999 rejected NM103 in loop 2100A: a data element has an invalid character (IK4 code 6).")
    expect(JSON.stringify(errors)).not.toMatch(/20270231|D0e/)
    // No transaction of the family in this delivery: the delivery's own (none here) are listed.
    expect(errors.every((e) => Array.isArray(e.transaction_ids))).toBe(true)
  })

  it('when a finding lies in the header, then the error has no member and lists the delivery\'s transactions', async () => {
    const families = install.families.map((f) => f.subscriberId)
    const delivery = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'), { families })
    await record(delivery, ack999(['IK3*N1*7**8', 'IK4*4*67*1']))
    const [error, ...others] = await errorsOf(delivery)
    expect(others).toEqual([])
    expect(error).toMatchObject({ member_id: null, plan_id: null, discrepancy_parameter: 'coverage' })
    expect(error!.message).toBe("The carrier's 999 rejected N104 in loop 1000A: a required data element is missing (IK4 code 1).")
    expect(error!.transaction_ids).toEqual(await transactionsOf(delivery))
  })

  it('when a set is rejected without a segment named, or a REF*17 names no member of the group, then the errors have no member', async () => {
    const delivery = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12').replace(`REF*17*${install.families[2]!.subscriberId}~`, `REF*17*${uuidv7()}~`))
    await record(delivery, ack999([], 'R*4'))
    const [whole] = await errorsOf(delivery)
    expect(whole).toMatchObject({ member_id: null, discrepancy_parameter: 'coverage' })
    expect(whole!.message).toBe("The carrier's 999 rejected the whole transaction set: the segment count in the trailer does not match the segments sent (IK5 code 4).")

    const other = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12').replace(`REF*17*${install.families[2]!.subscriberId}~`, `REF*17*${uuidv7()}~`))
    // 71: the third family's subscriber's DMG, whose REF*17 is now a stranger's.
    await record(other, ack999(['IK3*DMG*71**8', 'IK4*2*1251*8*x']))
    expect((await errorsOf(other)).map((e) => [e.member_id, e.discrepancy_parameter])).toEqual([[null, 'birth_date']])
  })

  it('when a TA1 rejects the interchange, then one error is raised for the file', async () => {
    const delivery = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'))
    const { raised } = await record(delivery, ta1('R', '022'))
    expect(raised).toHaveLength(1)
    const [error] = await errorsOf(delivery)
    expect(error).toMatchObject({ member_id: null, plan_id: null, discrepancy_parameter: 'coverage', source: 'file_validation', assignee: 'service' })
    expect(error!.message).toBe("The carrier's TA1 rejected the whole interchange: invalid control structure (code 022).")
    // An accepting TA1 raises nothing.
    const accepted = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'))
    expect((await record(accepted, ta1('A', '000'))).raised).toEqual([])
  })
})

describe('a later accepted delivery resolves them', () => {
  let install: ApiInstallation
  let rejected: AcknowledgedDelivery
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000)
  const open = async (delivery: AcknowledgedDelivery) => (await errorsOf(delivery)).filter((e) => e.status !== 'resolved')

  beforeAll(async () => {
    install = await installThroughApi(t, partner, 'sandbox_edi', 3)
    rejected = await storeDelivery(install, sampleFor(install, 'full-member-element-errors.834.x12'), { sentAt: minutesAgo(60) })
    // DMG of the first subscriber (two IK4s), REF missing near the second subscriber, N1 in the header.
    await record(rejected, ack999(['IK3*DMG*19**8', 'IK4*2*1251*8*1985061', 'IK4*3*1068*7*Q', 'IK3*REF*46**3', 'IK3*N1*7**8', 'IK4*4*67*1']))
    expect((await open(rejected)).map((e) => e.member_id)).toEqual(expect.arrayContaining([null, install.families[0]!.subscriberId, install.families[1]!.subscriberId]))
  }, 60_000)

  it('when a change delivery sent earlier is accepted, then nothing is resolved: it says nothing about the newer file', async () => {
    const older = await storeDelivery(install, sampleFor(install, 'change-accepted.834.x12'), { kind: 'change', sentAt: minutesAgo(90), families: [install.families[0]!.subscriberId] })
    const { resolvedErrorIds } = await record(older, fixture('change-accepted.999.x12').replace('AK2*834*0002', 'AK2*834*0001'))
    expect(resolvedErrorIds).toEqual([])
    expect(await open(rejected)).toHaveLength(4)
  })

  it('when a later change delivery for the first family is accepted, then that family\'s errors and the file\'s are resolved, the second family\'s stay open', async () => {
    const [first, second] = install.families
    // Errors of the pre-send check (another subject) about the same member are not the 999's to resolve.
    const preSend = await t.db.transaction().execute((tx) =>
      raiseErrors(tx, systemActor(rejected.account_id), { accountId: rejected.account_id, coveragePeriodId: rejected.coverage_period_id, groupId: rejected.group_id, source: 'file_validation' }, [
        { memberId: first!.subscriberId, planId: null, parameter: 'birth_date', kind: 'value_invalid', assignee: 'partner', subject: `presend:${uuidv7()}`, message: 'held back' },
      ]),
    )
    const later = await storeDelivery(install, sampleFor(install, 'change-accepted.834.x12'), { kind: 'change', sentAt: minutesAgo(30), families: [first!.subscriberId] })
    const { resolvedErrorIds, raised } = await record(later, fixture('change-accepted.999.x12').replace('AK2*834*0002', 'AK2*834*0001'))
    expect(raised).toEqual([])
    expect(resolvedErrorIds).toHaveLength(3)
    const errors = await errorsOf(rejected)
    expect(errors.filter((e) => e.status === 'resolved').map((e) => e.member_id).sort()).toEqual([first!.subscriberId, first!.subscriberId, null].sort())
    expect(errors.filter((e) => e.status !== 'resolved').map((e) => e.member_id)).toEqual([second!.subscriberId])
    const resolved = errors.find((e) => e.status === 'resolved' && e.member_id !== null)!
    expect(resolved).toMatchObject({ resolved_by: 'carrier_acknowledgement' })
    expect(resolved.resolution_message).toContain(`accepted the 834 file ${later.file_name}, which carried this member again`)
    const stillOpen = await t.db.selectFrom('errors').select('status').where('id', '=', preSend[0]!.id).executeTakeFirstOrThrow()
    expect(stillOpen.status).toBe('unresolved')
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', resolved.id).execute()
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['error.created', 'error.resolved']))
  })

  it('when a later full delivery is accepted with errors for the second subscriber again, then that subscriber\'s earlier error stays open and the new one is raised', async () => {
    const second = install.families[1]!
    const full = await storeDelivery(install, sampleFor(install, 'full-required-segment-missing.834.x12'), { sentAt: minutesAgo(20) })
    const { raised, resolvedErrorIds } = await record(full, fixture('full-required-segment-missing.999.x12').replace('IK5*R*5', 'IK5*E').replace('AK9*R*1*1*0', 'AK9*E*1*1*1'))
    expect(raised).toHaveLength(1)
    expect(resolvedErrorIds).toEqual([])
    expect((await open(rejected)).map((e) => e.member_id)).toEqual([second.subscriberId])
    expect((await open(full)).map((e) => e.member_id)).toEqual([second.subscriberId])
  })

  it('when a later full delivery is accepted, then everyone\'s earlier 999 errors are resolved', async () => {
    const earlier = (await t.db.selectFrom('errors').select('id').where('coverage_period_id', '=', install.coveragePeriodId).where('status', '<>', 'resolved').where('dedupe_key', 'like', '%:ack:%').execute()).map((e) => e.id)
    expect(earlier).toHaveLength(2)
    const full = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'), { sentAt: minutesAgo(10) })
    const { resolvedErrorIds } = await record(full, fixture('full-accepted.999.x12'))
    expect(resolvedErrorIds.sort()).toEqual(earlier.sort())
    expect(await open(rejected)).toEqual([])
  })
})

describe('members the pre-send check held back from a delivery', () => {
  let install: ApiInstallation
  let rejected: AcknowledgedDelivery
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000)
  const openErrors = async () =>
    (await t.db.selectFrom('errors').selectAll().where('coverage_period_id', '=', install.coveragePeriodId).where('status', '<>', 'resolved').where('dedupe_key', 'like', '%:ack:%').execute()).map(
      (e) => e.member_id,
    )
  const holdBack = (delivery: AcknowledgedDelivery, memberId: string, subscriberId: string) =>
    t.db.insertInto('held_back_members').values({ file_delivery_id: delivery.id, member_id: memberId, subscriber_id: subscriberId, problems: '[]' }).execute()

  beforeAll(async () => {
    install = await installThroughApi(t, partner, 'sandbox_edi', 3)
    const [first, second] = install.families
    rejected = await storeDelivery(install, sampleFor(install, 'full-member-element-errors.834.x12'), { sentAt: minutesAgo(60) })
    // The first subscriber's DMG, a REF missing near the second subscriber.
    await record(rejected, ack999(['IK3*DMG*19**8', 'IK4*2*1251*8*1985061', 'IK3*REF*46**3']))
    // 30: the first family's spouse's NM1 in this sample.
    const spouseFile = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'), { sentAt: minutesAgo(59) })
    await record(spouseFile, ack999(['IK3*NM1*30**8', 'IK4*3*1035*6*D0e']))
    expect((await openErrors()).sort()).toEqual([first!.subscriberId, second!.subscriberId, first!.dependentIds[0]!].sort())
  }, 60_000)

  it('when a later change delivery held the first family back whole and is accepted, then the first family\'s errors stay open', async () => {
    const [first, second] = install.families
    const change = await storeDelivery(install, sampleFor(install, 'change-accepted.834.x12'), { kind: 'change', sentAt: minutesAgo(30), heldBack: [first!.subscriberId] })
    expect(await record(change, fixture('change-accepted.999.x12').replace('AK2*834*0002', 'AK2*834*0001'))).toMatchObject({ resolvedErrorIds: [] })
    expect((await openErrors()).sort()).toEqual([first!.subscriberId, second!.subscriberId, first!.dependentIds[0]!].sort())
  })

  it('when a later full delivery held back the first subscriber (so its family) and is accepted, then only the others\' errors are resolved', async () => {
    const [first] = install.families
    const full = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'), { sentAt: minutesAgo(10) })
    // The subscriber's row only: its dependents went nowhere either.
    await holdBack(full, first!.subscriberId, first!.subscriberId)
    const { resolvedErrorIds } = await record(full, fixture('full-accepted.999.x12'))
    expect(resolvedErrorIds).toHaveLength(1)
    expect((await openErrors()).sort()).toEqual([first!.subscriberId, first!.dependentIds[0]!].sort())
  })

  it('when a finding is about the whole file, then its error lists the transactions the file carried, not those of families it held back', async () => {
    const [first, second] = install.families
    const delivery = await storeDelivery(install, sampleFor(install, 'full-accepted.834.x12'), { sentAt: minutesAgo(5), families: [second!.subscriberId], heldBack: [first!.subscriberId] })
    await record(delivery, ack999(['IK3*N1*7**8', 'IK4*4*67*1']))
    const [error] = await errorsOf(delivery)
    expect(error!.transaction_ids).toEqual(await transactionsOf(delivery, second!.subscriberId))
  })
})

describe('a 999 rejecting 1,000 member loops', () => {
  it('when 1,000 subscribers\' DMGs are rejected in a generated file, then 1,000 errors are raised, each linked to its subscriber', async () => {
    const install = await installThroughApi(t, partner, 'sandbox_edi', 1)
    const cp = await t.db.selectFrom('coverage_periods').select(['account_id', 'group_id']).where('id', '=', install.coveragePeriodId).executeTakeFirstOrThrow()
    const inserted = await sql<{ id: string }>`
      insert into members (id, account_id, group_id, kind, external_identifier, first_name, last_name, birth_date, gender, created_at, updated_at)
      select gen_random_uuid(), ${cp.account_id}, ${cp.group_id}, 'subscriber', 'bulk-' || n, 'Jane', 'Doe' || n, '1985-06-15', 'female', now(), now()
        from generate_series(1, 1200) n
      returning id`.execute(t.db)
    const ids = inserted.rows.map((row) => row.id)
    const segments = ['ST*834*0001*005010X220A1', 'BGN*00*ref*20261125*1713****RX', 'N1*P5*Acme*FI*987654321', 'N1*IN*Carrier*94*sandbox_edi']
    const dmgAt: number[] = []
    for (const [i, id] of ids.entries()) {
      segments.push('INS*Y*18*030*XN*A***FT', `REF*0F*bulk-${i + 1}`, `REF*17*${id}`, 'DTP*356*D8*20270101', `NM1*IL*1*Doe${i + 1}*Jane`, 'N3*1 Main St', 'N4*Springfield*IL*62704')
      dmgAt.push(segments.push('DMG*D8*19850615*F'))
      segments.push('HD*030**HLT*Gold PPO 500*EMP', 'DTP*348*D8*20270101', 'REF*CE*gold-ppo')
    }
    segments.push(`SE*${segments.length + 1}*0001`)
    const content = [
      'ISA*00*          *00*          *ZZ*ENROLLSYNC     *ZZ*SANDBOX_EDI    *261125*1713*^*00501*000000001*0*T*:',
      'GS*BE*ENROLLSYNC*SANDBOX_EDI*20261125*1713*1*X*005010X220A1',
      ...segments,
      'GE*1*1',
      'IEA*1*000000001',
    ].map((s) => `${s}~\n`).join('')
    const delivery = await storeDelivery(install, content)
    // Every member but each sixth: 1,000 of the 1,200.
    const rejectedIndexes = ids.map((_, i) => i).filter((i) => i % 6 !== 5)
    const findings = rejectedIndexes.flatMap((i) => [`IK3*DMG*${dmgAt[i]}**8`, 'IK4*2*1251*8*19850615'])

    const started = performance.now()
    const { raised } = await record(delivery, ack999(findings))
    const took = performance.now() - started
    expect(raised).toHaveLength(1000)
    console.log(`1,000 file_validation errors from one 999 in ${took.toFixed(0)} ms (not a benchmark)`)

    const errors = await errorsOf(delivery)
    expect(errors).toHaveLength(1000)
    const byMember = new Map(errors.map((e) => [e.member_id, e]))
    for (const i of rejectedIndexes) expect(byMember.get(ids[i]!)?.discrepancy_parameter).toBe('birth_date')
  }, 120_000)
})
