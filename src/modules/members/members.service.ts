import { IGNORE_MEMBER_CHANGES, type MemberChange, type RecordMemberChanges } from '../member-management/member-transactions.js'
import type { Db, Executor } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { checkIfMatch, checkIfMatchTag, entityTag, entityTagOfText, type IfMatch } from '../../lib/etag.js'
import { uuidv7 } from '../../lib/ids.js'
import { maskSsn, type SsnProtection } from '../../lib/ssn-protection.js'
import { groupNotFound } from '../groups/groups.errors.js'
import {
  dependentNotFound,
  duplicateMemberIdentifier,
  memberNotFound,
  membersValidationFailed,
  subscriberNotFound,
} from './members.errors.js'
import * as repo from './members.repo.js'
import { findSubscriberDocument } from './subscriber-document.js'
import { repeatedFamilySsnProblems } from './family-ssn.js'
import { dependentProblems, duplicateIdentifierProblems, subscriberProblems, unstorableTextProblems } from './members.rules.js'
import { todayUtc } from '../../lib/clock.js'
import type { CurrentLifeEvent, Dependent, DependentInput, Member, Subscriber, SubscriberInput, SubscriberUpdate } from './members.schema.js'

/** A member as answered from: a freshly built row (no read-back) or one read for an answer. */
type MemberView = repo.PresentableMember
/** A member built for insertion: every column, answered from without a read-back. */
type BuiltMember = repo.NewMember & { status: Subscriber['status'] }

function viewOf(row: repo.MemberRow): MemberView {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() }
}

export function presentDependent(view: MemberView): Dependent {
  const dependent: Dependent = {
    id: view.id,
    subscriber_id: view.subscriber_id!,
    group_id: view.group_id,
    external_identifier: view.external_identifier,
    first_name: view.first_name,
    last_name: view.last_name,
    birth_date: view.birth_date,
    gender: view.gender as Dependent['gender'],
    subscriber_relationship: view.subscriber_relationship as Dependent['subscriber_relationship'],
    status: view.status,
    created_at: view.created_at,
    updated_at: view.updated_at,
  }
  if (view.ssn_last_four) dependent.social_security_number = maskSsn(view.ssn_last_four)
  if (view.handicapped !== null) dependent.handicapped = view.handicapped
  if (view.tobacco_use !== null) dependent.tobacco_use = view.tobacco_use
  return dependent
}

/** `currentEvents`: from currentLifeEventsOf (a subscriber just created has none). */
export function presentSubscriber(view: MemberView, dependents: readonly MemberView[], currentEvents: readonly CurrentLifeEvent[] = []): Subscriber {
  const subscriber: Subscriber = {
    id: view.id,
    group_id: view.group_id,
    external_identifier: view.external_identifier,
    location_id: view.location_id!,
    first_name: view.first_name,
    last_name: view.last_name,
    birth_date: view.birth_date,
    gender: view.gender as Subscriber['gender'],
    social_security_number: maskSsn(view.ssn_last_four ?? '0000'),
    residential_address: view.residential_address as Subscriber['residential_address'],
    emails: (view.emails ?? []) as Subscriber['emails'],
    phone_numbers: (view.phone_numbers ?? []) as Subscriber['phone_numbers'],
    employment_details: view.employment_details as Subscriber['employment_details'],
    status: view.status,
    current_qualifying_life_events: [...currentEvents],
    dependents: dependents.map(presentDependent),
    created_at: view.created_at,
    updated_at: view.updated_at,
  }
  if (view.middle_name !== null) subscriber.middle_name = view.middle_name
  if (view.marital_status !== null) subscriber.marital_status = view.marital_status as Subscriber['marital_status']
  if (view.tobacco_use !== null) subscriber.tobacco_use = view.tobacco_use
  if (view.mailing_address !== null && view.mailing_address !== undefined) subscriber.mailing_address = view.mailing_address as Subscriber['mailing_address']
  if (view.employment_classification_id !== null) {
    subscriber.class = { employment_classification_id: view.employment_classification_id, effective_date: view.class_effective_date! }
  }
  return subscriber
}


type SealedColumns = Pick<repo.NewMember, 'ssn_ciphertext' | 'ssn_key_id' | 'ssn_hash' | 'ssn_last_four'>

function sealedColumns(ssn: SsnProtection, value: string | undefined): SealedColumns | undefined {
  if (value === undefined) return undefined
  const sealed = ssn.seal(value)
  return { ssn_ciphertext: sealed.ciphertext, ssn_key_id: sealed.keyId, ssn_hash: sealed.hash, ssn_last_four: sealed.lastFour }
}

