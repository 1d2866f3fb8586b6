import { z } from "zod";
import { personRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { ApiError } from "../../../platform/errors/api-error";
import { sources } from "../../../model/sources";
import { severities } from "../../../model/incidents/incident";
import { personWorkspaces } from "../../../domain/organizations/mapped-workspaces";
import { indicatorKinds, MAX_INDICATORS_PER_INCIDENT } from "../../../domain/incidents/indicators";
import {
  MAX_COMPARED_INCIDENTS,
  MAX_INCIDENTS_PER_INDICATOR,
  MIN_SHARED_CUSTOMERS,
  sharedIndicators,
  sharedIndicatorWindows,
  type SharedIndicatorWindow,
} from "../../../domain/incidents/shared-indicators";
import {
  EXAMPLE_CUSTOMER_ACCOUNT_ID,
  EXAMPLE_INCIDENT,
  EXAMPLE_SECOND_CUSTOMER_ACCOUNT_ID,
  EXAMPLE_SECOND_CUSTOMER_WORKSPACE_ID,
  EXAMPLE_WORKSPACE_ID,
  EXAMPLE_WORKSPACE_NAME,
} from "../../../platform/http/examples";

const tag = "Portal: incidents";
const windows = Object.keys(sharedIndicatorWindows) as [SharedIndicatorWindow, ...SharedIndicatorWindow[]];
export const SHARED_INDICATORS_MAX_LIMIT = 200;

const sharedIndicatorsQuery = z
  .object({
    window: z
      .enum(windows)
      .default("7d")
      .describe("How far back incidents count, by their creation time: `24h`, `3d`, `7d` (default), `14d` or `30d`."),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(SHARED_INDICATORS_MAX_LIMIT)
      .default(50)
      .describe(`Indicators in the answer, 1 to ${SHARED_INDICATORS_MAX_LIMIT} (default 50): those in most customers first.`),
  })
  .strict();

const sharedIncident = z.object({
  workspaceId: z.guid(),
  workspaceName: z.string(),
  accountId: z.guid().describe("The customer organization whose workspace it is."),
  source: z.enum(sources),
  incidentId: z.string(),
  title: z.string().describe("As the source last showed it to the service."),
  severity: z.enum(severities),
  createdAt: z.string().describe("When the source created the incident."),
});

const sharedIndicator = z.object({
  key: z.string().describe("The indicator's kind and normalised value, e.g. `ip:192.0.2.7`: the same string in every customer's incidents."),
  kind: z
    .enum(indicatorKinds)
    .describe(
      "`ip` (a public address: private, loopback, link-local and other local ranges are in every network and left out), `host` (a fully qualified name), " +
        "`account` (a UPN), `sha256` (a file's hash), `mailbox` (an address), `url`, or `domain` (a URL's host).",
    ),
  value: z.string().describe("The normalised value: lower case; an address in its canonical form; a URL without its fragment or default port."),
  customerCount: z.int().min(MIN_SHARED_CUSTOMERS).describe("Customer organizations with an open incident holding it, among the workspaces you see."),
  incidentCount: z.int().min(MIN_SHARED_CUSTOMERS).describe("Open incidents holding it in the window, among the workspaces you see."),
  firstSeen: z.string().describe("The creation time of its oldest incident in the window."),
  lastSeen: z.string().describe("The creation time of its newest incident."),
  customers: z.array(z.object({ accountId: z.guid(), name: z.string() })).describe("The customers, in the order of their first incident holding it."),
  incidents: z.array(sharedIncident).describe(`Its incidents, newest first, at most ${MAX_INCIDENTS_PER_INDICATOR} (\`incidentCount\` counts them all).`),
});

const sharedIndicatorsView = z
  .object({
    window: z.enum(windows),
    from: z.iso.datetime().describe("Incidents created from this time on are compared."),
    to: z.iso.datetime(),
    indicators: z.array(sharedIndicator).describe("In most customers first, then in most incidents, then the most recently seen."),
    moreIndicators: z.boolean().describe("More indicators are shared than `limit`: ask for more, or narrow the window."),
    comparedIncidents: z.int().min(0).describe("Open incidents of the window, with indicators, that were compared."),
    incidentsTruncated: z
      .boolean()
      .describe(`The window held more than ${MAX_COMPARED_INCIDENTS.toLocaleString("en-US")} open incidents: the newest were compared, the oldest were not.`),
  })
  .meta({
    examples: [
      {
        window: "7d",
        from: "2026-02-23T09:15:04.117Z",
        to: "2026-03-02T09:15:04.117Z",
        indicators: [
          {
            key: "ip:203.0.113.45",
            kind: "ip",
            value: "203.0.113.45",
            customerCount: 2,
            incidentCount: 2,
            firstSeen: "2026-03-01T22:10:42.000Z",
            lastSeen: "2026-03-02T08:41:07.602Z",
            customers: [
              { accountId: EXAMPLE_SECOND_CUSTOMER_ACCOUNT_ID, name: "Northwind Health" },
              { accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID, name: "Fabrikam Retail" },
            ],
            incidents: [
              {
                workspaceId: EXAMPLE_WORKSPACE_ID,
                workspaceName: EXAMPLE_WORKSPACE_NAME,
                accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
                source: EXAMPLE_INCIDENT.source,
                incidentId: EXAMPLE_INCIDENT.id,
                title: EXAMPLE_INCIDENT.title,
                severity: "High",
                createdAt: "2026-03-02T08:41:07.602Z",
              },
              {
                workspaceId: EXAMPLE_SECOND_CUSTOMER_WORKSPACE_ID,
                workspaceName: "northwind-sentinel-prod",
                accountId: EXAMPLE_SECOND_CUSTOMER_ACCOUNT_ID,
                source: "SourceB",
                incidentId: "3f0a6c1e-52d4-8b7e-9a21-6c4d2e8f1b09",
                title: "Beaconing to a rare external address from NOR-SRV-0412",
                severity: "Medium",
                createdAt: "2026-03-01T22:10:42.000Z",
              },
            ],
          },
        ],
        moreIndicators: false,
        comparedIncidents: 214,
        incidentsTruncated: false,
      },
    ],
  });

/**
 * Indicators shared across a service provider's customers: the same IP address, host, account, file
 * hash, mailbox, URL or domain in open incidents of two or more customers at once, read from the
 * incident states the reconciler keeps.
 */
export const sharedIndicatorRoutes: RouteGroup = {
  name: "portal-shared-indicators",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/shared-indicators",
      summary: "Indicators in open incidents of two or more of your customers at once (a service provider's people)",
      description:
        `An indicator (a public IP address, a fully qualified host, a UPN, a file's SHA-256, a mailbox, a URL or its domain) held by open incidents of at least ${MIN_SHARED_CUSTOMERS} ` +
        "of your customer organizations created within the window, with each incident. Only a service provider's people ask: anyone else is 403 `FORBIDDEN`. " +
        "It compares only the customers' workspaces you see (every one with an organization-wide role, `Admin` or `WorkspaceAdmin`, otherwise those you " +
        "hold a role on), and every count is of those alone: an indicator that only workspaces you do not see would make shared is not shown, and " +
        "nothing says it exists.\n\n" +
        "The incidents are those of the sources the reconciler follows (SourceA and SourceB), as it last saw them: their title, severity and at most " +
        `${MAX_INDICATORS_PER_INCIDENT} indicators each are kept on the service's state of the incident, so the answer makes no call to a source. ` +
        "An incident closed at its source leaves at the reconciler's next pass.",
      tag,
      roles: "any",
      query: sharedIndicatorsQuery,
      response: sharedIndicatorsView,
      problems: ["FORBIDDEN"],
      async handler(input) {
        const { person, query } = input;
        const own = await input.stores.accounts.get(person.accountId);
        if (own?.kind !== "ServiceProvider") {
          throw new ApiError("FORBIDDEN", "Shared indicators compare a service provider's customers: only the provider's people see them.", { target: "accountId" });
        }
        // The customers' workspaces the person sees: not the provider's own, which is no customer.
        const seen = (await personWorkspaces(input, person)).filter((w) => w.accountId !== person.accountId);
        const [result, customers] = await Promise.all([sharedIndicators(input, seen, query.window, query.limit), input.stores.accounts.listManagedBy(person.accountId)]);
        const names = new Map(customers.map((c) => [c.id, c.name]));
        const workspaceNames = new Map(seen.map((w) => [w.id, w.name]));
        return {
          data: {
            window: query.window,
            from: result.from,
            to: result.to,
            indicators: result.indicators.map((i) => ({
              key: i.key,
              kind: i.kind,
              value: i.value,
              customerCount: i.accountIds.length,
              incidentCount: i.incidentCount,
              firstSeen: i.firstSeen,
              lastSeen: i.lastSeen,
              customers: i.accountIds.map((accountId) => ({ accountId, name: names.get(accountId) ?? accountId })),
              incidents: i.incidents.map((incident) => ({
                workspaceId: incident.workspaceId,
                workspaceName: workspaceNames.get(incident.workspaceId) ?? incident.workspaceId,
                accountId: incident.accountId,
                source: incident.source,
                incidentId: incident.incidentId,
                title: incident.title,
                severity: incident.severity,
                createdAt: incident.createdAt,
              })),
            })),
            moreIndicators: result.more,
            comparedIncidents: result.comparedIncidents,
            incidentsTruncated: result.incidentsTruncated,
          },
        };
      },
    }),
  ],
};
