// Reads a V8 .cpuprofile (node --cpu-prof) and lists the functions with the most self time, as
// `percent  function  file:line`. Usage: node bench/profile-top.mjs FILE [N]; or import topSelfTime.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The `count` entries with the most self time: { percent, name, where }. */
export function topSelfTime(profile, count = 15) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    const { callFrame } = nodes.get(profile.samples[i]);
    const where = callFrame.url ? `${callFrame.url.split("/").slice(-2).join("/")}:${callFrame.lineNumber + 1}` : "";
    const key = `${callFrame.functionName || "(anonymous)"}\t${where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, dt]) => {
      const [name, where] = key.split("\t");
      return { percent: (100 * dt) / total, name, where };
    });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
  for (const e of topSelfTime(profile, Number(process.argv[3] ?? 15))) console.log(`${e.percent.toFixed(1).padStart(5)}%  ${e.name}  ${e.where}`);
}