const NO_SSN: SealedColumns = { ssn_ciphertext: null, ssn_key_id: null, ssn_hash: null, ssn_last_four: null }
const NO_STORED_HASHES: ReadonlySet<string> = new Set()

function subscriberColumns(input: SubscriberUpdate) {
  return {
    external_identifier: input.external_identifier,
    first_name: input.first_name,
    middle_name: input.middle_name ?? null,
    last_name: input.last_name,
    birth_date: input.birth_date,
    gender: input.gender,
    marital_status: input.marital_status ?? null,
    tobacco_use: input.tobacco_use ?? null,
    handicapped: null,
    subscriber_relationship: null,
    location_id: input.location_id,
    employment_classification_id: input.class?.employment_classification_id ?? null,
    class_effective_date: input.class?.effective_date ?? null,
    residential_address: input.residential_address,
    mailing_address: input.mailing_address ?? null,
    emails: input.emails ?? [],
    phone_numbers: input.phone_numbers ?? [],
    employment_details: input.employment_details,
  }
}

function dependentColumns(input: DependentInput) {
  return {
    external_identifier: input.external_identifier,
    first_name: input.first_name,
    middle_name: null,
    last_name: input.last_name,
    birth_date: input.birth_date,
    gender: input.gender,
    marital_status: null,
    tobacco_use: input.tobacco_use ?? null,
    handicapped: input.handicapped ?? null,
    subscriber_relationship: input.subscriber_relationship,
    location_id: null,
    employment_classification_id: null,
    class_effective_date: null,
    residential_address: null,
    mailing_address: null,
    emails: [],
    phone_numbers: [],
    employment_details: null,
  }
}

export interface SsnDeps {
  db: Db
  ssn: SsnProtection
}

