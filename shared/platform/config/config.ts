import { randomBytes } from "node:crypto";
import { z } from "zod";
import { checkCloudEnv, cloudConfigOf, cloudEnv, type CloudConfig } from "./cloud-config";
import { checkPortalSignInEnv, portalSignInEnv, portalSignInOf } from "./portal-sign-in-config";
import type { OidcSettings } from "../auth/sign-in";
import { sources, sourceSettingKey, type Source } from "../../model/sources";
import { DEFAULT_AUDIT_RETENTION_DAYS } from "../../model/audit/audit-event";

const bool = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1");

/** A key given as base64 (or hex) of at least 32 bytes. */
const key = z
  .string()
  .transform((v) => Buffer.from(v, /^[0-9a-fA-F]+$/.test(v) ? "hex" : "base64"))
  .refine((b) => b.length >= 32, "must encode at least 32 bytes (base64 or hex)");

const positiveInt = z.coerce.number().int().positive();

/** `key=value,key=value` into an object; every key and value checked, at least one pair. */
function pairs<V extends string>(keySchema: z.ZodType<string>, valueSchema: z.ZodType<V>) {
  return z.string().transform((text, ctx) => {
    const out: Record<string, V> = {};
    for (const pair of text.split(",").map((p) => p.trim()).filter(Boolean)) {
      const at = pair.indexOf("=");
      const key = keySchema.safeParse(pair.slice(0, Math.max(0, at)).trim());
      const value = valueSchema.safeParse(pair.slice(at + 1).trim());
      if (at < 1 || !key.success || !value.success) {
        ctx.addIssue({ code: "custom", message: `"${pair.slice(0, 80)}" is not a valid key=value pair` });
        return z.NEVER;
      }
      out[key.data] = value.data;
    }
    if (Object.keys(out).length === 0) ctx.addIssue({ code: "custom", message: "give at least one key=value pair" });
    return out;
  });
}

const WORKSPACE_RESOURCE_ID = /^\/subscriptions\/[0-9a-fA-F-]{36}\/resourceGroups\/[-\w._()]{1,90}\/providers\/Microsoft\.OperationalInsights\/workspaces\/[-\w]{4,63}$/i;

/** The name of one of a source's settings, from the sources table's key: `SOURCE_A_URL`. */
const sourceSetting = (source: Source, setting: "URL" | "AUTH_HEADER" | "TIMEOUT_MS" | "MAX_CONCURRENCY" | "MAX_RPS" | "TENANT_MAX_CONCURRENCY" | "TENANT_MAX_RPS" | "DISPLAY_NAME") =>
  `SOURCE_${sourceSettingKey(source)}_${setting}`;

/** Per source: SOURCE_<X>_URL selects the generic HTTP vendor adapter instead of the simulated vendor. */
const sourceEnv = Object.fromEntries(
  sources.flatMap((source) => [
    [sourceSetting(source, "URL"), z.url({ protocol: /^https?$/ }).optional()],
    [sourceSetting(source, "AUTH_HEADER"), z.string().min(1).optional()],
    [sourceSetting(source, "TIMEOUT_MS"), positiveInt.default(10_000)],
    [sourceSetting(source, "MAX_CONCURRENCY"), positiveInt.max(1000).default(32)],
    [sourceSetting(source, "MAX_RPS"), z.coerce.number().positive().optional()],
    [sourceSetting(source, "TENANT_MAX_CONCURRENCY"), positiveInt.max(1000).optional()],
    [sourceSetting(source, "TENANT_MAX_RPS"), z.coerce.number().positive().optional()],
    [sourceSetting(source, "DISPLAY_NAME"), z.string().trim().min(1).max(64).optional()],
  ]),
) as Record<string, z.ZodType>;

/** A vendor's limits, as one source's settings give them (`SOURCE_<X>_MAX_CONCURRENCY`, `_MAX_RPS`, `_TENANT_…`). */
export interface SourceLimits {
  /** Calls in flight at once towards the vendor; the others wait their turn. */
  maxConcurrency: number;
  /** Calls started per second, when the vendor publishes a rate limit; unset: no rate. */
  maxRequestsPerSecond?: number;
  /** Where the vendor counts its limits per tenant: those of one tenant's calls, on top of the source's. */
  perTenant?: Omit<SourceLimits, "perTenant">;
}

/**
 * Every setting the service reads, validated once at start. The configuration table of docs/operating.md lists
 * the same names, defaults and meanings.
 */
