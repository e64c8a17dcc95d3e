/**
 * The members module's front door for other modules: finding a member in the actor's account,
 * the member rules other inputs share, the enumerations of the member schema, and the
 * enrollment read model (enrollment-read-model.ts), from which the 834 files, the
 * reconciliation and the sandbox's census all read a coverage period's families.
 *
 * Not here yet: the members routes and service, which src/app.ts still imports directly. The
 * service records member changes through member-management, which queues carrier deliveries,
 * and the carrier side reads families through this file: exporting the service here would make
 * that a cycle of imports.
 */

export { dependentNotFound, memberNotFound, subscriberNotFound, type MemberErrorCode } from './members.errors.js'
export { dependentsOf, findMember, type MemberRow } from './members.repo.js'
export { unstorableTextProblems } from './members.rules.js'
export { EMPLOYMENT_STATUSES, GENDERS, MARITAL_STATUS_AFTER, MARITAL_STATUSES, RELATIONSHIPS, WAGE_FREQUENCIES } from './members.schema.js'
export {
  countEnrolled,
  enrolledSubscriberIds,
  loadAllFamilies,
  loadFamilies,
  plansOfPeriod,
  referenceDate,
  spansOf,
  windowOf,
  type LoadedCoverage,
  type LoadedEvent,
  type LoadedFamily,
  type LoadedMember,
  type LoadedPcp,
  type LoadedPlan,
  type LoadedSpan,
  type LoadWindow,
} from './enrollment-read-model.js'