export function createMembersService({ db, ssn, recordMemberChanges = IGNORE_MEMBER_CHANGES }: SsnDeps & { recordMemberChanges?: RecordMemberChanges }) {
  const hashOf = (value: string) => ssn.hash(value)

  /**
   * Refuses (422 at the field) an SSN another member of the family already has. Called in the
   * write's transaction with the subscriber locked, so two requests cannot both add the number.
   */
  async function refuseRepeatedFamilySsn(tx: Executor, subscriberId: string, exceptId: string | undefined, value: string | undefined, pointer: string) {
    if (value === undefined) return
    const problems = repeatedFamilySsnProblems([{ ssn: value, pointer }], await repo.familySsnHashes(tx, subscriberId, exceptId), hashOf)
    if (problems.length > 0) throw membersValidationFailed(problems)
  }

  /** location_id and class.employment_classification_id must name rows of this group. */
  async function groupReferenceProblems(groupId: string, subscribers: readonly SubscriberUpdate[], pointerOf: (index: number) => string) {
    const locationIds = new Set(subscribers.map((s) => s.location_id))
    const classIds = new Set(subscribers.flatMap((s) => (s.class ? [s.class.employment_classification_id] : [])))
    const [locations, classes] = await Promise.all([
      repo.locationIdsOfGroup(db, groupId, [...locationIds]),
      repo.classificationIdsOfGroup(db, groupId, [...classIds]),
    ])
    const problems: FieldProblem[] = []
    subscribers.forEach((s, index) => {
      if (!locations.has(s.location_id)) {
        problems.push({ pointer: `${pointerOf(index)}/location_id`, detail: 'is not a location of this group', code: 'not_in_group' })
      }
      if (s.class && !classes.has(s.class.employment_classification_id)) {
        problems.push({
          pointer: `${pointerOf(index)}/class/employment_classification_id`,
          detail: 'is not an employment classification of this group',
          code: 'not_in_group',
        })
      }
    })
    return problems
  }

  async function loadSubscriber(actor: Actor, id: string): Promise<Subscriber> {
    const family = await repo.findSubscriberFamily(db, accountScopeOf(actor), id)
    if (!family) throw subscriberNotFound()
    const events = await repo.currentLifeEventsOf(db, [family.subscriber.id])
    return presentSubscriber(family.subscriber, family.dependents, events.get(family.subscriber.id))
  }

  /**
   * The answer of GET /subscribers/{id} as JSON text built by the database (see
   * subscriber-document.ts), read through `executor` (a transaction, for a write). The
   * subscriber's ETag is the hash of this text wherever it is given: the text is deterministic
   * for one state, and hashing it costs the hot read no parsing.
   */
  async function subscriberDocument(executor: Executor, actor: Actor, id: string): Promise<string> {
    const document = await findSubscriberDocument(executor, accountScopeOf(actor), id)
    if (document === undefined) throw subscriberNotFound()
    return document
  }
  const loadSubscriberDocument = (actor: Actor, id: string): Promise<string> => subscriberDocument(db, actor, id)

  return {
    /**
     * Validates every subscriber and dependent before writing anything, then writes them all in
     * one transaction (multi-row batches) or nothing. `single` picks the pointers: /subscriber or /subscribers/i.
     */
    async createSubscribers(actor: Actor, groupId: string, inputs: readonly SubscriberInput[], single: boolean): Promise<Subscriber[]> {
      const group = await repo.findGroup(db, accountScopeOf(actor), groupId)
      if (!group) throw groupNotFound()
      const pointerOf = (index: number) => (single ? '/subscriber' : `/subscribers/${index}`)
      const today = todayUtc()

      const problems: FieldProblem[] = duplicateIdentifierProblems(inputs, pointerOf)
      inputs.forEach((input, index) => {
        const at = pointerOf(index)
        unstorableTextProblems(input, at, problems)
        problems.push(...subscriberProblems(input, at, today))
        const dependents = input.dependents ?? []
        problems.push(...duplicateIdentifierProblems(dependents, (j) => `${at}/dependents/${j}`))
        dependents.forEach((dependent, j) => problems.push(...dependentProblems(dependent, input.birth_date, `${at}/dependents/${j}`, today)))
        // A new family has nothing stored: only its members in the body are compared.
        const family = [{ ssn: input.social_security_number, pointer: at }, ...dependents.map((d, j) => ({ ssn: d.social_security_number, pointer: `${at}/dependents/${j}` }))]
        problems.push(...repeatedFamilySsnProblems(family, NO_STORED_HASHES, hashOf))
      })
      problems.push(...(await groupReferenceProblems(group.id, inputs, pointerOf)))
      if (problems.length > 0) throw membersValidationFailed(problems)

      const taken = await repo.takenSubscriberIdentifiers(db, group.id, inputs.map((input) => input.external_identifier))
      if (taken.size > 0) {
        const conflicts = inputs.flatMap((input, index) =>
          taken.has(input.external_identifier)
            ? [{ pointer: `${pointerOf(index)}/external_identifier`, detail: 'is already used by another subscriber of the group', code: 'duplicate' }]
            : [],
        )
        throw duplicateMemberIdentifier(conflicts, 'subscriber')
      }

      const now = new Date().toISOString()
      const base = { account_id: group.account_id, group_id: group.id, created_at: now, updated_at: now }
      const subscriberRows: BuiltMember[] = []
      const dependentRows: BuiltMember[][] = []
      for (const input of inputs) {
        const id = uuidv7()
        subscriberRows.push({ id, ...base, subscriber_id: null, kind: 'subscriber', ...subscriberColumns(input), ...sealedColumns(ssn, input.social_security_number)!, status: 'pending' })
        dependentRows.push(
          (input.dependents ?? []).map((dependent) => ({
            id: uuidv7(),
            ...base,
            subscriber_id: id,
            kind: 'dependent',
            ...dependentColumns(dependent),
            ...(sealedColumns(ssn, dependent.social_security_number) ?? NO_SSN),
            status: 'pending',
          })),
        )
      }
      const allDependents = dependentRows.flat()
      try {
        await db.transaction().execute(async (tx) => {
          await repo.insertMembers(tx, [...subscriberRows, ...allDependents].map(({ status: _status, ...row }) => row))
          await repo.recordMemberAuditEvents(tx, actor, group.account_id, 'subscriber.created', 'subscriber', subscriberRows.map((row) => row.id))
          await repo.recordMemberAuditEvents(tx, actor, group.account_id, 'dependent.created', 'dependent', allDependents.map((row) => row.id))
          const changes: MemberChange[] = subscriberRows.map((row) => ({ subscriberId: row.id, memberId: row.id, kind: 'subscriber_created' }))
          for (const row of allDependents) changes.push({ subscriberId: row.subscriber_id!, memberId: row.id, kind: 'dependent_created' })
          await recordMemberChanges(tx, actor, group.id, changes, new Date(now))
        })
      } catch (error) {
        // A concurrent request took an identifier between the check and the insert.
        if (isUniqueViolation(error)) throw duplicateMemberIdentifier([], 'subscriber')
        throw error
      }
      return subscriberRows.map((row, index) => presentSubscriber(row, dependentRows[index]!))
    },

    async listSubscribers(actor: Actor, groupId: string, pageReq: PageRequest): Promise<{ items: Subscriber[]; total: number }> {
      const group = await repo.findGroup(db, accountScopeOf(actor), groupId)
      if (!group) throw groupNotFound()
      const { items, total } = await repo.listSubscribers(db, group.id, pageReq)
      const dependents = await repo.dependentsOf(db, items.map((row) => row.id))
      const bySubscriber = new Map<string, MemberView[]>()
      for (const row of dependents) {
        const list = bySubscriber.get(row.subscriber_id!) ?? []
        list.push(viewOf(row))
        bySubscriber.set(row.subscriber_id!, list)
      }
      const events = await repo.currentLifeEventsOf(db, items.map((row) => row.id))
      return { items: items.map((row) => presentSubscriber(viewOf(row), bySubscriber.get(row.id) ?? [], events.get(row.id))), total }
    },

    getSubscriber: loadSubscriber,
    getSubscriberDocument: loadSubscriberDocument,

    /**
     * Replaces the subscriber's own fields; an omitted SSN keeps the stored one. With `ifMatch`, only
     * while the subscriber (as GET /subscribers/{id} shows it) is still the version the client read.
     */
    async updateSubscriber(actor: Actor, id: string, input: SubscriberUpdate, ifMatch?: IfMatch): Promise<{ subscriber: Subscriber; etag: string }> {
      const current = await repo.findMember(db, accountScopeOf(actor), id, 'subscriber')
      if (!current) throw subscriberNotFound()
      const pointerOf = () => '/subscriber'
      const problems = [...unstorableTextProblems(input, '/subscriber'), ...subscriberProblems(input, '/subscriber', todayUtc())]
      const dependents = await repo.dependentsOf(db, [current.id])
      // A child added earlier must still be younger than the subscriber.
      if (dependents.some((d) => (d.subscriber_relationship === 'child' || d.subscriber_relationship === 'grandchild') && d.birth_date <= input.birth_date)) {
        problems.push({ pointer: '/subscriber/birth_date', detail: 'must be before the birth_date of every child and grandchild of the subscriber', code: 'after_child_birth_date' })
      }
      problems.push(...(await groupReferenceProblems(current.group_id, [input], pointerOf)))
      if (problems.length > 0) throw membersValidationFailed(problems)
      const taken = await repo.takenSubscriberIdentifiers(db, current.group_id, [input.external_identifier], current.id)
      if (taken.size > 0) {
        throw duplicateMemberIdentifier([{ pointer: '/subscriber/external_identifier', detail: 'is already used by another subscriber of the group', code: 'duplicate' }], 'subscriber')
      }
      try {
        return await db.transaction().execute(async (tx) => {
          await repo.lockMember(tx, current.id)
          if (ifMatch !== undefined) checkIfMatchTag(ifMatch, entityTagOfText(await subscriberDocument(tx, actor, current.id)))
          await refuseRepeatedFamilySsn(tx, current.id, current.id, input.social_security_number, '/subscriber')
          // Recorded first: the family's status it sets is part of the answer.
          await recordMemberChanges(tx, actor, current.group_id, [{ subscriberId: current.id, memberId: current.id, kind: 'subscriber_updated' }], new Date())
          await repo.updateMember(tx, current.id, {
            ...subscriberColumns(input),
            ...sealedColumns(ssn, input.social_security_number),
            updated_at: new Date().toISOString(),
          })
          await repo.recordMemberAuditEvents(tx, actor, current.account_id, 'subscriber.updated', 'subscriber', [current.id])
          // Read back in the transaction: the answer and its ETag are exactly the version written.
          const document = await subscriberDocument(tx, actor, current.id)
          return { subscriber: (JSON.parse(document) as { subscriber: Subscriber }).subscriber, etag: entityTagOfText(document) }
        })
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicateMemberIdentifier([], 'subscriber')
        throw error
      }
    },

    async createDependent(actor: Actor, subscriberId: string, input: DependentInput): Promise<Dependent> {
      const subscriber = await repo.findMember(db, accountScopeOf(actor), subscriberId, 'subscriber')
      if (!subscriber) throw subscriberNotFound()
      const problems = [...unstorableTextProblems(input, '/dependent'), ...dependentProblems(input, subscriber.birth_date, '/dependent', todayUtc())]
      if (problems.length > 0) throw membersValidationFailed(problems)
      if (await repo.dependentIdentifierTaken(db, subscriber.id, input.external_identifier)) throw duplicateDependent()
      const now = new Date().toISOString()
      const row: BuiltMember = {
        id: uuidv7(),
        account_id: subscriber.account_id,
        group_id: subscriber.group_id,
        subscriber_id: subscriber.id,
        kind: 'dependent',
        ...dependentColumns(input),
        ...(sealedColumns(ssn, input.social_security_number) ?? NO_SSN),
        created_at: now,
        updated_at: now,
        status: 'pending',
      }
      try {
        await db.transaction().execute(async (tx) => {
          await repo.lockMember(tx, subscriber.id)
          await refuseRepeatedFamilySsn(tx, subscriber.id, undefined, input.social_security_number, '/dependent')
          const { status: _status, ...newRow } = row
          await repo.insertMembers(tx, [newRow])
          await repo.recordMemberAuditEvents(tx, actor, subscriber.account_id, 'dependent.created', 'dependent', [row.id])
          await recordMemberChanges(tx, actor, subscriber.group_id, [{ subscriberId: subscriber.id, memberId: row.id, kind: 'dependent_created' }], new Date(now))
        })
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicateDependent()
        throw error
      }
      return presentDependent(row)
    },

    /** Replaces the dependent; an omitted SSN keeps the stored one. With `ifMatch`, only while it is the version the client read. */
    async updateDependent(actor: Actor, id: string, input: DependentInput, ifMatch?: IfMatch): Promise<Dependent> {
      const current = await repo.findMember(db, accountScopeOf(actor), id, 'dependent')
      if (!current) throw dependentNotFound()
      const subscriber = await repo.findMember(db, undefined, current.subscriber_id!, 'subscriber')
      const problems = [...unstorableTextProblems(input, '/dependent'), ...dependentProblems(input, subscriber!.birth_date, '/dependent', todayUtc())]
      if (problems.length > 0) throw membersValidationFailed(problems)
      if (await repo.dependentIdentifierTaken(db, current.subscriber_id!, input.external_identifier, current.id)) throw duplicateDependent()
      try {
        const row = await db.transaction().execute(async (tx) => {
          // The family's lock first (the order life events take it in), then the dependent's.
          await repo.lockMember(tx, current.subscriber_id!)
          await refuseRepeatedFamilySsn(tx, current.subscriber_id!, current.id, input.social_security_number, '/dependent')
          if (ifMatch !== undefined) {
            await repo.lockMember(tx, current.id)
            const locked = await repo.findMember(tx, accountScopeOf(actor), current.id, 'dependent')
            if (!locked) throw dependentNotFound()
            checkIfMatch(ifMatch, presentDependent(viewOf(locked)))
          }
          await recordMemberChanges(tx, actor, current.group_id, [{ subscriberId: current.subscriber_id!, memberId: current.id, kind: 'dependent_updated' }], new Date())
          const updated = await repo.updateMember(tx, current.id, {
            ...dependentColumns(input),
            ...sealedColumns(ssn, input.social_security_number),
            updated_at: new Date().toISOString(),
          })
          await repo.recordMemberAuditEvents(tx, actor, current.account_id, 'dependent.updated', 'dependent', [current.id])
          return updated
        })
        return presentDependent(viewOf(row))
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicateDependent()
        throw error
      }
    },

    /** The member with the ETag of its own resource (/subscribers/{id} or /dependents/{id}), for a conditional PUT there. */
    async getMember(actor: Actor, id: string): Promise<{ member: Member; etag: string }> {
      const row = await repo.findMember(db, accountScopeOf(actor), id)
      if (!row) throw memberNotFound()
      if (row.kind === 'dependent') {
        const dependent = presentDependent(viewOf(row))
        return { member: { ...dependent, kind: 'dependent' }, etag: entityTag(dependent) }
      }
      const document = await subscriberDocument(db, actor, row.id)
      const subscriber = (JSON.parse(document) as { subscriber: Subscriber }).subscriber
      return { member: { ...subscriber, kind: 'subscriber', subscriber_id: null }, etag: entityTagOfText(document) }
    },
  }
}

const duplicateDependent = () =>
  duplicateMemberIdentifier([{ pointer: '/dependent/external_identifier', detail: 'is already used by another dependent of the subscriber', code: 'duplicate' }], 'dependent')

export type MembersService = ReturnType<typeof createMembersService>
