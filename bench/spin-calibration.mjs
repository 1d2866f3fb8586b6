// `node bench/spin-calibration.mjs`: what a requests/s ratio against the bare server means in CPU
// time on this machine. A child process serves the same kind of ~2 KB JSON body as the bare server,
// after busy-waiting SPIN microseconds per request, and autocannon (10 connections, as the
// service-account scenario uses) measures each SPIN from this process. A ratio target then reads as
// "the API may add at most this many microseconds of work per request".
// Knobs: CALIBRATION_SPINS_US (default 0,5,10,15,20,30), BENCH_DURATION_S (5).

import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

if (process.env.SPIN_SERVER_US !== undefined) {
  const spinMs = Number(process.env.SPIN_SERVER_US) / 1000;
  const body = Buffer.from(JSON.stringify({ data: { text: "a".repeat(1900) }, meta: { requestId: "x" } }));
  const server = http.createServer((_req, res) => {
    const until = performance.now() + spinMs;
    while (performance.now() < until);
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length });
    res.end(body);
  });
  server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
} else {
  const spins = (process.env.CALIBRATION_SPINS_US ?? "0,5,10,15,20,30").split(",").map(Number);
  const durationS = Number(process.env.BENCH_DURATION_S ?? 5);
  const measure = async (spinUs) => {
    const child = fork(fileURLToPath(import.meta.url), { env: { ...process.env, SPIN_SERVER_US: String(spinUs) } });
    const { port } = await new Promise((resolve) => child.once("message", resolve));
    const url = `http://127.0.0.1:${port}/`;
    await autocannon({ url, connections: 10, duration: 1 }); // warm-up
    const result = await autocannon({ url, connections: 10, duration: durationS });
    child.kill();
    return result.requests.average;
  };
  const rows = [];
  for (const spin of spins) rows.push({ spin, rps: await measure(spin) });
  const base = rows.find((r) => r.spin === 0)?.rps ?? rows[0].rps;
  console.log("added work per request   req/s   ratio to no added work");
  for (const { spin, rps } of rows) console.log(`${String(spin).padStart(8)} µs         ${String(Math.round(rps)).padStart(7)}   ${(rps / base).toFixed(2)}`);
}
