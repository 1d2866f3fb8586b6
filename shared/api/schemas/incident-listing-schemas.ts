import { z } from "zod";
import { publicStatuses, severities } from "../../model/incidents/incident";
import { lastModifiedSources, sourceSchema, sources } from "../../model/sources";
import { incidentSummaryView } from "../../domain/incidents/incident-view";
import { GIVE_UP_AFTER_FAILED_PAGES, MAX_LISTED_WORKSPACES, timeFilterTypes, type TimeFilterSelection } from "../../domain/incidents/cross-workspace-listing";

/*
 * The incident listing's query and page as the contract's `POST /incidents/across-workspaces` takes
 * and answers them, and the filters the portal's queue takes too. They parse to the domain's
 * `AcrossWorkspacesBody` and `IncidentListingFilters`.
 */

const timestamp = z.iso.datetime({ offset: true });

/**
 * The filters an incident listing takes (docs/contract.md §4.2), the same in the contract's listing and in the
 * portal's queue.
 */
export const incidentListingFilters = {
  severities: z.array(z.enum(severities)).max(severities.length).default([]),
  statuses: z.array(z.enum(publicStatuses)).max(publicStatuses.length).default([]),
  sources: z
    .array(sourceSchema())
    .max(sources.length)
    .default([])
    .describe("Empty: every source (with `filterByLastModified`, SourceA and SourceB)."),
  timeFilterSelection: z
    .object({
      type: z.enum(timeFilterTypes),
      customStartUtc: timestamp.optional(),
      customEndUtc: timestamp.optional(),
    })
    .strict()
    .optional()
    .describe("Absent: no time bound."),
  query: z.string().trim().min(1).max(256).optional().describe("Case-insensitive text in the title, the number or an entity name."),
  assigneeEmails: z.array(z.string().trim().min(1).max(320)).max(100).default([]),
  includeUnassigned: z.boolean().default(false),
};

/** A Custom window needs both ends, in order; the others take neither. */
export function checkTimeFilter(t: TimeFilterSelection | undefined, ctx: z.RefinementCtx): void {
  if (t?.type === "Custom") {
    if (!t.customStartUtc) ctx.addIssue({ code: "custom", path: ["timeFilterSelection", "customStartUtc"], message: "Required with Custom." });
    if (!t.customEndUtc) ctx.addIssue({ code: "custom", path: ["timeFilterSelection", "customEndUtc"], message: "Required with Custom." });
    if (t.customStartUtc && t.customEndUtc && Date.parse(t.customStartUtc) >= Date.parse(t.customEndUtc)) {
      ctx.addIssue({ code: "custom", path: ["timeFilterSelection", "customEndUtc"], message: "Must be after customStartUtc." });
    }
  } else if (t && (t.customStartUtc || t.customEndUtc)) {
    ctx.addIssue({ code: "custom", path: ["timeFilterSelection", "type"], message: "customStartUtc and customEndUtc go with type Custom." });
  }
}

/**
 * The listing's query (docs/contract.md §4.2): the filters, and the tokens of the previous page. The service
 * account's `POST /incidents/across-workspaces`.
 */
export const acrossWorkspacesQuery = z
  .object({
    ...incidentListingFilters,
    isFirstCall: z.boolean(),
    workspacePageTokens: z
      .array(z.object({ workspaceId: z.guid(), sourceTokens: z.record(z.string(), z.string().min(1).max(1024)) }).strict())
      .max(MAX_LISTED_WORKSPACES)
      .default([]),
    filterByLastModified: z.boolean().default(false),
  })
  .strict()
  .superRefine((body, ctx) => {
    checkTimeFilter(body.timeFilterSelection, ctx);
    if (body.filterByLastModified) {
      const unsupported = body.sources.filter((s) => !lastModifiedSources.includes(s));
      if (unsupported.length > 0) {
        ctx.addIssue({
          code: "custom",
          path: ["sources"],
          message: `filterByLastModified supports ${lastModifiedSources.join(" and ")} only, not ${unsupported.join(", ")}.`,
        });
      }
    }
    if (body.isFirstCall && body.workspacePageTokens.length > 0) {
      ctx.addIssue({ code: "custom", path: ["workspacePageTokens"], message: "Must be empty when isFirstCall is true." });
    }
    if (!body.isFirstCall && body.workspacePageTokens.length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["workspacePageTokens"],
        message: "Send the previous response's sourcePageTokens unchanged, or start over with isFirstCall true.",
      });
    }
  });

/** The listing's page: its incidents, the tokens to send back, and whether any stream is still open. */
export const acrossWorkspacesPage = z.object({
  incidents: z.array(incidentSummaryView),
  sourcePageTokens: z.array(z.object({ workspaceId: z.string(), sourceTokens: z.record(z.string(), z.string()) })),
  moreIncidentsAvailable: z.boolean(),
});

/** How the listing answers when some workspaces' vendors fail: for the routes' documentation. */
export const PARTIAL_LISTING_DESCRIPTION =
  "**When a vendor fails.** A page holds what the healthy workspaces give; `meta.unavailable` names each workspace and source it could not read, " +
  "with the problem code (`UPSTREAM_ERROR`, `TIMEOUT`, `RATE_LIMITED`) and, where known, `retryAfterSeconds`. A stream that failed keeps its token " +
  "(moved to the back of `sourcePageTokens`), so a later page tries it again and `moreIncidentsAvailable` stays true meanwhile; after " +
  `${GIVE_UP_AFTER_FAILED_PAGES} failed pages in a row it is given up (\`gaveUp\`: its token is dropped). No page waits on vendors longer than the deployment's budget ` +
  "(2.5 s by default): a stream still unanswered then is reported as `TIMEOUT` and tried again on the next page. A workspace whose vendor keeps failing " +
  "is not called for a cool-down (`circuitOpen`). In last-modified mode nothing continues: poll a reported workspace's window again.";
