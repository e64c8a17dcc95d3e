import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Actor } from '../src/lib/actor.js'
import { discrepancyMessage } from '../src/modules/errors/discrepancy-messages.js'
import {
  autoResolveErrors,
  dedupeKeyOf,
  raiseErrors,
  type CheckContext,
  type FoundDiscrepancy,
} from '../src/modules/errors/raise-errors.js'
import { completedPcpSetup, deliveriesOf, insertWatcher, raiseByHand } from './helpers/error-fixtures.js'
import { insertMember, insertReadySetup, type ReadySetup } from './helpers/setup-factories.js'
import { call, startTestApp, systemActor, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const reconciliation = (setup: ReadySetup): CheckContext => ({
  accountId: setup.group.account_id,
  coveragePeriodId: setup.coveragePeriod.id,
  groupId: setup.group.id,
  source: 'reconciliation',
})
const raise = (actor: Actor, context: CheckContext, found: FoundDiscrepancy[]) => t.db.transaction().execute((tx) => raiseErrors(tx, actor, context, found))
const errorRow = (id: string) => t.db.selectFrom('errors').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const RESOLVE = { message: 'No longer found in the census.', resolvedBy: 'reconciliation' }

describe('raiseErrors', () => {
  it('when a check finds a discrepancy, then it creates one error with the catalogue defaults and its dedupe key', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const actor = systemActor(partner.accountId)
    const found: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: null, parameter: 'birth_date', kind: 'carrier_value_differs', carrier: '1985-03-15', platform: '1985-03-14' }

    const [raised] = await raise(actor, reconciliation(setup), [found])
    expect(raised).toEqual({ id: expect.any(String), dedupeKey: `reconciliation:birth_date:${setup.subscriber.id}:-`, outcome: 'created' })
    expect(raised!.dedupeKey).toBe(dedupeKeyOf('reconciliation', found))
    const catalogue = discrepancyMessage('birth_date', 'carrier_value_differs')
    expect(await errorRow(raised!.id)).toMatchObject({
      account_id: partner.accountId,
      status: 'unresolved',
      source: 'reconciliation',
      message: catalogue.message,
      severity: catalogue.severity,
      assignee: catalogue.assignee,
      discrepancy_carrier: '1985-03-15',
      discrepancy_platform: '1985-03-14',
      discrepancy_kind: 'carrier_value_differs',
      created_by_user_id: null,
    })
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', raised!.id).execute()
    expect(audit).toEqual([{ action: 'error.created' }])
  })

  it('when the same discrepancy is found again, then nothing changes; with new values the open error is updated in place, keeping its workflow state', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const actor = systemActor(partner.accountId)
    const found: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: setup.plan.id, parameter: 'plan_volume', kind: 'carrier_value_differs', carrier: 1000, platform: 2000 }
    const [first] = await raise(actor, reconciliation(setup), [found])
    const created = await errorRow(first!.id)

    const [same] = await raise(actor, reconciliation(setup), [found])
    expect(same).toEqual({ ...first, outcome: 'unchanged' })
    expect(await errorRow(first!.id)).toEqual(created)

    // The partner hands it to the service; a later check must not take it back.
    expect((await call(t.app, partner, 'POST', `/errors/${first!.id}/return`, { message: 'Our value is right.' })).statusCode).toBe(200)
    const [changed] = await raise(actor, reconciliation(setup), [{ ...found, carrier: null, kind: 'carrier_missing' }])
    expect(changed).toEqual({ ...first, outcome: 'updated' })
    const updated = await errorRow(first!.id)
    expect(updated).toMatchObject({
      status: 'returned',
      assignee: 'service',
      discrepancy_carrier: null,
      discrepancy_platform: 2000,
      discrepancy_kind: 'carrier_missing',
      message: discrepancyMessage('plan_volume', 'carrier_missing').message,
    })
    expect(updated.updated_at.getTime()).toBeGreaterThanOrEqual(created.updated_at.getTime())
    expect(await t.db.selectFrom('errors').select('id').where('coverage_period_id', '=', setup.coveragePeriod.id).execute()).toHaveLength(1)
  })

  it('when a resolved discrepancy shows again, then the error is reopened with its resolution cleared and error.created (reopened) is emitted', async () => {
    const partner = await t.newPartner()
    const watcherId = await insertWatcher(t.db, partner.accountId, ['error.created', 'error.resolved'])
    const setup = await insertReadySetup(t.db, partner.accountId)
    const actor = systemActor(partner.accountId)
    const found: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: null, parameter: 'gender', kind: 'carrier_value_differs', carrier: 'male', platform: 'female', assignee: 'partner' }
    const [first] = await raise(actor, reconciliation(setup), [found])
    expect((await call(t.app, partner, 'POST', `/errors/${first!.id}/return`, { message: 'Check the carrier.' })).statusCode).toBe(200)
    expect((await call(t.app, partner, 'POST', `/errors/${first!.id}/resolution`, { message: 'Corrected.' })).statusCode).toBe(200)

    const [again] = await raise(actor, reconciliation(setup), [found])
    expect(again).toEqual({ ...first, outcome: 'reopened' })
    const reopened = await errorRow(first!.id)
    expect(reopened).toMatchObject({
      status: 'unresolved',
      assignee: 'partner',
      resolution_message: null,
      resolved_at: null,
      resolved_by: null,
      resolved_by_user_id: null,
    })
    expect(reopened.reopened_at).toBeInstanceOf(Date)
    const answered = (await call(t.app, partner, 'GET', `/errors/${first!.id}`)).json().error
    expect(answered).toMatchObject({ status: 'unresolved', resolution: null, resolution_message: null, reopened_at: reopened.reopened_at!.toISOString() })

    const deliveries = await deliveriesOf(t.db, watcherId)
    expect(deliveries.map((d) => [d.type, d.data.reopened ?? null])).toEqual([
      ['error.created', false],
      ['error.resolved', null],
      ['error.created', true],
    ])
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', first!.id).orderBy('id').execute()
    // The return's comment is audited under the comment's id.
    expect(audit.map((a) => a.action)).toEqual(['error.created', 'error.returned', 'error.resolved', 'error.reopened'])
  })

  it('when one check lists a discrepancy twice, then one error is raised (the last values win)', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const base: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: null, parameter: 'tobacco_use', kind: 'carrier_value_differs', carrier: true, platform: false }
    const raised = await raise(systemActor(partner.accountId), reconciliation(setup), [base, { ...base, carrier: 'unknown' }])
    expect(raised).toHaveLength(1)
    expect((await errorRow(raised[0]!.id)).discrepancy_carrier).toBe('unknown')
  })

  it('when a check raises an SSN discrepancy, then only the masked last four are stored', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const [raised] = await raise(systemActor(partner.accountId), reconciliation(setup), [
      { memberId: setup.subscriber.id, planId: null, parameter: 'social_security_number', kind: 'carrier_value_differs', carrier: '123456789', platform: '123-45-6780' },
    ])
    expect(await errorRow(raised!.id)).toMatchObject({ discrepancy_carrier: '***-**-6789', discrepancy_platform: '***-**-6780' })
  })
})

