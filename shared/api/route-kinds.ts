import {
  routeKinds,
  type OrganizationInput as OrganizationInputOf,
  type PersonInput as PersonInputOf,
  type PersonWorkspaceInput as PersonWorkspaceInputOf,
  type PublicInput as PublicInputOf,
  type WorkspaceInput as WorkspaceInputOf,
} from "../platform/http/route";
import type { Services } from "../domain/services";

/*
 * The route kinds every endpoint group declares its routes with, their handlers receiving the whole
 * record of services (`Services`: the platform's mechanisms, the systems' ports, the reconciler). The
 * platform's pipeline serves them knowing only its own part of that record.
 */

export const { publicRoute, organizationRoute, workspaceRoute, personRoute, personWorkspaceRoute } = routeKinds<Services>();

/** What every handler gets: the services, by name, and the request's validated parameters and parts. */
export type PublicInput<P, Q, B> = PublicInputOf<Services, P, Q, B>;
/** The input of a service account's call. */
export type OrganizationInput<P, Q, B> = OrganizationInputOf<Services, P, Q, B>;
/** The input of a service account's call on `/workspaces/{workspaceId}/…`. */
export type WorkspaceInput<P, Q, B> = WorkspaceInputOf<Services, P, Q, B>;
/** The input of a portal route. */
export type PersonInput<P, Q, B> = PersonInputOf<Services, P, Q, B>;
/** The input of a portal route on `/portal/workspaces/{workspaceId}/…`. */
export type PersonWorkspaceInput<P, Q, B> = PersonWorkspaceInputOf<Services, P, Q, B>;

/** A service account's call when its parameters do not matter: what helpers of a route group take. */
export type RequestContext = OrganizationInput<unknown, unknown, unknown>;
/** The same on a workspace route. */
export type WorkspaceRequestContext = WorkspaceInput<unknown, unknown, unknown>;
