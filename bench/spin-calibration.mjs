// `node bench/spin-calibration.mjs`: what a requests/s ratio against the bare server means in CPU
// time on this machine. It serves the same kind of ~2 KB JSON body as the bare server, after busy-
// waiting SPIN microseconds per request, and measures each SPIN with autocannon (10 connections, as
// the service-account scenario does). A ratio target then reads as "the API may add at most this many
// microseconds of work per request". Knobs: CALIBRATION_SPINS_US (default 0,5,10,15,20,30),
// BENCH_DURATION_S (5).

import http from "node:http";
import autocannon from "autocannon";

const spins = (process.env.CALIBRATION_SPINS_US ?? "0,5,10,15,20,30").split(",").map(Number);
const durationS = Number(process.env.BENCH_DURATION_S ?? 5);
const body = Buffer.from(JSON.stringify({ data: { text: "a".repeat(1900) }, meta: { requestId: "x" } }));

async function measure(spinUs) {
  const server = http.createServer((_req, res) => {
    const until = performance.now() + spinUs / 1000;
    while (performance.now() < until);
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  await autocannon({ url, connections: 10, duration: 1 }); // warm-up
  const result = await autocannon({ url, connections: 10, duration: durationS });
  server.close();
  return result.requests.average;
}

const rows = [];
for (const spin of spins) rows.push({ spin, rps: await measure(spin) });
const base = rows.find((r) => r.spin === 0)?.rps ?? rows[0].rps;
console.log("added work per request   req/s   ratio to no added work");
for (const { spin, rps } of rows) console.log(`${String(spin).padStart(8)} µs         ${String(Math.round(rps)).padStart(7)}   ${(rps / base).toFixed(2)}`);
