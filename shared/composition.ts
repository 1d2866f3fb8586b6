import { Authenticator } from "./auth/authenticator";
import { createCloudInventory } from "./cloud-inventory/configured-inventory";
import type { CloudInventory } from "./cloud-inventory/cloud-inventory";
import { loadConfig, type Config } from "./config";
import { resolveAllAddresses, type HostResolver } from "./delivery/address-policy";
import { createGuardedSender } from "./delivery/guarded-sender";
import { createEventPipeline, type EventQueues } from "./events/event-pipeline";
import type { EventMessage, GamebookRunMessage } from "./store/records";
import { createRunExecutor } from "./gamebooks/run-executor";
import type { DeliveryMessage } from "./delivery/delivery-message";
import { InProcessQueue } from "./queue/in-process-queue";
import { PageTokens } from "./http/page-token";
import { createPlaybookActions } from "./playbook-actions/configured-playbook-actions";
import type { PlaybookActions } from "./playbook-actions/playbook-action-port";
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
import { SecretBox } from "./delivery/secret-box";

/** What a caller may put in place of the configured adapters: tests, and the local host's simulated systems. */
export interface ServiceOverrides {
  now?: () => Date;
  logger?: Logger;
  stores?: Stores;
  sources?: SourceRegistry;
  playbookActions?: PlaybookActions;
  cloud?: CloudInventory;
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
  const logger = overrides.logger ?? createJsonLogger(config.logLevel);
  const stores = overrides.stores ?? createStores(config);
  const secretBox = new SecretBox(config.webhooks.secretsKey);
  const resolveHost = overrides.resolveHost ?? resolveAllAddresses;
  const queues = config.queue.kind === "inprocess" ? inProcessEventQueues(now, logger) : serviceBusQueues(config);
  const sender = createGuardedSender({
    timeoutMs: config.webhooks.timeoutMs,
    maxResponseBytes: MAX_WEBHOOK_RESPONSE_BYTES,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    lookup: overrides.resolveHost,
    ca: overrides.webhookCa,
  });
  const events = createEventPipeline({ config, queues, stores, secretBox, sender, now, logger });
  const services: Services = {
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
    sources: overrides.sources ?? createSourceRegistry(config),
    playbookActions: overrides.playbookActions ?? createPlaybookActions(config),
    cloud: overrides.cloud ?? createCloudInventory(config),
    secretBox,
    resolveHost,
    events,
  };
  // In Azure the executor is the `gamebook-executor` Service Bus trigger; here it runs in process.
  queues.inProcess?.gamebookRuns.subscribe(createRunExecutor({ services }).handle);
  return services;
}

function createStores(config: Config): Stores {
  if (config.store === "memory") return createMemoryStores();
  return createCosmosStores(createCosmosClient(config.cosmos).database(config.cosmos.database));
}

/** Response bytes read from a webhook receiver before the rest is dropped (contract 8: 1 MB). */
const MAX_WEBHOOK_RESPONSE_BYTES = 1024 * 1024;

/** In-process queues, for the embedded default and tests: the handlers run in this process. */
function inProcessEventQueues(now: () => Date, logger: Logger): EventQueues {
  const inProcess = {
    events: new InProcessQueue<EventMessage>({ name: queueNames.events, now, logger }),
    deliveries: new InProcessQueue<DeliveryMessage>({ name: queueNames.deliveries, now, logger }),
    // One playbook per message, which may wait on the automation backend for minutes: the lock lasts
    // as long as the Functions host renews a live handler's (maxAutoLockRenewalDuration, 5 minutes).
    gamebookRuns: new InProcessQueue<GamebookRunMessage>({ name: queueNames.gamebookRuns, now, logger, lockDurationMs: 5 * 60_000 }),
  };
  return { ...inProcess, inProcess };
}

function serviceBusQueues(config: Config): EventQueues {
  const client = createServiceBusClient(config.queue.serviceBus);
  return {
    events: createServiceBusQueueSender(client, queueNames.events),
    deliveries: createServiceBusQueueSender(client, queueNames.deliveries),
    gamebookRuns: createServiceBusQueueSender(client, queueNames.gamebookRuns),
  };
}

let singleton: Services | undefined;

/** The process-wide services of the Azure Functions host, built on first use from the environment. */
export function getServices(): Services {
  singleton ??= createServices(loadConfig());
  return singleton;
}
