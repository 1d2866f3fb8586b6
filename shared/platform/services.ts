import type { Authenticator } from "./auth/authenticator";
import type { People } from "./auth/people";
import type { PortalSessions } from "./auth/portal-session";
import type { OidcClient } from "./auth/sign-in";
import type { Config } from "./config/config";
import type { PageTokens } from "./http/page-token";
import type { RateLimiter } from "./http/rate-limit";
import type { Logger } from "./logger";
import type { Stores } from "./store/ports";
import type { SecretBox } from "./delivery/secret-box";
import type { EventPipeline } from "./events/event-pipeline";
import type { Reconciler } from "../domain/reconciler/reconciler-port";
import type { HostResolver } from "./delivery/address-policy";
import type { SourceRegistry } from "../systems/vendors/port";
import type { CircuitBreakers } from "./upstream/circuit-breaker";
import type { PlaybookActions } from "../systems/playbook-automation/port";
import type { CloudInventory } from "../systems/cloud-inventory/port";
import type { TicketingSystem } from "../systems/itsm/port";
import type { DirectoryLogs } from "../systems/directory-logs/port";
import type { LogAnalytics } from "../systems/log-analytics/port";
import type { DocumentStore } from "../systems/documents/port";

/**
 * Everything a handler may use: ports and the service's own mechanisms, never an adapter by name.
 * Built once per process by the composition root (`composition.ts`, and `local/local-services.ts`
 * for the local host).
 */
export interface Services {
  config: Config;
  now: () => Date;
  logger: Logger;
  stores: Stores;
  auth: Authenticator;
  /** People signed in to the portal: their sessions, and who they are in the service. */
  people: People;
  sessions: PortalSessions;
  /** The identity provider people sign in with; absent when the deployment configures none (PORTAL_CLIENT_ID). */
  signIn?: OidcClient;
  rateLimiter: RateLimiter;
  pageTokens: PageTokens;
  sources: SourceRegistry;
  /** The process's circuit breakers over the upstream systems the service fans out to (per source, per workspace). */
  breakers: CircuitBreakers;
  /** The automation backend that runs playbook steps against users, hosts, addresses... */
  playbookActions: PlaybookActions;
  /** Subscriptions, resource groups, workspaces and network security groups (organization lookups). */
  cloud: CloudInventory;
  /** The ITSM tickets are escalated to. */
  ticketing: TicketingSystem;
  /** Sign-in and directory audit logs of the workspaces' tenants. */
  directoryLogs: DirectoryLogs;
  /** Data connectors, ingestion volumes and tables of the workspaces' Log Analytics workspaces. */
  logAnalytics: LogAnalytics;
  /** The workspaces' SOP documents (standard operating procedures), kept as uploaded. */
  documents: DocumentStore;
  secretBox: SecretBox;
  /** Name → addresses, for checking webhook URLs (tests point names at chosen addresses). */
  resolveHost: HostResolver;
  /** Events and webhook delivery: the outbox relay, the queues, the fan-out and delivery handlers. */
  events: EventPipeline;
  /** Reconciler passes, fanned out per workspace on the `reconcile` queue. */
  reconciler: Reconciler;
}

