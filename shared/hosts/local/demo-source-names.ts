import type { Config } from "../../platform/config/config";
import { sources, type Source } from "../../model/sources";

/**
 * What the demo calls its simulated vendors: names like the products a SOC reads incidents from, so
 * that the portal and the events read as they would in a deployment (which names its sources with
 * `SOURCE_<X>_DISPLAY_NAME`). Invented names: no real product is simulated.
 */
const DEMO_SOURCE_NAMES: Record<Source, string> = {
  SourceA: "Northwatch SIEM",
  SourceB: "Falconridge XDR",
  SourceC: "Mailward Email Security",
  SourceD: "Skylens Cloud Posture",
  SourceE: "Keystone Identity Protection",
  SourceF: "Tidewater Network Detection",
  SourceG: "Ledgerline DLP",
};

/**
 * The configuration with the demo's names for the sources the local host simulates (those without a
 * bridge, `SOURCE_<X>_URL`); a name the configuration gives wins, and a bridged source keeps its own.
 */
export function withDemoSourceNames(config: Config): Config {
  const simulated = sources.filter((s) => config.httpSources[s] === undefined);
  const demo = Object.fromEntries(simulated.map((s) => [s, DEMO_SOURCE_NAMES[s]]));
  return { ...config, sourceDisplayNames: { ...demo, ...config.sourceDisplayNames } };
}
