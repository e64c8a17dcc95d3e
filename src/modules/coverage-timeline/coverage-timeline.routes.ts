import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { sendJsonText } from '../../http/json-text.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { MemberCoverageList, MemberCoveragesQuery } from './coverage-timeline.schema.js'
import type { CoverageTimelineService } from './coverage-timeline.service.js'

export function coverageTimelineRoutes(app: App, timeline: CoverageTimelineService): void {
  app.get(
    '/members/:id/coverages',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listMemberCoverages',
        summary: "Read a member's coverage in force on a date, or its history",
        description:
          'Coverage is effective-dated (api-contract.md section 10): each qualifying life event replaces, from its start ' +
          'dates, what the member had in force on each line; an end date or a waiver ends it; an end date the day before ' +
          'the start cancels a coverage that never took effect. `as_of=YYYY-MM-DD` (default today, UTC) answers what is in ' +
          'force that day, at most one coverage per line; `as_of=all` answers every coverage the member has had, by line ' +
          'and start date. `coverage_level` counts only the family members covered on those dates, so a coverage is split ' +
          'where the family on the plan changes.',
        tags: ['Members'],
        params: IdParams,
        querystring: MemberCoveragesQuery,
        response: { 200: MemberCoverageList, ...problemResponses('validation_failed', 'member_not_found') },
      },
    },
    // Already JSON text (coverage-timeline.repo.ts), checked against MemberCoverageList by the tests.
    async (request, reply) => sendJsonText(reply, 200, await timeline.memberCoverages(requireActor(request), request.params.id, request.query.as_of)),
  )
}
