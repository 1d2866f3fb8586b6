import { activeTelemetry } from "./telemetry";
import { People } from "../platform/auth/people";
import { createOidcClient } from "../platform/auth/oidc/oidc-client";
import { PortalSessions } from "../platform/auth/portal-session";
import { Authenticator } from "../platform/auth/authenticator";
import { createCloudInventory } from "../systems/cloud-inventory/configured";
import type { CloudInventory } from "../systems/cloud-inventory/port";
import { loadConfig, type Config } from "../platform/config/config";
import { nameSources } from "../model/sources";
import { resolveAllAddresses, type HostResolver } from "../platform/delivery/address-policy";
import { createGuardedSender, type GuardedSender } from "../platform/delivery/guarded-sender";
import { createEventPipeline, type EventQueues } from "../platform/events/event-pipeline";
import type { EventMessage } from "../platform/events/event-message";
import type { GamebookRunsMessage } from "../model/gamebooks/gamebook-run";
import { createRunExecutor } from "../domain/gamebooks/run-executor";
import type { DeliveryMessage } from "../platform/delivery/delivery-message";
import { InProcessQueue } from "../platform/queue/in-process/in-process-queue";
import type { ReconcileMessage } from "../domain/reconciler/reconciler-port";
import { ReconcileRunner } from "../domain/reconciler/reconcile-runner";
import { PageTokens } from "../platform/http/page-token";
import { CircuitBreakers } from "../platform/upstream/circuit-breaker";
import { createPlaybookActions } from "../systems/playbook-automation/configured";
import type { PlaybookActions } from "../systems/playbook-automation/port";
import { RateLimiter } from "../platform/http/rate-limit";
import { createJsonLogger, type Logger } from "../platform/logger";
import { queueNames } from "../platform/queue/queue-names";
import type { Services } from "../domain/services";
import type { DeploymentSources } from "../systems/vendors/port";
import { createSourceRegistry, routeSourcesByWorkspace } from "../systems/vendors/configured";
import { createServiceBusQueueSender, serviceBusClientOnFirstUse, type ServiceBusClientSource } from "../platform/queue/service-bus/service-bus-queue";
import { createCosmosClient } from "../platform/store/cosmos/cosmos-client";
import { createCosmosStores } from "../platform/store/cosmos/cosmos-stores";
import { createMemoryStores } from "../platform/store/memory/memory-stores";
import type { Stores } from "../platform/store/ports";
import { SecretBox } from "../platform/delivery/secret-box";
import { createTicketingSystem } from "../systems/itsm/configured";
import type { TicketingSystem } from "../systems/itsm/port";
import { createDirectoryLogs } from "../systems/directory-logs/configured";
import type { DirectoryLogs } from "../systems/directory-logs/port";
import { createLogAnalytics, withCircuitBreakers } from "../systems/log-analytics/configured";
import type { LogAnalytics } from "../systems/log-analytics/port";
import { createDocumentStore } from "../systems/documents/configured";
import type { DocumentStore } from "../systems/documents/port";

/** What a caller may put in place of the configured adapters: tests, and the local host's simulated systems. */
export interface ServiceOverrides {
  now?: () => Date;
  logger?: Logger;
  stores?: Stores;
  /** The deployment's sources; the service routes each call by its workspace's settings over them. */
  sources?: DeploymentSources;
  playbookActions?: PlaybookActions;
  cloud?: CloudInventory;
  ticketing?: TicketingSystem;
  directoryLogs?: DirectoryLogs;
  logAnalytics?: LogAnalytics;
  documents?: DocumentStore;
  resolveHost?: HostResolver;
  /** Extra CA certificates the webhook sender trusts (tests' self-signed receivers). */
  webhookCa?: string;
  /** The webhook sender itself (probes that count the service's own operations, not the receiver's). */
  webhookSender?: GuardedSender;
}

/**
 * The composition root: builds every service from the configuration. Each external system's adapter
 * is chosen by its folder's `configured.ts` (`create<System>(config, fallback)`): the real adapter
 * where the configuration names a real system, otherwise the port's disabled one (its endpoints
 * answer EXTENSION_NOT_ENABLED), never simulated — simulated systems are the local host's, passed as
 * overrides (`local/local-services.ts`). The adapters load their Azure SDK when they first build a
 * client, so a cold start pays only for what the deployment uses.
 */
