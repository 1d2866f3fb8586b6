import type { Config } from "../../platform/config/config";
import { disabledSource, isDisabledSource, type SourceGateway, type SourceRegistry } from "./port";
import { createHttpVendorGateway } from "./http/http-vendor";
import { limitedGateway } from "./limiter";
import { sources, type Source } from "../../domain/sources";

/**
 * The gateway of every source: the HTTP bridge where `SOURCE_<X>_URL` is set, otherwise `fallback`.
 * In Azure the fallback is the port's disabled source (a deployment never serves simulated data);
 * the local host passes its simulated vendors.
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
      return [source, isDisabledSource(gateway) ? gateway : limitedGateway(gateway, config.sourceLimits[source], () => now().getTime())];
    }),
  );
  return {
    gateway: (source) => gateways.get(source)!,
    isEnabled: (source) => !isDisabledSource(gateways.get(source)!),
  };
}