describe('autoResolveErrors', () => {
  it('when a check no longer finds what it raised, then those errors are resolved by reconciliation and everything else stays open', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const watcherId = await insertWatcher(t.db, partner.accountId, ['error.resolved'])
    const setup = await insertReadySetup(t.db, partner.accountId)
    const other = await insertMember(t.db, setup.group)
    const actor = systemActor(partner.accountId)
    const context = reconciliation(setup)
    const gone: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: null, parameter: 'gender', kind: 'carrier_value_differs', carrier: 'male', platform: 'female' }
    const kept: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: null, parameter: 'birth_date', kind: 'carrier_missing', platform: '1985-03-14' }
    const otherMember: FoundDiscrepancy = { memberId: other.id, planId: null, parameter: 'gender', kind: 'carrier_missing', platform: 'male' }
    const otherParameter: FoundDiscrepancy = { memberId: setup.subscriber.id, planId: null, parameter: 'emails', kind: 'carrier_missing', platform: ['a@b.c'] }
    const [goneError, keptError, otherMemberError, otherParameterError] = await raise(actor, context, [gone, kept, otherMember, otherParameter])
    const [apiError] = await raise(actor, { ...context, source: 'api' }, [gone])
    const manual = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', member_id: setup.subscriber.id, discrepancy: { parameter: 'gender', carrier: 'x' } })
    expect(manual.statusCode, manual.body).toBe(201)

    const resolved = await t.db.transaction().execute((tx) =>
      autoResolveErrors(
        tx,
        actor,
        {
          coveragePeriodId: setup.coveragePeriod.id,
          source: 'reconciliation',
          parameters: ['gender', 'birth_date'],
          memberIds: [setup.subscriber.id],
          keepDedupeKeys: [keptError!.dedupeKey],
        },
        RESOLVE,
      ),
    )
    expect(resolved).toEqual([goneError!.id])
    expect(await errorRow(goneError!.id)).toMatchObject({ status: 'resolved', resolved_by: 'reconciliation', resolution_message: RESOLVE.message })
    for (const open of [keptError!.id, otherMemberError!.id, otherParameterError!.id, apiError!.id, manual.json().error.id]) {
      expect((await errorRow(open)).status, open).toBe('unresolved')
    }
    const answered = (await call(t.app, partner, 'GET', `/errors/${goneError!.id}`)).json().error
    expect(answered.resolution).toEqual({ message: RESOLVE.message, created_at: expect.any(String), resolved_by: 'reconciliation' })
    expect((await deliveriesOf(t.db, watcherId)).map((d) => [d.type, d.data.error_id, d.data.automatic])).toEqual([['error.resolved', goneError!.id, true]])

    // Without a scope, everything of the source not kept goes.
    const rest = await t.db.transaction().execute((tx) =>
      autoResolveErrors(tx, actor, { coveragePeriodId: setup.coveragePeriod.id, source: 'reconciliation', keepDedupeKeys: [] }, RESOLVE),
    )
    expect(rest.sort()).toEqual([keptError!.id, otherMemberError!.id, otherParameterError!.id].sort())
    expect((await errorRow(apiError!.id)).status).toBe('unresolved')
  })
})