export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  nameSources(config.sourceDisplayNames);
  const now = overrides.now ?? (() => new Date());
  // In Azure with telemetry on, log records with fields as dimensions; otherwise JSON lines on stdout.
  const logger = overrides.logger ?? activeTelemetry()?.logger(config.logLevel) ?? createJsonLogger(config.logLevel);
  const stores = overrides.stores ?? createStores(config, now);
  const secretBox = new SecretBox(config.webhooks.secretsKey);
  const resolveHost = overrides.resolveHost ?? resolveAllAddresses;
  // One Service Bus client per process: it owns the AMQP connection every sender shares. It is created,
  // and the SDK loaded, on the first send or ping, so a request that sends nothing never loads them.
  const serviceBus = config.queue.kind === "servicebus" ? serviceBusClientOnFirstUse(config.queue.serviceBus) : undefined;
  const queues = serviceBus ? serviceBusQueues(serviceBus) : inProcessEventQueues(now, logger);
  const sender = overrides.webhookSender ?? createGuardedSender({
    timeoutMs: config.webhooks.timeoutMs,
    maxResponseBytes: MAX_WEBHOOK_RESPONSE_BYTES,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    lookup: overrides.resolveHost,
    ca: overrides.webhookCa,
  });
  const events = createEventPipeline({ config, queues, stores, secretBox, sender, now, logger });
  // The reconciler's runner reads the services when a pass runs, after they are built.
  const reconciler = createReconciler(config, serviceBus, () => services, now, logger);
  const sessions = new PortalSessions(config.portalSessions);
  const breakers = new CircuitBreakers({ logger, nowMs: () => now().getTime() });
  const services: Services = {
    config,
    now,
    logger,
    stores,
    sessions,
    people: new People({ stores, sessions, cacheTtlMs: config.principalCacheTtlMs, now }),
    signIn: config.portalSignIn && createOidcClient(config.portalSignIn, { now }),
    auth: new Authenticator({
      stores,
      secretHashKey: config.secretHashKey,
      cacheTtlMs: config.principalCacheTtlMs,
      now,
      logger,
    }),
    rateLimiter: new RateLimiter({ capacity: config.rateLimit.burst, refillPerSecond: config.rateLimit.perSecond }),
    pageTokens: new PageTokens(config.pageTokenKey),
    sources: routeSourcesByWorkspace(overrides.sources ?? createSourceRegistry(config), config, {
      readWorkspace: (workspaceId) => stores.workspaces.get(workspaceId),
      openSecret: (sealed) => secretBox.open(sealed),
      breakers,
      now,
    }),
    breakers,
    playbookActions: overrides.playbookActions ?? createPlaybookActions(config),
    cloud: overrides.cloud ?? createCloudInventory(config),
    ticketing: overrides.ticketing ?? createTicketingSystem(config),
    directoryLogs: overrides.directoryLogs ?? createDirectoryLogs(config),
    // Each workspace's calls through its breakers, as the sources' are in their routing.
    logAnalytics: withCircuitBreakers(overrides.logAnalytics ?? createLogAnalytics(config), breakers),
    documents: overrides.documents ?? createDocumentStore(config),
    secretBox,
    resolveHost,
    events,
    reconciler,
  };
  // In Azure the executor is the `gamebook-executor` Service Bus trigger; here it runs in process.
  queues.inProcess?.gamebookRuns.subscribe(createRunExecutor({ services }).handle);
  return services;
}

/** The reconciler's queue: in-process with bounded concurrency on the embedded default, Service Bus otherwise. */
function createReconciler(config: Config, serviceBus: ServiceBusClientSource | undefined, services: () => Services, now: () => Date, logger: Logger): ReconcileRunner {
  if (serviceBus) return new ReconcileRunner(services, createServiceBusQueueSender<ReconcileMessage>(serviceBus, queueNames.reconcile));
  const queue = new InProcessQueue<ReconcileMessage>({ name: queueNames.reconcile, now, logger, maxConcurrentCalls: config.reconcileConcurrency });
  const runner = new ReconcileRunner(services, queue);
  queue.subscribe(runner.handler);
  return runner;
}

/** The configured stores; the memory store expires what it keeps by `now`, the service's own clock. */
export function createStores(config: Config, now: () => Date = () => new Date()): Stores {
  const audit = { retentionDays: config.auditRetentionDays };
  if (config.store === "memory") return createMemoryStores({ audit, now: () => now().getTime() });
  return createCosmosStores(createCosmosClient(config.cosmos).database(config.cosmos.database), { audit });
}

/** Response bytes read from a webhook receiver before the rest is dropped (docs/contract.md §8: 1 MB). */
const MAX_WEBHOOK_RESPONSE_BYTES = 1024 * 1024;

/** In-process queues, for the embedded default and tests: the handlers run in this process. */
function inProcessEventQueues(now: () => Date, logger: Logger): EventQueues {
  const inProcess = {
    events: new InProcessQueue<EventMessage>({ name: queueNames.events, now, logger }),
    deliveries: new InProcessQueue<DeliveryMessage>({ name: queueNames.deliveries, now, logger }),
    // One playbook per message, which may wait on the automation backend for minutes: the lock lasts
    // as long as the Functions host renews a live handler's (maxAutoLockRenewalDuration, 5 minutes).
    gamebookRuns: new InProcessQueue<GamebookRunsMessage>({ name: queueNames.gamebookRuns, now, logger, lockDurationMs: 5 * 60_000 }),
  };
  return { ...inProcess, inProcess };
}

function serviceBusQueues(client: ServiceBusClientSource): EventQueues {
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
