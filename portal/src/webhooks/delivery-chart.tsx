import type { paths } from "../api/openapi";

type ChartEnvelope = paths["/api/v2/portal/webhooks/{webhookId}/delivery-chart"]["get"]["responses"][200]["content"]["application/json"];
export type Chart = ChartEnvelope["data"];

const OUTCOMES = ["succeeded", "failed", "pending"] as const;
const LABELS = { succeeded: "Succeeded", failed: "Failed", pending: "Pending" } as const;
const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 36, right: 8, top: 8, bottom: 24 };

function bucketLabel(start: string, bucket: Chart["bucket"]): string {
  const at = new Date(start);
  return bucket === "1h" ? at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }) : at.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/**
 * Deliveries over time by outcome: stacked bars drawn as SVG (no chart library: the page's script
 * stays small and its policy strict). The same figures follow as a table for screen readers and
 * for anyone who wants the numbers.
 */
export function DeliveryChart({ chart }: { chart: Chart }) {
  const max = Math.max(1, ...chart.buckets.map((b) => b.succeeded + b.failed + b.pending));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, chart.buckets.length);
  const barW = Math.max(2, step * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const every = Math.ceil(chart.buckets.length / 8);
  const total = chart.buckets.reduce((sum, b) => sum + b.succeeded + b.failed + b.pending, 0);
  return (
    <figure class="chart-figure">
      <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Deliveries per ${chart.bucket === "1h" ? "hour" : "day"}, ${total} in all; the table below gives the figures.`}>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(0)} y2={y(0)} class="axis" />
        <text x={PAD.left - 4} y={y(max) + 4} text-anchor="end" class="tick">
          {max}
        </text>
        <text x={PAD.left - 4} y={y(0)} text-anchor="end" class="tick">
          0
        </text>
        {chart.buckets.map((b, i) => {
          let base = 0;
          const x = PAD.left + i * step + (step - barW) / 2;
          return (
            <g>
              {OUTCOMES.map((o) => {
                const v = b[o];
                if (v === 0) return null;
                const rect = <rect x={x} y={y(base + v)} width={barW} height={y(base) - y(base + v)} class={`bar-${o}`} />;
                base += v;
                return rect;
              })}
              {i % every === 0 && (
                <text x={x + barW / 2} y={HEIGHT - 6} text-anchor="middle" class="tick">
                  {bucketLabel(b.start, chart.bucket)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {OUTCOMES.map((o) => (
          <span>
            <span class={`swatch swatch-${o}`} aria-hidden="true" />
            {LABELS[o]}
          </span>
        ))}
        {chart.truncated && <span class="muted">The oldest buckets miss some attempts: the window held more than 10,000.</span>}
      </figcaption>
      <details>
        <summary>The chart's figures</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{chart.bucket === "1h" ? "Hour" : "Day"} starting</th>
              <th scope="col">Succeeded</th>
              <th scope="col">Failed</th>
              <th scope="col">Pending</th>
            </tr>
          </thead>
          <tbody>
            {chart.buckets.map((b) => (
              <tr>
                <td>{new Date(b.start).toLocaleString()}</td>
                <td>{b.succeeded}</td>
                <td>{b.failed}</td>
                <td>{b.pending}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
