import { z } from "zod";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../platform/http/paging";
import { gamebookRunStatuses } from "../../model/gamebooks/gamebook-run";
import { ACROSS_PAGE_SIZE } from "../../domain/gamebooks/run-history";
import { gamebookRunView } from "../../domain/gamebooks/gamebook-views";
import { gamebookRunExample } from "../examples/gamebook-examples";

/*
 * The run history's queries and its cross-workspace page, as the contract's routes and the portal's
 * take and answer them. The domain reads the parsed queries (`HistoryQuery`, `AcrossHistoryQuery`).
 */

const text = z.string().trim().min(1).max(256);

/** `GET /gamebooks/history` (docs/contract.md §4.1): `query`, `pageToken`, and the usual `pageSize`. */
export const historyQuery = z.strictObject({
  query: text.optional().describe("Case-insensitive text in the run's title, the incident's title or the submitter's name."),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).describe(`Runs per page, 1 to ${MAX_PAGE_SIZE}.`),
  pageToken: z.string().min(1).max(4096).optional().describe("The `pagination.continuationToken` of the previous page, unmodified."),
});

/** Repeated (`workspaces=a&workspaces=b`) or comma-separated (`workspaces=a,b`), or both. */
function listParameter<T extends z.ZodType<unknown, string>>(item: T, max: number) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== ""))
    .pipe(z.array(item).max(max));
}

/** `GET /gamebooks/across-workspaces/history` (docs/contract.md §4.2). */
export const acrossHistoryQuery = z.strictObject({
  workspaces: listParameter(z.guid(), 1000)
    .optional()
    .describe("Workspace GUIDs, repeated or comma-separated; absent: every workspace mapped to the credential. Workspaces not mapped to it are left out."),
  statuses: listParameter(z.enum(gamebookRunStatuses), gamebookRunStatuses.length)
    .optional()
    .describe(`Run statuses, repeated or comma-separated: ${gamebookRunStatuses.join(", ")}; absent: all.`),
  currentPage: z.coerce.number().int().min(1).max(1_000_000).default(1).describe("The page, 1-based."),
  query: text.optional().describe("Case-insensitive text in the run's title, the incident's title or the submitter's name."),
  pageToken: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      "The `pagination.continuationToken` of page N, sent with `currentPage` N+1 (or later): the page is then read from where page N ended. Without it any page is answered too, found by counting the runs before it in each workspace.",
    ),
});

/** A page of the cross-workspace history, as both the contract's route and the portal's answer it. */
export const acrossHistoryView = z
  .object({
    runs: z.array(gamebookRunView).describe("The page's runs, newest first across the workspaces."),
    currentPage: z.int().describe("The page returned, 1-based."),
    pageSize: z.int().describe(`Runs per page (server-controlled: ${ACROSS_PAGE_SIZE}).`),
    hasMore: z.boolean().describe("True when a next page exists."),
  })
  .meta({ examples: [{ runs: [gamebookRunExample], currentPage: 1, pageSize: ACROSS_PAGE_SIZE, hasMore: true }] });
