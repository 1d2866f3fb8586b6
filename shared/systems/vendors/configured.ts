import type { Config } from "../../platform/config/config";
import { disabledSource, isDisabledSource, type DeploymentSources, type SourceGateway, type SourceRegistry } from "./port";
import { createHttpVendorGateway } from "./http/http-vendor";
import { routeByWorkspace, type WorkspaceRoutingOptions } from "./workspace-routing";
import { sources, type Source } from "../../model/sources";

/**
 * The gateway of every source: the HTTP bridge where `SOURCE_<X>_URL` is set, otherwise `fallback`.
 * In Azure the fallback is the port's disabled source (a deployment never serves simulated data);
 * the local host passes its simulated vendors.
 */
export function createSourceRegistry(
  config: Config,
  fallback: (source: Source) => SourceGateway = disabledSource,
): DeploymentSources {
  // Each is held to its vendor's limits where the calls are routed (`routeByWorkspace`).
  const gateways = new Map<Source, SourceGateway>(
    sources.map((source) => {
      const http = config.httpSources[source];
      return [source, http ? createHttpVendorGateway({ source, ...http }) : fallback(source)];
    }),
  );
  return {
    gateway: (source) => gateways.get(source)!,
    isEnabled: (source) => !isDisabledSource(gateways.get(source)!),
  };
}

/** A workspace's own bridge waits this long per call when the deployment has no bridge of its own for the source. */
const DEFAULT_BRIDGE_TIMEOUT_MS = 10_000;

/**
 * The deployment's sources as the service uses them: each call routed by its workspace's own settings
 * (`routeByWorkspace`): switched off, its own bridge, the vendor's identifier of the workspace. Its
 * own bridge keeps the source's deadline (`SOURCE_<X>_TIMEOUT_MS` where the deployment has a bridge
 * for it) and limits.
 */
export function routeSourcesByWorkspace(
  deployment: DeploymentSources,
  config: Config,
  options: Pick<WorkspaceRoutingOptions, "readWorkspace" | "openSecret" | "fetch" | "breakers"> & { now: () => Date },
): SourceRegistry {
  return routeByWorkspace(deployment, {
    ...options,
    cacheTtlMs: config.principalCacheTtlMs,
    timeoutMs: Object.fromEntries(sources.map((s) => [s, config.httpSources[s]?.timeoutMs ?? DEFAULT_BRIDGE_TIMEOUT_MS])) as Record<Source, number>,
    limits: config.sourceLimits,
    nowMs: () => options.now().getTime(),
  });
}
