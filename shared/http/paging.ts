import { z } from "zod";
import type { Page, PageRequest } from "../store/ports";
import type { Pagination } from "./route";
import type { Principal } from "../auth/principal";
import { invalidPageToken } from "../errors/api-error";
import type { PageTokens } from "./page-token";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Query fields of every paginated list. Spread into the route's query schema. */
export const pageQueryFields = {
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE)
    .describe(`Items per page, 1 to ${MAX_PAGE_SIZE}.`),
  continuationToken: z.string().min(1).optional()
    .describe("The `pagination.continuationToken` of the previous page, unmodified."),
};

interface PagingContext {
  principal: Principal;
  services: { pageTokens: PageTokens };
}

/**
 * Turns a list's query into a store page request. `binding` names the listing and its filters, so a
 * token from one listing cannot be replayed against another.
 */
export function pageRequest(
  ctx: PagingContext,
  query: { pageSize: number; continuationToken?: string },
  binding: string,
): PageRequest {
  if (query.continuationToken === undefined) return { limit: query.pageSize };
  const cursor = ctx.services.pageTokens.read(query.continuationToken, ctx.principal.serviceAccountId, binding);
  if (typeof cursor !== "string") throw invalidPageToken();
  return { limit: query.pageSize, after: cursor };
}

export function pagination<T>(ctx: PagingContext, page: Page<T>, binding: string): Pagination {
  if (page.nextAfter === undefined) return { hasMore: false };
  return {
    hasMore: true,
    continuationToken: ctx.services.pageTokens.issue(ctx.principal.serviceAccountId, binding, page.nextAfter),
  };
}

/** Schema of the `pagination` object, for documentation. */
export const paginationSchema = z.object({
  continuationToken: z.string().optional(),
  hasMore: z.boolean(),
});