const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(7071),
    HOST: z.string().min(1).default("127.0.0.1"),
    STORE: z.enum(["memory", "cosmos"]).default("memory"),
    COSMOS_ENDPOINT: z.url().optional(),
    COSMOS_KEY: z.string().min(1).optional(),
    COSMOS_DATABASE: z.string().min(1).default("secops"),
    COSMOS_TRUST_SELF_SIGNED: bool.default(false),
    SECRET_HASH_KEY: key.optional(),
    PAGE_TOKEN_KEY: key.optional(),
    MAX_REQUEST_BODY_BYTES: positiveInt.default(1024 * 1024),
    RATE_LIMIT_BURST: positiveInt.default(100),
    RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(10),
    PRINCIPAL_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
    LOCAL_ADMIN_CLIENT_ID: z.guid().optional(),
    LOCAL_ADMIN_CLIENT_SECRET: z.string().min(32).optional(),
    QUEUE: z.enum(["inprocess", "servicebus"]).default("inprocess"),
    SERVICEBUS: z.string().min(1).optional(),
    SERVICEBUS__fullyQualifiedNamespace: z.string().min(1).optional(),
    WEBHOOK_SECRETS_KEY: key.optional(),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
    WORKSPACE_BRIDGES_ALLOW_HTTP: bool.default(false),
    WEBHOOK_RETRY_BACKOFF_MS: positiveInt.default(30_000),
    WEBHOOK_RETRY_WINDOW_MS: positiveInt.default(300_000),
    WEBHOOK_TIMEOUT_MS: positiveInt.default(30_000),
    DELIVERY_LOG_TTL_DAYS: positiveInt.max(3650).default(30),
    // 24,855 days is Cosmos's largest ttl (seconds in a 32-bit integer).
    AUDIT_RETENTION_DAYS: positiveInt.max(24_855).default(DEFAULT_AUDIT_RETENTION_DAYS),
    RECONCILE_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
    RECONCILE_CONCURRENCY: positiveInt.max(1000).default(32),
    // 50 by measurement (docs/scaling.md); past a few hundred a batch outlasts its message lock.
    RECONCILE_BATCH_SIZE: positiveInt.max(500).default(50),
    RECONCILE_RETRY_DELAY_MS: z.coerce.number().int().min(0).max(50_000).default(5_000),
    CROSS_WORKSPACE_BUDGET_MS: positiveInt.min(100).max(60_000).default(2_500),
    // 230 s is the most the Functions front end waits for an answer.
    REQUEST_DEADLINE_MS: positiveInt.min(1_000).max(230_000).default(20_000),
    MAX_CONCURRENT_REQUESTS: positiveInt.max(1_000).default(100),
    SIMULATED_VENDOR_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    DEMO_SEED: z.string().min(1).default("secops-demo"),
    DEMO_WORKSPACES: z.coerce.number().int().min(5).max(10_000).default(5),
    SIMULATED_INCIDENTS_PER_WORKSPACE: z.coerce.number().int().min(0).max(100_000).default(300),
    ...sourceEnv,
    PLAYBOOK_AUTOMATION_URL: z.url({ protocol: /^https?$/ }).optional(),
    PLAYBOOK_AUTOMATION_AUTH_HEADER: z.string().min(1).optional(),
    PLAYBOOK_AUTOMATION_TIMEOUT_MS: positiveInt.default(10_000),
    PLAYBOOK_AUTOMATION_POLL_MS: positiveInt.default(2_000),
    PLAYBOOK_AUTOMATION_STEP_WAIT_MS: positiveInt.default(240_000),
    SIMULATED_PLAYBOOK_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(100),
    ...cloudEnv,
    TICKETING_URL: z.url({ protocol: /^https?$/ }).optional(),
    TICKETING_AUTH_HEADER: z.string().min(1).optional(),
    TICKETING_TIMEOUT_MS: positiveInt.default(10_000),
    DIRECTORY_LOGS_TENANT_IDS: z
      .string()
      .transform((v) => (v.trim() === "*" ? ("*" as const) : v.split(",").map((t) => t.trim()).filter(Boolean)))
      .pipe(z.union([z.literal("*"), z.array(z.guid()).min(1)]))
      .optional(),
    GRAPH_BASE_URL: z.url({ protocol: /^https?$/ }).default("https://graph.microsoft.com"),
    DIRECTORY_LOGS_TIMEOUT_MS: positiveInt.default(30_000),
    LOG_ANALYTICS_WORKSPACES: pairs(z.guid(), z.string().regex(WORKSPACE_RESOURCE_ID, "must be a Log Analytics workspace resource id")).optional(),
    LOG_ANALYTICS_CONNECTOR_SOURCES: pairs(z.string().min(1), z.enum(sources)).optional(),
    ARM_ENDPOINT: z.url({ protocol: /^https$/ }).default("https://management.azure.com"),
    LOG_ANALYTICS_ENDPOINT: z.url({ protocol: /^https$/ }).default("https://api.loganalytics.io/v1"),
    LOG_ANALYTICS_TIMEOUT_MS: positiveInt.default(60_000),
    SOP_BLOB_ACCOUNT_URL: z.url({ protocol: /^https$/ }).optional(),
    SOP_BLOB_CONNECTION_STRING: z.string().min(1).optional(),
    // Azure's container naming rule: 3–63 lowercase letters, digits and single hyphens.
    SOP_BLOB_CONTAINER: z
      .string()
      .regex(/^(?=.{3,63}$)[a-z0-9]+(-[a-z0-9]+)*$/, "must be 3 to 63 lowercase letters, digits and single hyphens")
      .default("sop-documents"),
    SOP_BLOB_TIMEOUT_MS: positiveInt.default(30_000),
    SOP_MAX_BYTES: positiveInt.default(10 * 1024 * 1024),
    ...portalSignInEnv,
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    PORTAL_SESSION_KEY: key.optional(),
    PORTAL_SESSION_HOURS: z.coerce.number().positive().max(24).default(8),
  })
  .superRefine((env, ctx) => {
    checkCloudEnv(env, ctx);
    checkPortalSignInEnv(env, ctx);
    if (env.SOP_BLOB_ACCOUNT_URL && env.SOP_BLOB_CONNECTION_STRING) {
      // Two accounts named, or one named twice with two ways in: either way, which one is meant is a guess.
      ctx.addIssue({ code: "custom", path: ["SOP_BLOB_CONNECTION_STRING"], message: "set either SOP_BLOB_ACCOUNT_URL or SOP_BLOB_CONNECTION_STRING, not both" });
    }
    if (env.QUEUE === "servicebus" && !env.SERVICEBUS && !env.SERVICEBUS__fullyQualifiedNamespace) {
      ctx.addIssue({ code: "custom", path: ["SERVICEBUS__fullyQualifiedNamespace"], message: "required (or SERVICEBUS) when QUEUE=servicebus" });
    }
    if (env.STORE !== "cosmos") return;
    if (!env.COSMOS_ENDPOINT) ctx.addIssue({ code: "custom", path: ["COSMOS_ENDPOINT"], message: "required when STORE=cosmos" });
    // With a durable store, hashes and page tokens outlive the process and span instances: the keys
    // must be stable and shared, so they cannot be generated at start.
    for (const name of ["SECRET_HASH_KEY", "PAGE_TOKEN_KEY", "WEBHOOK_SECRETS_KEY"] as const) {
      if (!env[name]) ctx.addIssue({ code: "custom", path: [name], message: "required when STORE=cosmos" });
    }
    // Sessions span instances too, once people can sign in.
    if (env.PORTAL_CLIENT_ID && !env.PORTAL_SESSION_KEY) {
      ctx.addIssue({ code: "custom", path: ["PORTAL_SESSION_KEY"], message: "required when STORE=cosmos and PORTAL_CLIENT_ID is set" });
    }
  });

