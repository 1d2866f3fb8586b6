import { ApiError } from "../../platform/errors/api-error";
import type { Config } from "../../platform/config/config";
import type { SourceGateway, SourceRegistry } from "./port";
import { createHttpVendorGateway } from "./http/http-vendor";
import { limitedGateway } from "./limiter";
import { sources, type Source } from "../../domain/sources";

/**
 * The gateway of every source: the HTTP bridge where `SOURCE_<X>_URL` is set, otherwise `fallback`.
 * In Azure the fallback is a disabled source (a deployment never serves simulated data); the local
 * host passes its simulated vendors.
 */
export function createSourceRegistry(
  config: Config,
  fallback: (source: Source) => SourceGateway = disabledSource,
  now: () => Date = () => new Date(),
): SourceRegistry {
  const gateways = new Map<Source, SourceGateway>(
    sources.map((source) => {
      const http = config.httpSources[source];
      const gateway = http ? createHttpVendorGateway({ source, ...http }) : fallback(source);
      // A disabled source answers at once; a live one is held to its vendor's limits.
      return [source, disabled.has(gateway) ? gateway : limitedGateway(gateway, config.sourceLimits[source], () => now().getTime())];
    }),
  );
  return {
    gateway: (source) => gateways.get(source)!,
    isEnabled: (source) => !disabled.has(gateways.get(source)!),
  };
}

const disabled = new WeakSet<SourceGateway>();

/**
 * A source with no bridge configured: every call is 400 EXTENSION_NOT_ENABLED naming it, and the
 * reconciler passes it over.
 */
export function disabledSource(source: Source): SourceGateway {
  const refuse = async (): Promise<never> => {
    throw new ApiError("EXTENSION_NOT_ENABLED", `The ${source} integration is not enabled for this deployment.`, { target: "source" });
  };
  const gateway: SourceGateway = {
    source,
    getIncident: refuse,
    listIncidents: refuse,
    setStatus: refuse,
    setOwner: refuse,
    listComments: refuse,
    addComment: refuse,
    deleteComment: refuse,
    getEvidence: refuse,
    relatedByEntity: refuse,
  };
  disabled.add(gateway);
  return gateway;
}
