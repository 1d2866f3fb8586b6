import type { PlatformServices } from "../platform/services";
import type { PortalSessions } from "../platform/auth/portal-session";
import type { OidcClient } from "../platform/auth/sign-in";
import type { PageTokens } from "../platform/http/page-token";
import type { EventPipeline } from "../platform/events/event-pipeline";
import type { HostResolver } from "../platform/delivery/address-policy";
import type { CircuitBreakers } from "../platform/upstream/circuit-breaker";
import type { SourceRegistry } from "../systems/vendors/port";
import type { PlaybookActions } from "../systems/playbook-automation/port";
import type { CloudInventory } from "../systems/cloud-inventory/port";
import type { TicketingSystem } from "../systems/itsm/port";
import type { DirectoryLogs } from "../systems/directory-logs/port";
import type { LogAnalytics } from "../systems/log-analytics/port";
import type { DocumentStore } from "../systems/documents/port";
import type { Reconciler } from "./reconciler/reconciler-port";

/**
 * Everything a handler may use: ports and the service's own mechanisms, never an adapter by name.
 * Built once per process by the composition root (`composition.ts`, and `local/local-services.ts`
 * for the local host). The platform's part (`PlatformServices`) is what its pipeline reads; the rest
 * names the systems' ports and the reconciler's, which only this floor and those above it may name.
 */
export interface Services extends PlatformServices {
  sessions: PortalSessions;
  /** The identity provider people sign in with; absent when the deployment configures none (PORTAL_CLIENT_ID). */
  signIn?: OidcClient;
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
  /** Name → addresses, for checking webhook URLs (tests point names at chosen addresses). */
  resolveHost: HostResolver;
  /** Events and webhook delivery: the outbox relay, the queues, the fan-out and delivery handlers. */
  events: EventPipeline;
  /** Reconciler passes, fanned out per workspace on the `reconcile` queue. */
  reconciler: Reconciler;
}