export interface Config {
  port: number;
  host: string;
  store: "memory" | "cosmos";
  cosmos: { endpoint?: string; key?: string; database: string; trustSelfSigned: boolean };
  secretHashKey: Buffer;
  pageTokenKey: Buffer;
  /** The portal's sessions: the key they are sealed with, and how long one lasts. */
  portalSessions: { key: Buffer; lifetimeMs: number };
  rateLimit: { burst: number; perSecond: number };
  /** Request bodies above this size are refused with 413 before they are parsed. */
  maxRequestBodyBytes: number;
  queue: {
    kind: "inprocess" | "servicebus";
    serviceBus: { connectionString?: string; fullyQualifiedNamespace?: string };
  };
  webhooks: {
    /** Seals signing keys and endpoint tokens at rest. */
    secretsKey: Buffer;
    /** Local testing only: allow loopback and private targets (HTTPS still required). */
    allowPrivateTargets: boolean;
    retryBackoffMs: number;
    retryWindowMs: number;
    timeoutMs: number;
    deliveryLogTtlDays: number;
  };
  principalCacheTtlMs: number;
  /** Days an audit event is kept from when it was recorded. */
  auditRetentionDays: number;
  localAdmin: { clientId?: string; clientSecret?: string };
  /** Local host: how often the reconciler runs; 0 turns the timer off (passes run on demand). */
  reconcileIntervalMs: number;
  /** Local host: reconcile messages (batches of workspaces) handled at once. */
  reconcileConcurrency: number;
  /** Workspaces one `reconcile` message carries, reconciled concurrently by its worker. */
  reconcileBatchSize: number;
  /** How long after its batch a workspace whose share failed is re-sent on its own. */
  reconcileRetryDelayMs: number;
  /**
   * The longest a cross-workspace answer waits on its upstream calls: past it, the answer holds what
   * came back, and what did not is reported (and, for the incident listing, carried to the next page).
   */
  crossWorkspaceBudgetMs: number;
  /**
   * Every request's server-side budget: past it the caller is answered 504 TIMEOUT at once, its
   * reads and upstream calls are aborted, and no write of it starts (`Deadline`).
   */
  requestDeadlineMs: number;
  /**
   * Requests in progress at once on this instance; past it a request is answered 429 at once rather
   * than queued. Equal to the Functions host's HTTP concurrency per instance (infra).
   */
  maxConcurrentRequests: number;
  /** Local host: the delay of every simulated vendor call, to model a real vendor's latency. */
  simulatedVendorLatencyMs: number;
  /**
   * Per source: calls in flight at once and, when a vendor publishes one, a request rate; and where
   * the vendor counts them per tenant, the same for one tenant's calls.
   */
  sourceLimits: Record<Source, SourceLimits>;
  demoSeed: string;
  demoWorkspaces: number;
  simulatedIncidentsPerWorkspace: number;
  /** Sources bridged over HTTP; every other source is served by the simulated vendor. */
  httpSources: Partial<Record<Source, { baseUrl: string; authHeader?: string; timeoutMs: number }>>;
  /** The names the deployment shows for its sources (`SOURCE_<X>_DISPLAY_NAME`); a source without one is shown by its path value. */
  sourceDisplayNames: Partial<Record<Source, string>>;
  /** Local testing only: a workspace's own source bridge may be plain `http:` (otherwise HTTPS is required). */
  workspaceBridgesAllowHttp: boolean;
  /** The automation bridge that runs playbook steps; without it they are simulated locally and disabled in Azure. */
  playbookAutomation?: { baseUrl: string; authHeader?: string; timeoutMs: number; pollIntervalMs: number; stepWaitMs: number };
  /** Local host: real time each simulated playbook step takes. */
  simulatedPlaybookDelayMs: number;
  /** Cloud-resource lookups: which inventory, and which subscriptions each account may see. */
  cloud: CloudConfig;
  /** The ticketing bridge; absent: ticketing is disabled (Azure) or simulated (local host). */
  ticketing?: { baseUrl: string; authHeader?: string; timeoutMs: number };
  /** Microsoft Graph for sign-in and directory audit logs of these tenants ("*": any). */
  directoryLogs?: { tenants: string[] | "*"; graphBaseUrl: string; timeoutMs: number };
  /** Service workspace id → Log Analytics workspace resource id, and connector kind or name → source. */
  logAnalytics?: { workspaces: Record<string, string>; connectorSources: Record<string, Source>; armEndpoint: string; logsEndpoint: string; timeoutMs: number };
  /**
   * The SOP document store: Azure Blob Storage by account URL (managed identity) or connection string
   * (Azurite, local); neither: disabled (Azure) or simulated (local host). `maxBytes` is the largest
   * document an upload may carry.
   */
  documents: { accountUrl?: string; connectionString?: string; container: string; timeoutMs: number; maxBytes: number };
  /** People's sign-in to the portal (OpenID Connect); absent when no client id is configured. */
  portalSignIn?: OidcSettings;
  logLevel: "debug" | "info" | "warn" | "error";
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * An app setting that is a Key Vault reference the platform could not resolve: App Service then leaves
 * the reference itself as the value (`@Microsoft.KeyVault(VaultName=…;SecretName=…)` or
 * `(SecretUri=…)`), which would otherwise be taken for the secret — sent as a bridge's Authorization
 * header, or decoded as a key.
 */
const UNRESOLVED_KEY_VAULT_REFERENCE = /^\s*@Microsoft\.KeyVault\s*\(/i;

/** The name of every setting the service reads. */
export const configSettingNames: readonly string[] = Object.keys(envSchema.shape);

/** The settings the service reads whose value is an unresolved Key Vault reference; their names only. */
function unresolvedKeyVaultReferences(present: Record<string, string>): string[] {
  const read = new Set(configSettingNames);
  return Object.keys(present)
    .filter((name) => read.has(name) && UNRESOLVED_KEY_VAULT_REFERENCE.test(present[name]!))
    .sort();
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Azure app settings that are empty strings mean "not set".
  const present = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""));
  // Checked first and reported alone for those settings: the value is never echoed, and no other
  // message about it (not a URL, not a key) would point at the vault.
  const unresolved = unresolvedKeyVaultReferences(present);
  if (unresolved.length > 0) {
    const lines = unresolved.map(
      (name) => `  ${name}: is a Key Vault reference the platform could not resolve (does the secret exist, and may the app's identity read it?)`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  // Parsed once per process: without zod's compiled fast path, which costs a cold start more to
  // generate and compile (about 5 ms for these settings) than one parse gains from it.
  const parsed = envSchema.safeParse(present, { jitless: true });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(config)"}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    store: e.STORE,
    cosmos: {
      endpoint: e.COSMOS_ENDPOINT,
      key: e.COSMOS_KEY,
      database: e.COSMOS_DATABASE,
      trustSelfSigned: e.COSMOS_TRUST_SELF_SIGNED,
    },
    secretHashKey: e.SECRET_HASH_KEY ?? randomBytes(32),
    pageTokenKey: e.PAGE_TOKEN_KEY ?? randomBytes(32),
    portalSessions: { key: e.PORTAL_SESSION_KEY ?? randomBytes(32), lifetimeMs: e.PORTAL_SESSION_HOURS * 3_600_000 },
    rateLimit: { burst: e.RATE_LIMIT_BURST, perSecond: e.RATE_LIMIT_PER_SECOND },
    maxRequestBodyBytes: e.MAX_REQUEST_BODY_BYTES,
    queue: {
      kind: e.QUEUE,
      serviceBus: { connectionString: e.SERVICEBUS, fullyQualifiedNamespace: e.SERVICEBUS__fullyQualifiedNamespace },
    },
    webhooks: {
      secretsKey: e.WEBHOOK_SECRETS_KEY ?? randomBytes(32),
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      retryBackoffMs: e.WEBHOOK_RETRY_BACKOFF_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      deliveryLogTtlDays: e.DELIVERY_LOG_TTL_DAYS,
    },
    principalCacheTtlMs: e.PRINCIPAL_CACHE_TTL_MS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    localAdmin: { clientId: e.LOCAL_ADMIN_CLIENT_ID, clientSecret: e.LOCAL_ADMIN_CLIENT_SECRET },
    reconcileIntervalMs: e.RECONCILE_INTERVAL_MS,
    reconcileConcurrency: e.RECONCILE_CONCURRENCY,
    reconcileBatchSize: e.RECONCILE_BATCH_SIZE,
    reconcileRetryDelayMs: e.RECONCILE_RETRY_DELAY_MS,
    crossWorkspaceBudgetMs: e.CROSS_WORKSPACE_BUDGET_MS,
    requestDeadlineMs: e.REQUEST_DEADLINE_MS,
    maxConcurrentRequests: e.MAX_CONCURRENT_REQUESTS,
    simulatedVendorLatencyMs: e.SIMULATED_VENDOR_LATENCY_MS,
    sourceLimits: sourceLimitsOf(e as unknown as Record<string, unknown>),
    workspaceBridgesAllowHttp: e.WORKSPACE_BRIDGES_ALLOW_HTTP,
    demoSeed: e.DEMO_SEED,
    demoWorkspaces: e.DEMO_WORKSPACES,
    simulatedIncidentsPerWorkspace: e.SIMULATED_INCIDENTS_PER_WORKSPACE,
    httpSources: httpSourcesOf(e as unknown as Record<string, unknown>),
    sourceDisplayNames: sourceDisplayNamesOf(e as unknown as Record<string, unknown>),
    playbookAutomation: e.PLAYBOOK_AUTOMATION_URL
      ? {
          baseUrl: e.PLAYBOOK_AUTOMATION_URL,
          authHeader: e.PLAYBOOK_AUTOMATION_AUTH_HEADER,
          timeoutMs: e.PLAYBOOK_AUTOMATION_TIMEOUT_MS,
          pollIntervalMs: e.PLAYBOOK_AUTOMATION_POLL_MS,
          stepWaitMs: e.PLAYBOOK_AUTOMATION_STEP_WAIT_MS,
        }
      : undefined,
    simulatedPlaybookDelayMs: e.SIMULATED_PLAYBOOK_DELAY_MS,
    cloud: cloudConfigOf(e),
    ticketing: e.TICKETING_URL ? { baseUrl: e.TICKETING_URL, authHeader: e.TICKETING_AUTH_HEADER, timeoutMs: e.TICKETING_TIMEOUT_MS } : undefined,
    directoryLogs: e.DIRECTORY_LOGS_TENANT_IDS ? { tenants: e.DIRECTORY_LOGS_TENANT_IDS, graphBaseUrl: e.GRAPH_BASE_URL, timeoutMs: e.DIRECTORY_LOGS_TIMEOUT_MS } : undefined,
    logAnalytics: e.LOG_ANALYTICS_WORKSPACES
      ? {
          workspaces: e.LOG_ANALYTICS_WORKSPACES,
          connectorSources: e.LOG_ANALYTICS_CONNECTOR_SOURCES ?? {},
          armEndpoint: e.ARM_ENDPOINT,
          logsEndpoint: e.LOG_ANALYTICS_ENDPOINT,
          timeoutMs: e.LOG_ANALYTICS_TIMEOUT_MS,
        }
      : undefined,
    documents: {
      accountUrl: e.SOP_BLOB_ACCOUNT_URL,
      connectionString: e.SOP_BLOB_CONNECTION_STRING,
      container: e.SOP_BLOB_CONTAINER,
      timeoutMs: e.SOP_BLOB_TIMEOUT_MS,
      maxBytes: e.SOP_MAX_BYTES,
    },
    portalSignIn: portalSignInOf(e),
    logLevel: e.LOG_LEVEL,
  };
}

function sourceLimitsOf(env: Record<string, unknown>): Config["sourceLimits"] {
  return Object.fromEntries(
    sources.map((source) => [
      source,
      {
        maxConcurrency: env[sourceSetting(source, "MAX_CONCURRENCY")] as number,
        maxRequestsPerSecond: env[sourceSetting(source, "MAX_RPS")] as number | undefined,
        ...perTenantLimitsOf(env, source),
      },
    ]),
  ) as Config["sourceLimits"];
}

/**
 * A source's limits per tenant, set when either of its tenant settings is: one tenant's calls may
 * then take the source's whole concurrency unless `TENANT_MAX_CONCURRENCY` says less.
 */
function perTenantLimitsOf(env: Record<string, unknown>, source: Source): Pick<SourceLimits, "perTenant"> {
  const maxConcurrency = env[sourceSetting(source, "TENANT_MAX_CONCURRENCY")] as number | undefined;
  const maxRequestsPerSecond = env[sourceSetting(source, "TENANT_MAX_RPS")] as number | undefined;
  if (maxConcurrency === undefined && maxRequestsPerSecond === undefined) return {};
  return { perTenant: { maxConcurrency: maxConcurrency ?? (env[sourceSetting(source, "MAX_CONCURRENCY")] as number), ...(maxRequestsPerSecond ? { maxRequestsPerSecond } : {}) } };
}

function sourceDisplayNamesOf(env: Record<string, unknown>): Config["sourceDisplayNames"] {
  return Object.fromEntries(sources.flatMap((source) => {
    const name = env[sourceSetting(source, "DISPLAY_NAME")] as string | undefined;
    return name === undefined ? [] : [[source, name]];
  }));
}

function httpSourcesOf(env: Record<string, unknown>): Config["httpSources"] {
  const out: Config["httpSources"] = {};
  for (const source of sources) {
    const baseUrl = env[sourceSetting(source, "URL")] as string | undefined;
    if (!baseUrl) continue;
    out[source] = {
      baseUrl,
      authHeader: env[sourceSetting(source, "AUTH_HEADER")] as string | undefined,
      timeoutMs: env[sourceSetting(source, "TIMEOUT_MS")] as number,
    };
  }
  return out;
}