describe('error_counts (the totals of the queue)', () => {
  it('when errors are inserted, moved between statuses and assignees and deleted, statement by statement, then the totals stay exact and the rows get folded', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const actor = systemActor(partner.accountId)
    const context = reconciliation(setup)
    const statements = 240
    for (let i = 0; i < statements / 2; i++) {
      await raise(actor, context, [{ memberId: null, planId: null, parameter: 'region', kind: 'value_invalid', carrier: i, assignee: i % 3 === 0 ? 'service' : 'partner' }])
      // raise() deduplicates: vary the key through the plan-less, member-less parameter list instead.
      await t.db.updateTable('errors').set({ discrepancy_parameter: 'coverage', dedupe_key: null }).where('coverage_period_id', '=', setup.coveragePeriod.id).where('discrepancy_parameter', '=', 'region').execute()
    }
    const ids = (await t.db.selectFrom('errors').select('id').where('coverage_period_id', '=', setup.coveragePeriod.id).orderBy('id').execute()).map((r) => r.id)
    expect(ids).toHaveLength(statements / 2)
    for (const [index, id] of ids.entries()) {
      const status = index % 4 === 0 ? 'resolved' : index % 4 === 1 ? 'returned' : 'unresolved'
      await t.db.updateTable('errors').set({ status, assignee: index % 5 === 0 ? 'service' : 'partner' }).where('id', '=', id).execute()
    }
    await t.db.deleteFrom('errors').where('id', 'in', ids.slice(0, 10)).execute()

    const { rows: totals } = await sql<{ status: string; assignee: string; total: number }>`
      select status, assignee, sum(delta)::int as total from error_counts where coverage_period_id = ${setup.coveragePeriod.id}
       group by status, assignee having sum(delta) <> 0 order by status, assignee`.execute(t.db)
    const { rows: counted } = await sql<{ status: string; assignee: string; total: number }>`
      select status, assignee, count(*)::int as total from errors where coverage_period_id = ${setup.coveragePeriod.id}
       group by status, assignee order by status, assignee`.execute(t.db)
    expect(totals).toEqual(counted)
    // About 5% of the ~480 writing statements fold; without folding there would be a row per statement.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from error_counts where coverage_period_id = ${setup.coveragePeriod.id}`.execute(t.db)
    expect(rows[0]!.n).toBeLessThan(statements)

    for (const query of ['?status=unresolved&assignee=partner', '?status=resolved', '?assignee=service', '']) {
      const res = await call(t.app, partner, 'GET', `/coverage_periods/${setup.coveragePeriod.id}/errors${query}`)
      expect(res.statusCode, res.body).toBe(200)
      const expected = counted.filter((c) => !query.includes('status=') || query.includes(`status=${c.status}`)).filter((c) => !query.includes('assignee=') || query.includes(`assignee=${c.assignee}`))
      expect(res.headers.total, query).toBe(String(expected.reduce((n, c) => n + c.total, 0)))
    }
  })
})

