import { AuditTrail } from "./audit/audit-trail";
import { Authenticator } from "./auth/authenticator";
import { loadConfig, type Config } from "./config";
import { PageTokens } from "./http/page-token";
import { RateLimiter } from "./http/rate-limit";
import { createJsonLogger, type Logger } from "./logger";
import { createCosmosClient } from "./store/cosmos/cosmos-client";
import { createCosmosStores } from "./store/cosmos/cosmos-stores";
import { createMemoryStores } from "./store/memory/memory-stores";
import type { Stores } from "./store/ports";
import { buildDemoData } from "./local/demo-data";
import { SecretBox } from "./webhooks/secret-box";
import { createEventPipeline, type EventPipeline } from "./events/event-pipeline";
import { resolveAllAddresses, type HostResolver } from "./delivery/address-policy";
import { createSourceRegistry, type SourceRegistry } from "./sources/source-registry";

/** Everything a handler may use. Built once per process by the composition root below. */
export interface Services {
  config: Config;
  now: () => Date;
  logger: Logger;
  stores: Stores;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  pageTokens: PageTokens;
  audit: AuditTrail;
  sources: SourceRegistry;
  secretBox: SecretBox;
  /** Name → addresses, for checking webhook URLs (tests point names at chosen addresses). */
  resolveHost: HostResolver;
  /** Events and webhook delivery: queues, outbox relay, fan-out and delivery handlers. */
  pipeline: EventPipeline;
}

export interface ServiceOverrides {
  now?: () => Date;
  logger?: Logger;
  stores?: Stores;
  sources?: SourceRegistry;
  resolveHost?: HostResolver;
  /** Extra CA certificates the webhook sender trusts (tests' self-signed receivers). */
  webhookCa?: string;
}

export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  const now = overrides.now ?? (() => new Date());
  const logger = overrides.logger ?? createJsonLogger(config.logLevel);
  const stores = overrides.stores ?? createStores(config);
  const secretBox = new SecretBox(config.webhooks.secretsKey);
  const resolveHost = overrides.resolveHost ?? resolveAllAddresses;
  const pipeline = createEventPipeline({ config, stores, secretBox, now, logger, lookup: overrides.resolveHost, ca: overrides.webhookCa });
  return {
    config,
    now,
    logger,
    stores,
    auth: new Authenticator({
      stores,
      secretHashKey: config.secretHashKey,
      cacheTtlMs: config.principalCacheTtlMs,
      now,
      logger,
    }),
    rateLimiter: new RateLimiter({ capacity: config.rateLimit.burst, refillPerSecond: config.rateLimit.perSecond }),
    pageTokens: new PageTokens(config.pageTokenKey),
    audit: new AuditTrail(stores.audit, now, logger),
    sources: overrides.sources ?? createSourceRegistry(config, simulatedWorld(config, now()), now),
    secretBox,
    resolveHost,
    pipeline,
  };
}

function createStores(config: Config): Stores {
  if (config.store === "memory") return createMemoryStores();
  const client = createCosmosClient(config.cosmos);
  return createCosmosStores(client.database(config.cosmos.database));
}

/** The simulated vendors serve the demo organization's workspaces, owned by its users. */
function simulatedWorld(config: Config, now: Date) {
  const demo = buildDemoData(config.demoSeed, now, config.demoWorkspaces);
  return {
    seed: config.demoSeed,
    workspaces: demo.workspaces,
    owners: demo.users.map((u) => ({ userId: u.id, email: u.email, name: u.displayName })),
  };
}

let singleton: Services | undefined;

/** The process-wide services of the Azure Functions host, built on first use from the environment. */
export function getServices(): Services {
  singleton ??= createServices(loadConfig());
  return singleton;
}
