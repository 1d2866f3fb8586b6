import { ApiError } from "../../platform/errors/api-error";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { sourceSettingsOf, type WorkspaceBridge } from "../../model/organizations/workspace-sources";
import { sources, type Source } from "../../model/sources";
import { createHttpVendorGateway } from "./http/http-vendor";
import { SourceLimiter, TenantLimiters, type SourceLimits } from "./limiter";
import { isDisabledSource, sourceNotEnabledFor, type DeploymentSources, type SourceGateway, type SourceRegistry } from "./port";
import type { VendorIncident } from "../../model/incidents/incident";
import { breakerFailureOf, type CircuitBreakers } from "../../platform/upstream/circuit-breaker";

export interface WorkspaceRoutingOptions {
  /** A workspace's record as the store has it; undefined when there is none (or it was offboarded). */
  readWorkspace(workspaceId: string): Promise<RoutedWorkspace | undefined>;
  /** Opens a sealed bridge Authorization value (the secret box). */
  openSecret(sealed: string): string;
  /** How long a workspace's settings are reused before they are read again; 0 reads them on every call. */
  cacheTtlMs: number;
  /** Per source: the deadline of a call to a workspace's own bridge, and the limits it is held to. */
  timeoutMs: Record<Source, number>;
  limits: Record<Source, SourceLimits>;
  nowMs: () => number;
  /** Every call goes through its source's and its workspace's breakers. */
  breakers: CircuitBreakers;
  /** Injectable for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
}

/** What routing reads of a workspace: its settings per source, and the tenant a vendor may count its limits by. */
type RoutedWorkspace = Pick<WorkspaceRecord, "id" | "sources" | "tenantId">;

/**
 * A gateway and the limiters its calls wait in (none for a disabled source, which answers at once):
 * the source's, and where the vendor counts per tenant, the workspace's tenant's.
 */
interface LimitedGateway {
  gateway: SourceGateway;
  limiter: SourceLimiter | undefined;
  tenant?: { limiters: TenantLimiters; tenantId: string };
}

/** Gateways of workspaces' own bridges kept at once; past it the oldest goes (a bridge whose settings changed, say). */
const MAX_BRIDGE_GATEWAYS = 256;

interface CachedSettings {
  settings: Promise<Pick<RoutedWorkspace, "sources" | "tenantId"> | undefined>;
  at: number;
}

/**
 * The deployment's sources, routed per workspace by the workspace's own settings (see
 * `SourceRegistry`). The settings are read through the store and kept per instance for
 * `cacheTtlMs`, as the authenticators keep what they read; `evict` drops a workspace's copy after a
 * change made on this instance, and a caller that has just read the workspace hands it over with
 * `isEnabledFor`. A workspace's own bridge gets an HTTP vendor gateway of its own, built on first use
 * and kept, held to the source's limits (`SOURCE_<X>_MAX_CONCURRENCY`, `_MAX_RPS`) by a limiter of its
 * own: a bridge that asks to back off speaks for the tenant behind it, not for every workspace. Where
 * the deployment's vendor counts its limits per tenant (`SOURCE_<X>_TENANT_MAX_CONCURRENCY`, `_TENANT_MAX_RPS`),
 * its calls are held to them per workspace tenant as well, and its `Retry-After` holds back the tenant.
 */
export function routeByWorkspace(deployment: DeploymentSources, options: WorkspaceRoutingOptions): SourceRegistry {
  const settingsCache = new Map<string, CachedSettings>();
  const bridges = new Map<string, LimitedGateway>();
  // The deployment's own system of each source is held to the source's limits, one limiter per source;
  // a disabled source answers at once.
  const deploymentLimiters = new Map<Source, SourceLimiter | undefined>(
    sources.map((source) => [source, isDisabledSource(deployment.gateway(source)) ? undefined : new SourceLimiter(options.limits[source], options.nowMs)]),
  );
  const tenantLimiters = new Map<Source, TenantLimiters>(
    sources.flatMap((source) => {
      const perTenant = options.limits[source].perTenant;
      return perTenant && deploymentLimiters.get(source) ? [[source, new TenantLimiters(source, perTenant, options.nowMs)]] : [];
    }),
  );

  const settingsOf = (workspaceId: string): Promise<Pick<RoutedWorkspace, "sources" | "tenantId"> | undefined> => {
    const cached = settingsCache.get(workspaceId);
    if (cached && Date.now() - cached.at < options.cacheTtlMs) return cached.settings;
    const settings = options.readWorkspace(workspaceId).then((w) => w && { sources: w.sources, tenantId: w.tenantId });
    if (options.cacheTtlMs > 0) {
      const entry = { settings, at: Date.now() };
      settingsCache.set(workspaceId, entry);
      // A failed read is not kept: the next call reads again.
      settings.catch(() => {
        if (settingsCache.get(workspaceId) === entry) settingsCache.delete(workspaceId);
      });
    }
    return settings;
  };

  const bridgeGateway = (source: Source, bridge: WorkspaceBridge): LimitedGateway => {
    const key = `${source}\n${bridge.url}\n${bridge.authorization ?? ""}`;
    let gateway = bridges.get(key);
    if (!gateway) {
      let authHeader: string | undefined;
      try {
        authHeader = bridge.authorization === undefined ? undefined : options.openSecret(bridge.authorization);
      } catch (error) {
        throw new ApiError("UPSTREAM_ERROR", `The workspace's ${source} bridge credential cannot be read; set it again.`, { cause: error });
      }
      const http = createHttpVendorGateway({ source, baseUrl: bridge.url, authHeader, timeoutMs: options.timeoutMs[source], fetch: options.fetch });
      gateway = { gateway: http, limiter: new SourceLimiter(options.limits[source], options.nowMs) };
      if (bridges.size >= MAX_BRIDGE_GATEWAYS) bridges.delete(bridges.keys().next().value!);
      bridges.set(key, gateway);
    }
    return gateway;
  };

  /** The gateway that serves one workspace's calls of one source, named as the vendor knows the workspace. */
  const target = async (source: Source, workspaceId: string): Promise<LimitedGateway & { vendorWorkspaceId: string }> => {
    const workspace = await settingsOf(workspaceId);
    const settings = workspace?.sources?.[source];
    if (settings?.enabled === false) throw sourceNotEnabledFor(source, workspaceId);
    const tenants = tenantLimiters.get(source);
    const served: LimitedGateway = settings?.bridge
      ? bridgeGateway(source, settings.bridge)
      : {
          gateway: deployment.gateway(source),
          limiter: deploymentLimiters.get(source),
          ...(tenants && workspace ? { tenant: { limiters: tenants, tenantId: workspace.tenantId } } : {}),
        };
    return { ...served, vendorWorkspaceId: settings?.vendorWorkspaceId ?? workspaceId };
  };

  const routed = new Map<Source, SourceGateway>(sources.map((source) => [source, routingGateway(source, target, options.breakers)]));

  return {
    gateway: (source) => routed.get(source)!,
    isEnabled: (source) => deployment.isEnabled(source),
    isEnabledFor(workspace, source) {
      settingsCache.set(workspace.id, { settings: Promise.resolve({ sources: workspace.sources, tenantId: workspace.tenantId }), at: Date.now() });
      const settings = sourceSettingsOf(workspace, source);
      return settings.enabled && (settings.bridge !== undefined || deployment.isEnabled(source));
    },
    evict(workspaceId) {
      settingsCache.delete(workspaceId);
    },
  };
}

/**
 * One source's gateway for every workspace: each call finds the gateway serving the workspace it
 * names, calls it with the vendor's identifier of the workspace through the source's and the
 * workspace's circuit breakers, and gives the incidents back under the service's identifier, as the
 * callers asked for them.
 */
function routingGateway(
  source: Source,
  target: (source: Source, workspaceId: string) => Promise<LimitedGateway & { vendorWorkspaceId: string }>,
  breakers: CircuitBreakers,
): SourceGateway {
  type Call<T> = (gateway: SourceGateway, vendorWorkspaceId: string, signal?: AbortSignal) => Promise<T>;
  /**
   * Runs `call` on the gateway serving `workspaceId`, through its breakers. A change at the vendor is a
   * write of the request that makes it: the domain starts it through the request's deadline
   * (`commitWithin`), with the caller's own signal, so that no deadline cuts it off mid-call.
   */
  const via = async <T>(workspaceId: string, signal: AbortSignal | undefined, call: Call<T>) => {
    const { gateway, limiter, tenant, vendorWorkspaceId } = await target(source, workspaceId);
    // A tenant the vendor asked to wait is refused before the breakers: keeping the vendor's word is
    // no failure of the vendor's or of the workspace's.
    tenant?.limiters.refuseWhileHeld(tenant.tenantId);
    // Through the breakers first (a refusal never waits in line), then the vendor's limits, the
    // tenant's before the source's (a call waiting for its tenant holds no place of the source's):
    // the call counts as unanswered from when it is sent, not while it waits for a place.
    const result = await breakers.call({ system: source, workspaceId }, async (bs, inLine) => {
      const leaveTenant = tenant && (await inLine(tenant.limiters.enter(tenant.tenantId, bs)));
      let leave: (() => void) | undefined;
      try {
        leave = limiter && (await inLine(limiter.enter(bs)));
        return await call(gateway, vendorWorkspaceId, bs);
      } catch (error) {
        const retryAfterMs = tenant && breakerFailureOf(error, bs)?.retryAfterMs;
        if (retryAfterMs) tenant.limiters.holdBack(tenant.tenantId, retryAfterMs);
        throw error;
      } finally {
        leave?.();
        leaveTenant?.();
      }
    }, signal);
    return { vendorWorkspaceId, result };
  };
  const ours = (workspaceId: string, vendorWorkspaceId: string) => (incident: VendorIncident): VendorIncident =>
    incident.workspaceId === vendorWorkspaceId && vendorWorkspaceId !== workspaceId ? { ...incident, workspaceId } : incident;
  const oneIncident = async (workspaceId: string, signal: AbortSignal | undefined, call: Call<VendorIncident>) => {
    const { vendorWorkspaceId, result } = await via(workspaceId, signal, call);
    return ours(workspaceId, vendorWorkspaceId)(result);
  };
  return {
    source,
    getIncident: (workspaceId, incidentId, signal) => oneIncident(workspaceId, signal, (g, w, s) => g.getIncident(w, incidentId, s)),
    async listIncidents(query, signal) {
      const { vendorWorkspaceId, result: page } = await via(query.workspaceId, signal, (g, w, s) => g.listIncidents({ ...query, workspaceId: w }, s));
      return vendorWorkspaceId === query.workspaceId ? page : { ...page, items: page.items.map(ours(query.workspaceId, vendorWorkspaceId)) };
    },
    setStatus: (workspaceId, incidentId, status, signal) => oneIncident(workspaceId, signal, (g, w, s) => g.setStatus(w, incidentId, status, s)),
    setOwner: (workspaceId, incidentId, owner, signal) => oneIncident(workspaceId, signal, (g, w, s) => g.setOwner(w, incidentId, owner, s)),
    listComments: async (workspaceId, incidentId, signal) => (await via(workspaceId, signal, (g, w, s) => g.listComments(w, incidentId, s))).result,
    addComment: async (workspaceId, incidentId, comment, signal) => (await via(workspaceId, signal, (g, w, s) => g.addComment(w, incidentId, comment, s))).result,
    updateComment: async (workspaceId, incidentId, commentId, comment, signal) =>
      (await via(workspaceId, signal, (g, w, s) => g.updateComment(w, incidentId, commentId, comment, s))).result,
    deleteComment: async (workspaceId, incidentId, commentId, signal) => (await via(workspaceId, signal, (g, w, s) => g.deleteComment(w, incidentId, commentId, s))).result,
    getEvidence: async (workspaceId, incidentId, signal) => (await via(workspaceId, signal, (g, w, s) => g.getEvidence(w, incidentId, s))).result,
    async relatedByEntity(query, signal) {
      const { vendorWorkspaceId, result: items } = await via(query.workspaceId, signal, (g, w, s) => g.relatedByEntity({ ...query, workspaceId: w }, s));
      return vendorWorkspaceId === query.workspaceId ? items : items.map(ours(query.workspaceId, vendorWorkspaceId));
    },
  };
}