describe('PCP errors and provider selections', () => {
  async function selectProvider(partner: Credential, memberId: string, planId: string, effectiveDate = '2027-01-01') {
    const res = await call(t.app, partner, 'POST', `/members/${memberId}/provider_selections`, {
      provider_selection: { plan_id: planId, npi: '1234567893', last_name: 'Welby', effective_date: effectiveDate },
    })
    expect(res.statusCode, res.body).toBe(201)
  }

  it('when complete setup raises PCP errors, then they carry the check dedupe key, so the check can find them again', async () => {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const row = await errorRow(setup.errorIdOf.get(setup.parent.id)!)
    expect(row.dedupe_key).toBe(`api:primary_care_provider:${setup.parent.id}:${setup.hmo.id}`)
    expect(row.discrepancy_kind).toBe('platform_missing')
  })

  it('when a member with an open PCP error selects a provider for that plan, then the error is resolved naming the API key; others stay open', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const watcherId = await insertWatcher(t.db, partner.accountId, ['error.resolved'])
    const setup = await completedPcpSetup(t, partner)
    const parentError = setup.errorIdOf.get(setup.parent.id)!
    const childError = setup.errorIdOf.get(setup.child.id)!
    // A person's report that the carrier finds the provider invalid is not cured by a new selection.
    const invalid = await raiseByHand(t, operator, setup.coveragePeriod.id, {
      source: 'error_report',
      member_id: setup.child.id,
      plan_id: setup.hmo.id,
      discrepancy: { parameter: 'primary_care_provider', carrier: '1234567893' },
      kind: 'value_invalid',
    })
    expect(invalid.statusCode, invalid.body).toBe(201)

    await selectProvider(partner, setup.child.id, setup.hmo.id)
    const cured = (await call(t.app, partner, 'GET', `/errors/${childError}`)).json().error
    expect(cured).toMatchObject({ status: 'resolved', resolution: { resolved_by: 'Test partner key', message: expect.stringContaining('primary care provider') } })
    expect((await errorRow(parentError)).status).toBe('unresolved')
    expect((await errorRow(invalid.json().error.id)).status).toBe('unresolved')
    expect((await deliveriesOf(t.db, watcherId)).map((d) => [d.data.error_id, d.data.automatic])).toEqual([[childError, true]])

    // A second selection (a change of provider) finds nothing left to resolve.
    await selectProvider(partner, setup.child.id, setup.hmo.id, '2027-03-01')
    expect(await deliveriesOf(t.db, watcherId)).toHaveLength(1)
  })
})
