import type { Readable } from 'node:stream'
import type { Transaction } from 'kysely'
import type { Database, Db, UserRow } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { maskSsnsInText } from '../../lib/free-text-masking.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { findCoveragePeriod } from '../coverage-periods/coverage-periods.repo.js'
import { findUser, findUserByEmail } from '../users/users.repo.js'
import { discrepancyMessage, kindFromValues } from './discrepancy-messages.js'
import { discrepancyValueProblems, kindProblems, storedDiscrepancyValue, textProblems } from './discrepancy-values.js'
import { emitErrorEvent } from './error-events.js'
import { errorsCsv } from './errors.csv.js'
import { errorNotAssignedToCaller, errorNotFound, errorNotUnresolved, errorResolvedNotAssignable, errorsValidationFailed } from './errors.errors.js'
import { presentComment } from './errors.present.js'
import * as repo from './errors.repo.js'
import type { JsonText } from './errors.repo.js'
import type {
  AssignmentInput,
  BulkAssignmentInput,
  CreateCommentInput,
  CreateErrorInput,
  ErrorComment,
  ErrorCounts,
  ErrorFilters,
  ErrorResource,
  ErrorSort,
  ResolutionInput,
  ReturnInput,
} from './errors.schema.js'
import { actorName, resolveLockedErrors } from './raise-errors.js'

type Party = 'partner' | 'service'

