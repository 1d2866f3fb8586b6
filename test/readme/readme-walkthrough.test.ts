import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { blockAsBash, prelude, shellBlocks, type WalkthroughPorts } from "../support/readme-walkthrough";

/*
 * The README's examples from "Run it" up to "Test it", then every example of the guides that go on from
 * there (the API tour, the portal's, local development), run in order as a reader pastes them:
 * the service and the receiver as built by `npm start` / `npm run receiver`, every other command as
 * written (only the ports are the test's), in a fresh directory standing in for the reader's checkout.
 * A curl answered 4xx/5xx fails the walkthrough unless its comment says `→ <that status>`; at the end
 * every event type the walkthrough promises must have reached the receiver and verified.
 */

const repo = resolve(__dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "readme-walkthrough-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Event types the walkthroughs subscribe to and then cause. */
const DELIVERED = [
  "webhook.test.v1",
  "incident.created.v1",
  "incident.status.changed.v1",
  "incident.closed.v1",
  "incident.comment.added.v1",
  "agent.investigation.completed.v1",
  "gamebook.run.v1",
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/**
 * The documents whose examples run, in the order a reader follows them: the README's from "Run it" up
 * to "Test it" (the rest is deployment, which `test/unit/infra.test.ts` holds to the templates), then
 * each guide whole. A guide's first example sets what it uses besides `ID` and `SECRET`.
 */
const WALKED: { file: string; range?: { from: string; until: string } }[] = [
  { file: "README.md", range: { from: "Run it", until: "Test it" } },
  { file: "docs/api.md" },
  { file: "docs/portal.md" },
  { file: "docs/development.md" },
];

function walkthrough(ports: WalkthroughPorts): string {
  const steps = WALKED.flatMap(({ file, range }) =>
    shellBlocks(readFileSync(join(repo, file), "utf8"), range).map((block) => `echo ${JSON.stringify(`### ${file} line ${block.line} (${block.section})`)}\n${blockAsBash(block, ports)}`),
  );
  const awaited = DELIVERED.map((type) => `await_line receiver.log ' ${type}  event ' 'a ${type} delivery at the receiver'`);
  // Commands are echoed as they run (not inside functions or substitutions) so a failure shows where.
  return [prelude(repo, ports), `trap 'echo "\\$ $BASH_COMMAND" >&2' DEBUG`, ...steps, "trap - DEBUG", ...awaited, ""].join("\n");
}

describe("the README and the guides, pasted in order", () => {
  it("every example works against the service and the receiver it starts, and the webhooks arrive verified", async () => {
    // What `npm start` and `npm run receiver` do first; incremental, so quick when dist/ is current.
    const build = spawnSync(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.build.json"], { cwd: repo, encoding: "utf8" });
    expect(build.status, build.stdout + build.stderr).toBe(0);

    const ports = { host: await freePort(), receiver: await freePort() };
    const script = join(dir, "walkthrough.sh");
    writeFileSync(script, walkthrough(ports));
    const child = spawn("bash", [script], { cwd: dir, env: { ...process.env, NO_COLOR: "1" }, detached: true });
    let transcript = "";
    child.stdout.on("data", (chunk: Buffer) => (transcript += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (transcript += chunk.toString("utf8")));
    const code = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 480_000);
      child.on("close", (exit) => (clearTimeout(timer), done(exit)));
    });

    const tailOf = (text: string, lines: number) => text.split("\n").slice(-lines).map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line)).join("\n");
    // The service's own log says whether a host that stopped answering had failed, and why.
    const hostLog = existsSync(join(dir, "host.log")) ? tailOf(readFileSync(join(dir, "host.log"), "utf8"), 30) : "(no host.log)";
    expect(code, `the walkthrough stopped; the end of its transcript:\n${tailOf(transcript, 80)}\n--- the last host's log, its end ---\n${hostLog}`).toBe(0);
    const received = readFileSync(join(dir, "receiver.log"), "utf8");
    for (const type of DELIVERED) expect(received).toContain(` ${type}  event `);
    expect(received).toContain("verified: X-Svc-Signature ok, webhook-signature ok; answered 200");
    expect(received).not.toContain("NOT VERIFIED");
  }, 600_000);
});
