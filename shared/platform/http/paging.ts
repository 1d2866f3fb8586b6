import { z } from "zod";
import type { Page, PageRequest } from "../store/ports";
import type { TokenBinding } from "./page-token";
import type { Pagination } from "./route";
import type { Principal } from "../auth/principal";
import type { Person } from "../auth/person";
import type { PageTokens } from "./page-token";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Query fields of every list paged with `continuationToken`. Spread into the route's query schema. */
export const pageQueryFields = {
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE)
    .describe(`Items per page, 1 to ${MAX_PAGE_SIZE}.`),
  continuationToken: z.string().min(1).max(4096).optional()
    .describe("The `pagination.continuationToken` of the previous page, unmodified."),
};

/** Who is paging: the caller (a service account, or a person in the portal), and the token keys among the services. */
export type PagingContext = { pageTokens: PageTokens } & ({ principal: Principal; person?: undefined } | { person: Person; principal?: undefined });

/**
 * The one binding of every page token: the service account, because what a listing shows follows
 * the account's organization and workspace roles (scopes are checked on every call anyway), and a
 * stored token must survive a credential rotation; and the listing with its filters, so a token
 * cannot be replayed against another listing.
 */
export function bindingOf(ctx: PagingContext, listing: string): TokenBinding {
  // A person's tokens are theirs: bound to their registration, which their portal session may outlive.
  return { identity: ctx.principal ? ctx.principal.serviceAccountId : `user:${ctx.person!.accountId}/${ctx.person!.userId}`, listing };
}

/** A token for the next page of `listing`, whatever its parameter is called. */
export function issuePageToken(ctx: PagingContext, listing: string, cursor: unknown): string {
  return ctx.pageTokens.issue(bindingOf(ctx, listing), cursor);
}

/** A token for the next page of `listing` over bytes of the listing's own encoding. */
export function issuePackedPageToken(ctx: PagingContext, listing: string, bytes: Buffer): string {
  return ctx.pageTokens.issueBytes(bindingOf(ctx, listing), bytes);
}

/** The bytes of a token `issuePackedPageToken` made for `listing`; else the contract's 400 at `target`. */
export function readPackedPageToken(ctx: PagingContext, token: string, listing: string, target: string): Buffer {
  return ctx.pageTokens.readBytes(token, bindingOf(ctx, listing), target);
}

/** The cursor of a token this service issued for `listing`, checked by `schema`; else the contract's 400 at `target`. */
export function readPageToken<S extends z.ZodType>(ctx: PagingContext, token: string, listing: string, schema: S, target: string): z.output<S> {
  return ctx.pageTokens.read(token, bindingOf(ctx, listing), schema, target);
}

const afterCursor = z.object({ after: z.string().min(1) }).strict();

/** A `continuationToken` list's query as a store's keyset page request. */
export function pageRequest(ctx: PagingContext, query: { pageSize: number; continuationToken?: string }, listing: string): PageRequest {
  if (query.continuationToken === undefined) return { limit: query.pageSize };
  const { after } = readPageToken(ctx, query.continuationToken, listing, afterCursor, "continuationToken");
  return { limit: query.pageSize, after };
}

/** The envelope's `pagination` for a store page. */
export function pagination<T>(ctx: PagingContext, page: Page<T>, listing: string): Pagination {
  if (page.nextAfter === undefined) return { hasMore: false };
  return { hasMore: true, continuationToken: issuePageToken(ctx, listing, { after: page.nextAfter }) };
}

/** Schema of the `pagination` object, for documentation. */
export const paginationSchema = z.object({
  continuationToken: z.string().optional(),
  hasMore: z.boolean(),
});