export function createErrorsService({ db }: { db: Db }) {
  /** The error as answered, read in the transaction that changed it. */
  async function answer(tx: Transaction<Database>, id: string): Promise<JsonText<ErrorResource>> {
    return (await repo.findErrorJson(tx, undefined, id))!
  }

  /**
   * The active user of the caller's own account with this email (service users for a service
   * credential), or a problem at `pointer`: users named on an error speak for the caller.
   */
  async function namedUser(tx: Transaction<Database>, actor: Actor, email: string, pointer: string): Promise<UserRow> {
    const user = await findUserByEmail(tx, actor.accountId, email)
    if (!user) throw errorsValidationFailed([{ pointer, detail: 'is not the email of a registered user of your account', code: 'unknown_user' }])
    if (user.deactivated_at) throw errorsValidationFailed([{ pointer, detail: 'is the email of a deactivated user', code: 'user_deactivated' }])
    return user
  }

  /**
   * Who a comment, return, resolution or raised error names. In the console it is the signed-in
   * user, always: naming anyone else answers 422 at `pointer`, and naming nobody names them. With
   * an API key it is the user given, if any.
   */
  async function signer(tx: Transaction<Database>, actor: Actor, email: string | undefined, pointer: string): Promise<UserRow | null> {
    if (actor.user) {
      if (email !== undefined && email.trim().toLowerCase() !== actor.user.email) {
        throw errorsValidationFailed([{ pointer, detail: 'must be your own email: in the console you can only sign as yourself', code: 'not_signed_in_user' }])
      }
      return namedUser(tx, actor, actor.user.email, pointer)
    }
    return email === undefined ? null : namedUser(tx, actor, email, pointer)
  }

  async function lockVisible(tx: Transaction<Database>, actor: Actor, id: string) {
    const row = await repo.lockError(tx, accountScopeOf(actor), id)
    if (!row) throw errorNotFound()
    return row
  }

  function requireText(text: string, pointer: string): void {
    const problems = textProblems(text, pointer)
    if (problems.length > 0) throw errorsValidationFailed(problems)
  }

  /**
   * Writes a comment and its trail; `error.commented` goes out with the error's state after the
   * change. SSNs typed into it are masked first: both parties and webhooks see comments.
   */
  async function writeComment(
    tx: Transaction<Database>,
    actor: Actor,
    error: repo.ErrorRow,
    typed: string,
    user: UserRow | null,
    sentBy: Party,
    now: Date,
    /** False for the comment of a return: the history's `returned` entry carries it. */
    inHistory = true,
  ): Promise<ErrorComment> {
    const message = maskSsnsInText(typed)
    const id = uuidv7()
    await repo.insertComment(tx, { id, account_id: error.account_id, error_id: error.id, message, created_by_user_id: user?.id ?? null, sent_by: sentBy, created_at: now })
    await recordAuditEvent(tx, actor, { accountId: error.account_id, action: 'error.commented', resourceType: 'error_comment', resourceId: id })
    const history = inHistory ? { type: 'commented' as const, actor: user?.email ?? actorName(actor), party: sentBy, userId: user?.id ?? null, commentId: id } : null
    await emitErrorEvent(tx, 'error.commented', error, { comment_id: id, sent_by: sentBy }, now, history)
    return presentComment({ id, error_id: error.id, message, created_at: now, user, sent_by: sentBy })
  }

  /**
   * The user an error is assigned to: an active user of the caller's own account (the caller's
   * party holds the error, assignError checks), or nobody.
   */
  async function assignableUser(tx: Transaction<Database>, actor: Actor, userId: string | null, pointer: string): Promise<UserRow | null> {
    if (userId === null) return null
    const user = await findUser(tx, actor.accountId, userId)
    if (!user) throw errorsValidationFailed([{ pointer, detail: 'is not a user of your account', code: 'unknown_user' }])
    if (user.deactivated_at) throw errorsValidationFailed([{ pointer, detail: 'is a deactivated user', code: 'user_deactivated' }])
    return user
  }

  /** Assigns a locked error to a person of the caller's party (or nobody); the same person again changes nothing. */
  async function assignLocked(tx: Transaction<Database>, actor: Actor, error: repo.ErrorRow, user: UserRow | null, now: Date): Promise<void> {
    if (error.assignee !== actor.accountKind) throw errorNotAssignedToCaller(error.assignee, 'assign it to one of its people')
    if (user && error.status === 'resolved') throw errorResolvedNotAssignable()
    if (error.assigned_user_id === (user?.id ?? null)) return
    const assigned = await repo.setAssignedUser(tx, error.id, user?.id ?? null, now)
    await recordAuditEvent(tx, actor, { accountId: error.account_id, action: user ? 'error.assigned' : 'error.unassigned', resourceType: 'error', resourceId: error.id })
    await emitErrorEvent(tx, 'error.assigned', assigned, { previous_assigned_user_id: error.assigned_user_id }, now, {
      type: user ? 'assigned' : 'unassigned',
      actor: actorName(actor),
      party: actor.accountKind,
      userId: actor.user?.id ?? null,
    })
  }

  /** `assigned_user_id=me` is the signed-in console user; an API key acts for no person. */
  function withMe(actor: Actor, filters: ErrorFilters): ErrorFilters {
    if (filters.assigned_user_id !== 'me') return filters
    if (!actor.user) {
      throw errorsValidationFailed([
        { parameter: 'assigned_user_id', detail: 'is me, but an API key acts for no person: give the user id instead', code: 'no_signed_in_user' },
      ])
    }
    return { ...filters, assigned_user_id: actor.user.id }
  }

  return {
    async listForCoveragePeriod(actor: Actor, coveragePeriodId: string, filters: ErrorFilters, pageReq: PageRequest, sort?: ErrorSort) {
      const scope = accountScopeOf(actor)
      const page = await repo.listErrors(db, { coveragePeriodId, accountScope: scope }, withMe(actor, filters), pageReq, sort)
      // An empty answer may mean "not yours": only then is the coverage period looked up.
      if (page.total === 0 && !(await findCoveragePeriod(db, scope, coveragePeriodId))) throw coveragePeriodNotFound()
      return page
    },

    /** The cross-coverage-period queue: the account's errors (every account's for an operator). */
    async list(actor: Actor, filters: ErrorFilters, pageReq: PageRequest, sort?: ErrorSort) {
      return repo.listErrors(db, { accountScope: accountScopeOf(actor) }, withMe(actor, filters), pageReq, sort)
    },

    /** The CSV export of a listing; the coverage period (if any) is checked first, so a 404 is still a problem, not an empty file. */
    async exportCsv(actor: Actor, where: { coveragePeriodId?: string }, filters: ErrorFilters, sort: ErrorSort = 'created_at'): Promise<Readable> {
      const scope = accountScopeOf(actor)
      const resolved = withMe(actor, filters)
      if (where.coveragePeriodId === undefined) return errorsCsv(db, { accountScope: scope }, resolved, sort)
      if (!(await findCoveragePeriod(db, scope, where.coveragePeriodId))) throw coveragePeriodNotFound()
      return errorsCsv(db, { coveragePeriodId: where.coveragePeriodId, accountScope: scope }, resolved, sort)
    },

    async countForCoveragePeriod(actor: Actor, coveragePeriodId: string, filters: ErrorFilters): Promise<ErrorCounts> {
      const scope = accountScopeOf(actor)
      if (!(await findCoveragePeriod(db, scope, coveragePeriodId))) throw coveragePeriodNotFound()
      return repo.countErrors(db, { coveragePeriodId, accountScope: scope }, withMe(actor, filters))
    },

    async count(actor: Actor, filters: ErrorFilters): Promise<ErrorCounts> {
      return repo.countErrors(db, { accountScope: accountScopeOf(actor) }, withMe(actor, filters))
    },

    async history(actor: Actor, id: string, pageReq: PageRequest) {
      if (!(await repo.errorExists(db, accountScopeOf(actor), id))) throw errorNotFound()
      return repo.listHistory(db, id, pageReq)
    },

    /** Assigns the error to a person of the party holding it, or to nobody (user_id null). */
    async assign(actor: Actor, id: string, input: AssignmentInput): Promise<JsonText<ErrorResource>> {
      return db.transaction().execute(async (tx) => {
        const error = await lockVisible(tx, actor, id)
        const user = await assignableUser(tx, actor, input.user_id, '/assignment/user_id')
        await assignLocked(tx, actor, error, user, new Date())
        return answer(tx, error.id)
      })
    },

    /**
     * Assigns every listed error, or none: each must be visible to the caller and held by its
     * party; the problems name each error that is not (422), so nothing is half done.
     */
    async assignMany(actor: Actor, input: BulkAssignmentInput): Promise<JsonText<ErrorResource[]>> {
      // The uuid format takes either case and the database compares uuids, not text: ids are
      // matched to the locked rows (which come back lower-case) in lower case, and one error
      // named twice in two cases is the repeat the schema's uniqueItems refuses for one case.
      const errorIds = input.error_ids.map((id) => id.toLowerCase())
      const firstIndex = new Map<string, number>()
      const repeats: FieldProblem[] = []
      errorIds.forEach((id, index) => {
        const first = firstIndex.get(id)
        if (first === undefined) firstIndex.set(id, index)
        else repeats.push({ pointer: `/assignment/error_ids/${index}`, detail: `names the same error as /assignment/error_ids/${first}`, code: 'invalid_uniqueitems' })
      })
      if (repeats.length > 0) throw errorsValidationFailed(repeats)
      return db.transaction().execute(async (tx) => {
        const user = await assignableUser(tx, actor, input.user_id, '/assignment/user_id')
        const locked = new Map((await repo.lockErrors(tx, accountScopeOf(actor), errorIds)).map((row) => [row.id, row]))
        const problems: FieldProblem[] = []
        errorIds.forEach((id, index) => {
          const pointer = `/assignment/error_ids/${index}`
          const error = locked.get(id)
          if (!error) problems.push({ pointer, detail: 'is not an error of your account', code: 'error_not_found' })
          else if (error.assignee !== actor.accountKind) problems.push({ pointer, detail: `is held by the ${error.assignee === 'service' ? 'service (operator)' : 'partner'}: only that party assigns it`, code: 'error_not_assigned_to_caller' })
          else if (user && error.status === 'resolved') problems.push({ pointer, detail: 'is resolved: a resolved error is nobody\'s work', code: 'error_resolved' })
        })
        if (problems.length > 0) throw errorsValidationFailed(problems)
        const now = new Date()
        for (const id of [...errorIds].sort()) await assignLocked(tx, actor, locked.get(id)!, user, now)
        return repo.findErrorsJson(tx, errorIds)
      })
    },

    async get(actor: Actor, id: string): Promise<JsonText<ErrorResource>> {
      const json = await repo.findErrorJson(db, accountScopeOf(actor), id)
      if (!json) throw errorNotFound()
      return json
    },

    async listComments(actor: Actor, id: string, pageReq: PageRequest) {
      if (!(await repo.errorExists(db, accountScopeOf(actor), id))) throw errorNotFound()
      return repo.listComments(db, id, pageReq)
    },

    async addComment(actor: Actor, id: string, input: CreateCommentInput): Promise<ErrorComment> {
      return db.transaction().execute(async (tx) => {
        const error = await lockVisible(tx, actor, id)
        requireText(input.message, '/message')
        const user = await signer(tx, actor, input.created_by, '/created_by')
        const now = new Date()
        await tx.updateTable('errors').set({ updated_at: now }).where('id', '=', error.id).execute()
        return writeComment(tx, actor, error, input.message, user, actor.accountKind, now)
      })
    },

    /** From any status; a second resolution replaces the first as a whole (message, time and who). */
    async resolve(actor: Actor, id: string, input: ResolutionInput): Promise<JsonText<ErrorResource>> {
      return db.transaction().execute(async (tx) => {
        const error = await lockVisible(tx, actor, id)
        requireText(input.message, '/message')
        const user = await signer(tx, actor, input.resolved_by, '/resolved_by')
        await resolveLockedErrors(tx, actor, [error], {
          message: maskSsnsInText(input.message),
          resolvedBy: user?.email ?? actorName(actor),
          resolvedByUserId: user?.id ?? null,
          automatic: false,
        })
        return answer(tx, error.id)
      })
    },

    /**
     * Hands an unresolved error to the other party with a message, recorded as a comment. Only
     * the party it is assigned to may: returning is how the assignee says "this is yours".
     */
    async returnError(actor: Actor, id: string, input: ReturnInput): Promise<JsonText<ErrorResource>> {
      return db.transaction().execute(async (tx) => {
        const error = await lockVisible(tx, actor, id)
        if (error.status !== 'unresolved') throw errorNotUnresolved(error.status)
        if (error.assignee !== actor.accountKind) throw errorNotAssignedToCaller(error.assignee, 'return it')
        requireText(input.message, '/message')
        const user = await signer(tx, actor, input.created_by, '/created_by')
        const now = new Date()
        const assignee: Party = error.assignee === 'partner' ? 'service' : 'partner'
        const returned = await tx
          .updateTable('errors')
          .set({ status: 'returned', assignee, updated_at: now })
          .where('id', '=', error.id)
          .returningAll()
          .executeTakeFirstOrThrow()
        await recordAuditEvent(tx, actor, { accountId: error.account_id, action: 'error.returned', resourceType: 'error', resourceId: error.id })
        const comment = await writeComment(tx, actor, returned, input.message, user, actor.accountKind, now, false)
        await emitErrorEvent(tx, 'error.returned', returned, { previous_status: error.status, previous_assignee: error.assignee, comment_id: comment.id }, now, {
          type: 'returned',
          actor: user?.email ?? actorName(actor),
          party: actor.accountKind,
          userId: user?.id ?? null,
          commentId: comment.id,
          fromStatus: error.status,
        })
        return answer(tx, error.id)
      })
    },

    /** Operators raise an error by hand (source manual or error_report) on any account's coverage period. */
    async create(actor: Actor, coveragePeriodId: string, input: CreateErrorInput): Promise<JsonText<ErrorResource>> {
      const cp = await findCoveragePeriod(db, accountScopeOf(actor), coveragePeriodId)
      if (!cp) throw coveragePeriodNotFound()
      const { parameter, carrier, platform } = input.discrepancy
      const problems: FieldProblem[] = [
        ...discrepancyValueProblems(carrier, '/error/discrepancy/carrier'),
        ...discrepancyValueProblems(platform, '/error/discrepancy/platform'),
        ...(input.kind ? kindProblems(input.kind, carrier, platform, '/error/kind') : []),
        ...(input.comment === undefined ? [] : textProblems(input.comment, '/error/comment')),
      ]
      const references =
        input.member_id || input.plan_id
          ? await repo.referencesOf(db, cp.group_id, cp.id, input.member_id ?? null, input.plan_id ?? null)
          : { memberInGroup: true, planInCoveragePeriod: true }
      if (input.member_id && !references.memberInGroup) {
        problems.push({ pointer: '/error/member_id', detail: "is not a member of the coverage period's group", code: 'not_in_group' })
      }
      if (input.plan_id && !references.planInCoveragePeriod) {
        problems.push({ pointer: '/error/plan_id', detail: 'is not a plan of the coverage period', code: 'not_in_coverage_period' })
      }
      if (problems.length > 0) throw errorsValidationFailed(problems)

      const kind = input.kind ?? kindFromValues(carrier, platform)
      const catalogue = discrepancyMessage(parameter, kind)
      return db.transaction().execute(async (tx) => {
        const user = await signer(tx, actor, input.created_by, '/error/created_by')
        const now = new Date()
        const error = await tx
          .insertInto('errors')
          .values({
            id: uuidv7(),
            account_id: cp.account_id,
            coverage_period_id: cp.id,
            group_id: cp.group_id,
            member_id: input.member_id ?? null,
            plan_id: input.plan_id ?? null,
            assignee: input.assignee ?? catalogue.assignee,
            severity: input.severity ?? catalogue.severity,
            status: 'unresolved',
            source: input.source,
            message: catalogue.message,
            discrepancy_parameter: parameter,
            discrepancy_kind: kind,
            discrepancy_carrier: storedDiscrepancyValue(parameter, carrier),
            discrepancy_platform: storedDiscrepancyValue(parameter, platform),
            created_by_user_id: user?.id ?? null,
            transaction_ids: '[]',
            // People's errors never merge with each other or with a check's.
            dedupe_key: null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow()
        await recordAuditEvent(tx, actor, { accountId: error.account_id, action: 'error.created', resourceType: 'error', resourceId: error.id })
        await emitErrorEvent(tx, 'error.created', error, { reopened: false }, now, { type: 'raised', actor: user?.email ?? actorName(actor), party: 'service', userId: user?.id ?? null })
        if (input.comment !== undefined) await writeComment(tx, actor, error, input.comment, user, 'service', now)
        return answer(tx, error.id)
      })
    },
  }
}

export type ErrorsService = ReturnType<typeof createErrorsService>
