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
import { findUserByEmail } from '../users/users.repo.js'
import { discrepancyMessage, kindFromValues } from './discrepancy-messages.js'
import { discrepancyValueProblems, kindProblems, storedDiscrepancyValue, textProblems } from './discrepancy-values.js'
import { emitErrorEvent } from './error-events.js'
import { errorNotAssignedToCaller, errorNotFound, errorNotUnresolved, errorsValidationFailed } from './errors.errors.js'
import { presentComment } from './errors.present.js'
import * as repo from './errors.repo.js'
import type { JsonText } from './errors.repo.js'
import type { CreateCommentInput, CreateErrorInput, ErrorComment, ErrorFilters, ErrorResource, ResolutionInput, ReturnInput } from './errors.schema.js'
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
  ): Promise<ErrorComment> {
    const message = maskSsnsInText(typed)
    const id = uuidv7()
    await repo.insertComment(tx, { id, account_id: error.account_id, error_id: error.id, message, created_by_user_id: user?.id ?? null, sent_by: sentBy, created_at: now })
    await recordAuditEvent(tx, actor, { accountId: error.account_id, action: 'error.commented', resourceType: 'error_comment', resourceId: id })
    await emitErrorEvent(tx, 'error.commented', error, { comment_id: id, sent_by: sentBy }, now)
    return presentComment({ id, error_id: error.id, message, created_at: now, user, sent_by: sentBy })
  }

  return {
    async listForCoveragePeriod(actor: Actor, coveragePeriodId: string, filters: ErrorFilters, pageReq: PageRequest) {
      const scope = accountScopeOf(actor)
      const page = await repo.listErrors(db, { coveragePeriodId, accountScope: scope }, filters, pageReq)
      // An empty answer may mean "not yours": only then is the coverage period looked up.
      if (page.total === 0 && !(await findCoveragePeriod(db, scope, coveragePeriodId))) throw coveragePeriodNotFound()
      return page
    },

    /** The cross-coverage-period queue: the account's errors (every account's for an operator). */
    async list(actor: Actor, filters: ErrorFilters, pageReq: PageRequest) {
      return repo.listErrors(db, { accountScope: accountScopeOf(actor) }, filters, pageReq)
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
        if (error.assignee !== actor.accountKind) throw errorNotAssignedToCaller(error.assignee)
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
        const comment = await writeComment(tx, actor, returned, input.message, user, actor.accountKind, now)
        await emitErrorEvent(tx, 'error.returned', returned, { previous_status: error.status, previous_assignee: error.assignee, comment_id: comment.id }, now)
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
        await emitErrorEvent(tx, 'error.created', error, { reopened: false }, now)
        if (input.comment !== undefined) await writeComment(tx, actor, error, input.comment, user, 'service', now)
        return answer(tx, error.id)
      })
    },
  }
}

export type ErrorsService = ReturnType<typeof createErrorsService>
