import { DataTable, Empty, Time } from "../ui";
import { percent } from "./webhooks";
import { HealthEnvelope, Figures } from "./detail-types";

export function FiguresCard({ title, figures }: { title: string; figures: Figures }) {
  return (
    <div class="card" data-window={title}>
      <h2>{title}</h2>
      <div class="stats">
        <Stat label="Success rate" value={percent(figures.successRate)} />
        <Stat label="Succeeded" value={figures.succeeded} />
        <Stat label="Failed attempts" value={figures.failed} />
        <Stat label="Pending" value={figures.pending} />
        <Stat label="Failed for good" value={figures.finalFailures} />
      </div>
      <p class="muted">
        Latency{" "}
        {figures.latencyMs
          ? `p50 ${figures.latencyMs.p50} ms · p95 ${figures.latencyMs.p95} ms · p99 ${figures.latencyMs.p99} ms (${figures.latencyMs.sampleSize} answers)`
          : "— (no HTTP answer in this window)"}
        {figures.truncated && " · over the newest 10,000 attempts only"}
      </p>
    </div>
  );
}

export function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <div class="stat">
      <span class="value">{value}</span>
      <span class="label">{label}</span>
    </div>
  );
}

export function RecentFailures({ failures }: { failures: HealthEnvelope["data"]["recentFailures"] }) {
  return (
    <>
      <h2>Last failures</h2>
      {failures.length === 0 ? (
        <Empty>No failed attempt in the last 7 days.</Empty>
      ) : (
        <DataTable label="Last failures" columns={["When", "Event", "HTTP status", "Attempt", "What happened"]}>
          {failures.map((f) => (
            <tr>
              <td>
                <Time at={f.createdAt} />
              </td>
              <td>{f.eventType}</td>
              <td>{f.httpStatusCode === 0 ? <span class="muted">none</span> : f.httpStatusCode}</td>
              <td>
                {f.attempt}
                {f.final ? " (final)" : ""}
              </td>
              <td>{f.error ?? "—"}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

