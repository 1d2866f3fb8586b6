import { AuditTrail } from "./audit/audit-trail";
import { activeTelemetry } from "./azure/telemetry";
import { Authenticator } from "./auth/authenticator";
import { loadConfig, type Config } from "./config";
import { resolveAllAddresses, type HostResolver } from "./delivery/address-policy";
import { createEventPipeline, inProcessEventQueues, type EventQueues } from "./events/event-pipeline";
import { PageTokens } from "./http/page-token";
import { RateLimiter } from "./http/rate-limit";
import { createJsonLogger, type Logger } from "./logger";
import { queueNames } from "./queue/queue-names";
import type { Services } from "./services";
import type { SourceRegistry } from "./sources/gateway";
import { createSourceRegistry } from "./sources/source-registry";
import { createServiceBusClient, createServiceBusQueueSender } from "./queue/service-bus-queue";
import { createCosmosClient } from "./store/cosmos/cosmos-client";
import { createCosmosStores } from "./store/cosmos/cosmos-stores";
import { createMemoryStores } from "./store/memory/memory-stores";
import type { Stores } from "./store/ports";
import { SecretBox } from "./webhooks/secret-box";

/** What a caller may put in place of the configured adapters: tests, and the local host's simulated systems. */
export interface ServiceOverrides {
  now?: () => Date;
  logger?: Logger;
  stores?: Stores;
  sources?: SourceRegistry;
  resolveHost?: HostResolver;
  /** Extra CA certificates the webhook sender trusts (tests' self-signed receivers). */
  webhookCa?: string;
}

/**
 * The composition root: builds every service from the configuration. Real adapters where the
 * configuration names a real system; an external system with none configured is disabled (its
 * endpoints answer EXTENSION_NOT_ENABLED), never simulated — simulated systems are the local host's
 * (`local/local-services.ts`). The adapters load their Azure SDK when they first build a client, so
 * a cold start pays only for what the deployment uses.
 */
export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  const now = overrides.now ?? (() => new Date());
  // In Azure with telemetry on, log records with fields as dimensions; otherwise JSON lines on stdout.
  const logger = overrides.logger ?? activeTelemetry()?.logger(config.logLevel) ?? createJsonLogger(config.logLevel);
  const stores = overrides.stores ?? createStores(config);
  const secretBox = new SecretBox(config.webhooks.secretsKey);
  const resolveHost = overrides.resolveHost ?? resolveAllAddresses;
  const queues = config.queue.kind === "inprocess" ? inProcessEventQueues(now, logger) : serviceBusQueues(config);
  const pipeline = createEventPipeline({ config, queues, stores, secretBox, now, logger, lookup: overrides.resolveHost, ca: overrides.webhookCa });
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
    sources: overrides.sources ?? createSourceRegistry(config),
    secretBox,
    resolveHost,
    pipeline,
  };
}

function createStores(config: Config): Stores {
  if (config.store === "memory") return createMemoryStores();
  return createCosmosStores(createCosmosClient(config.cosmos).database(config.cosmos.database));
}

function serviceBusQueues(config: Config): EventQueues {
  const client = createServiceBusClient(config.queue.serviceBus);
  return {
    events: createServiceBusQueueSender(client, queueNames.events),
    deliveries: createServiceBusQueueSender(client, queueNames.deliveries),
  };
}

let singleton: Services | undefined;

/** The process-wide services of the Azure Functions host, built on first use from the environment. */
export function getServices(): Services {
  singleton ??= createServices(loadConfig());
  return singleton;
}
