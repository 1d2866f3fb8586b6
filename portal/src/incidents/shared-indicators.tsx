import { useState } from "preact/hooks";
import { api, call } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../ui/incident-link";
import { managesCustomers, useMe } from "../session";
import { Badge, Empty, Notice, ProblemBanner, Select, Time, useResource } from "../ui";

type Operation = paths["/api/v2/portal/shared-indicators"]["get"];
type SharedIndicators = Operation["responses"][200]["content"]["application/json"]["data"];
type Indicator = SharedIndicators["indicators"][number];
type Span = NonNullable<NonNullable<Operation["parameters"]["query"]>["window"]>;

const SPANS: { value: Span; label: string }[] = [
  { value: "24h", label: "Last 24 hours" },
  { value: "3d", label: "Last 3 days" },
  { value: "7d", label: "Last 7 days" },
  { value: "14d", label: "Last 14 days" },
  { value: "30d", label: "Last 30 days" },
];

const KIND_NAMES: Record<Indicator["kind"], string> = {
  ip: "IP address",
  host: "Host",
  account: "Account",
  sha256: "File (SHA-256)",
  mailbox: "Mailbox",
  url: "URL",
  domain: "Domain",
};

const tone = (severity: string) => (severity === "High" ? "bad" : severity === "Medium" ? "warn" : "neutral");
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The incidents page's panel of indicators shared across customers, for a service provider's people
 * only: those whose organization manages customer accounts (the session names them, so the page knows
 * without asking; a customer's people see nothing of it, and nothing is read for them).
 *
 * It stands above the queue, folded to one line that says what it found: the queue is what the page
 * is for, and a panel that grew in above it when its answer came would move the list (and whatever
 * the person was about to click) down the page. Opened, it lists the indicators.
 */
export function SharedIndicatorsPanel() {
  const me = useMe();
  return managesCustomers(me) ? <SharedIndicatorsList /> : null;
}

function SharedIndicatorsList() {
  const [span, setSpan] = useState<Span>("7d");
  const shared = useResource(async () => (await call(api.GET("/api/v2/portal/shared-indicators", { params: { query: { window: span } } }))).data, [span]);
  const data = shared.value;
  const within = SPANS.find((s) => s.value === span)!.label.toLowerCase();
  const found = shared.problem ? "could not be read" : !data ? "reading…" : data.indicators.length === 0 ? `none in the ${within}` : `${plural(data.indicators.length, "indicator", "indicators")}${data.moreIndicators ? " and more" : ""} in the ${within}`;
  return (
    <details class="card content-section shared-indicators" data-shared-indicators="">
      <summary>
        <h2 id="shared-indicators-heading">Shared indicators</h2>
        <span class="muted" data-shared-indicators-found="">
          {found}
        </span>
      </summary>
      <div class="card-header">
        <p class="muted">The same indicator in open incidents of two or more of your customers at once, among the workspaces you see.</p>
        <Select label="Created in" name="shared-indicators-window" value={span} options={SPANS} onValue={(value) => setSpan(value as Span)} />
      </div>
      <ProblemBanner problem={shared.problem} title="Shared indicators could not be read" />
      {shared.loading && !data && <p class="muted">Loading…</p>}
      {data?.incidentsTruncated && (
        <Notice kind="warn">This window holds more open incidents than one comparison reads: the newest {data.comparedIncidents.toLocaleString()} were compared.</Notice>
      )}
      {data && data.indicators.length === 0 && <Empty>No indicator is in open incidents of more than one customer in this window.</Empty>}
      {data && data.indicators.length > 0 && (
        <ul class="cards">
          {data.indicators.map((indicator) => (
            <li key={indicator.key} data-indicator={indicator.key}>
              <SharedIndicator indicator={indicator} />
            </li>
          ))}
        </ul>
      )}
      {data?.moreIndicators && <p class="muted">More indicators are shared: these are the {data.indicators.length} in the most customers.</p>}
    </details>
  );
}

function SharedIndicator(props: { indicator: Indicator }) {
  const { indicator } = props;
  return (
    <details class="source">
      <summary>
        <strong class="url">{indicator.value}</strong> <span class="muted">{KIND_NAMES[indicator.kind]}</span> in{" "}
        {plural(indicator.customerCount, "customer", "customers")}, {plural(indicator.incidentCount, "incident", "incidents")}, first seen{" "}
        <Time at={indicator.firstSeen} />, last seen <Time at={indicator.lastSeen} />
      </summary>
      <p class="muted">{indicator.customers.map((c) => c.name).join(", ")}</p>
      <ul class="entity-list">
        {indicator.incidents.map((incident) => (
          <li key={`${incident.workspaceId}/${incident.source}/${incident.incidentId}`}>
            <Badge tone={tone(incident.severity)}>{incident.severity}</Badge>{" "}
            <IncidentLink workspaceId={incident.workspaceId} source={incident.source} incident={{ id: incident.incidentId, title: incident.title }} />{" "}
            <span class="muted">
              {incident.workspaceName} · <Time at={incident.createdAt} />
            </span>
          </li>
        ))}
      </ul>
      {indicator.incidentCount > indicator.incidents.length && (
        <p class="muted">
          The newest {indicator.incidents.length} of its {indicator.incidentCount} incidents are listed.
        </p>
      )}
    </details>
  );
}
