import type { TSchema } from 'typebox'
import { AccountSchema, ApiKeySchema, CreatedApiKeySchema } from '../modules/accounts/accounts.schema.js'
import { AcknowledgedGroupSchema, AcknowledgementSchema, ReceivedAcknowledgementSchema } from '../modules/acknowledgements/acknowledgements.schema.js'
import { AuditEventSchema } from '../modules/audit/audit.schema.js'
import { CoverageTransmissionSchema, FileDeliverySchema } from '../modules/carrier-delivery/file-deliveries.schema.js'
import { CarrierSchema } from '../modules/carriers/carriers.schema.js'
import { CensusCoverage, CensusDependentInput, CensusSubscriberInput } from '../modules/census/census-input.schema.js'
import { CensusRequestSchema, CensusSubscriberSchema } from '../modules/census/census.schema.js'
import { AddressSchema } from '../modules/common/address.js'
import { CoveragePeriodSchema } from '../modules/coverage-periods/coverage-periods.schema.js'
import { EmploymentClassificationSchema } from '../modules/employment-classifications/employment-classifications.schema.js'
import { DiscrepancyKindSchema, DiscrepancyMessageSchema, DiscrepancyParameterSchema, ErrorCommentSchema, ErrorCountsSchema, ErrorHistoryEntrySchema, ErrorSchema } from '../modules/errors/errors.schema.js'
import { GroupInstallmentSchema, NewInstallmentGroup, ProgressStep } from '../modules/group-installments/group-installments.schema.js'
import {
  AgencySchema,
  EmployerInput,
  GroupCoreInput,
  GroupSchema,
  LocationInput,
  LocationSchema,
  NewGroupInput,
  ProducerInput,
  ProducerSchema,
} from '../modules/groups/groups.schema.js'
import { JobAttemptSchema, JobSchema } from '../modules/jobs/jobs.schema.js'
import { CoverageInput, CoverageSchema, ElectionInput, ElectionSchema, LifeEventInputSchema, LifeEventSchema } from '../modules/life-events/life-events.schema.js'
import {
  ClassAssignment,
  DependentInputSchema,
  DependentSchema,
  EmailContact,
  EmploymentDetails,
  MemberSchema,
  PhoneContact,
  SubscriberInputSchema,
  SubscriberSchema,
  SubscriberUpdateSchema,
} from '../modules/members/members.schema.js'
import { PasswordLinkSchema } from '../modules/password-links/password-links.schema.js'
import { PlanSchema } from '../modules/plans/plans.schema.js'
import { ProviderSelectionInputSchema, ProviderSelectionSchema } from '../modules/provider-selections/provider-selections.schema.js'
import { SessionSchema } from '../modules/sessions/sessions.schema.js'
import { UserSchema } from '../modules/users/users.schema.js'
import { DeliverySchema, EventTypeSchema, WatcherInputSchema, WatcherSchema, WatcherUpdateSchema, WatcherWithSecretSchema } from '../modules/watchers/watchers.schema.js'
import { WorkOrderHistoryEntry, WorkOrderSchema, WorkOrderStatus } from '../modules/work-orders/work-orders.schema.js'
import { IsoDate, Timestamp, Uuid } from './schemas.js'

/**
 * The named schemas of the OpenAPI document (`#/components/schemas/<name>`), so generated
 * clients get one type per entity instead of an anonymous copy per operation. Wherever a route's
 * schema contains one of these schemas, the published document refers to it by name
 * (src/http/openapi-document.ts); the route schemas themselves stay plain TypeBox.
 *
 * To name another schema: add it here with its PascalCase entity name (`Group`, not `GroupSchema`);
 * inputs end in `Input` (or `Update` for a partial change). `npm run openapi` regenerates the
 * document and the console types; the OpenAPI tests fail when a component is never used or a large
 * schema is still copied inline in two places.
 */
export const apiComponents = {
  // Scalars: the formats every resource uses.
  IsoDate: IsoDate,
  Timestamp: Timestamp,
  Uuid: Uuid,
  // Values with a name of their own, shared by several resources and filters.
  DiscrepancyKind: DiscrepancyKindSchema,
  DiscrepancyParameter: DiscrepancyParameterSchema,
  EventType: EventTypeSchema,
  WorkOrderStatus: WorkOrderStatus,
  // Answers: the resources as the API returns them, and the parts requests share with them.
  Account: AccountSchema,
  AcknowledgedFunctionalGroup: AcknowledgedGroupSchema,
  Acknowledgement: AcknowledgementSchema,
  Address: AddressSchema,
  Agency: AgencySchema,
  ApiKey: ApiKeySchema,
  AuditEvent: AuditEventSchema,
  Carrier: CarrierSchema,
  CensusRequest: CensusRequestSchema,
  CensusSubscriber: CensusSubscriberSchema,
  ClassAssignment: ClassAssignment,
  Coverage: CoverageSchema,
  CoveragePeriod: CoveragePeriodSchema,
  CoverageTransmission: CoverageTransmissionSchema,
  CreatedApiKey: CreatedApiKeySchema,
  Dependent: DependentSchema,
  DiscrepancyMessage: DiscrepancyMessageSchema,
  EmailContact: EmailContact,
  Election: ElectionSchema,
  EmploymentClassification: EmploymentClassificationSchema,
  EmploymentDetails: EmploymentDetails,
  Error: ErrorSchema,
  ErrorComment: ErrorCommentSchema,
  ErrorCounts: ErrorCountsSchema,
  ErrorHistoryEntry: ErrorHistoryEntrySchema,
  FileDelivery: FileDeliverySchema,
  Group: GroupSchema,
  GroupInstallment: GroupInstallmentSchema,
  InstallmentProgressStep: ProgressStep,
  Job: JobSchema,
  JobAttempt: JobAttemptSchema,
  Location: LocationSchema,
  Member: MemberSchema,
  PasswordLink: PasswordLinkSchema,
  PhoneContact: PhoneContact,
  Plan: PlanSchema,
  Producer: ProducerSchema,
  ProviderSelection: ProviderSelectionSchema,
  QualifyingLifeEvent: LifeEventSchema,
  ReceivedAcknowledgement: ReceivedAcknowledgementSchema,
  Session: SessionSchema,
  Subscriber: SubscriberSchema,
  User: UserSchema,
  Watcher: WatcherSchema,
  WatcherDelivery: DeliverySchema,
  WatcherWithSecret: WatcherWithSecretSchema,
  WorkOrder: WorkOrderSchema,
  WorkOrderHistoryEntry: WorkOrderHistoryEntry,
  // Inputs: what requests send.
  CensusCoverageInput: CensusCoverage,
  CensusDependentInput: CensusDependentInput,
  CensusSubscriberInput: CensusSubscriberInput,
  CoverageInput: CoverageInput,
  DependentInput: DependentInputSchema,
  ElectionInput: ElectionInput,
  EmployerInput: EmployerInput,
  GroupCoreInput: GroupCoreInput,
  GroupInput: NewGroupInput,
  GroupInstallmentInput: NewInstallmentGroup,
  LocationInput: LocationInput,
  ProducerInput: ProducerInput,
  ProviderSelectionInput: ProviderSelectionInputSchema,
  QualifyingLifeEventInput: LifeEventInputSchema,
  SubscriberInput: SubscriberInputSchema,
  SubscriberUpdate: SubscriberUpdateSchema,
  WatcherInput: WatcherInputSchema,
  WatcherUpdate: WatcherUpdateSchema,
} satisfies Record<string, TSchema>
