import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

/** Azurite's (and the storage emulator's) published development account and key. */
export const azuriteAccount = "devstoreaccount1";
export const azuriteAccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface Azurite {
  /** "http://127.0.0.1:<port>/devstoreaccount1" */
  blobEndpoint: string;
  /** A connection string for the development account at that endpoint. */
  connectionString: string;
  /** Stops the process and waits for it to exit; safe to call more than once. */
  stop(): Promise<void>;
}

const MAIN = path.resolve(__dirname, "../../node_modules/azurite/dist/src/blob/main.js");
const LISTENING = /successfully listens on https?:\/\/[^:\s]+:(\d+)/;

/**
 * Starts Azurite's blob service as a child process on a port the system picks, in memory only, and
 * resolves once it answers HTTP. The port is read from Azurite's start-up line. Always `stop()` it
 * (in afterAll): the child outlives a test run that forgets to.
 */
export async function startAzurite(options: { startTimeoutMs?: number } = {}): Promise<Azurite> {
  // Its working directory, in case a version writes a debug log or a telemetry file there.
  const workDir = mkdtempSync(path.join(tmpdir(), "azurite-"));
  const child = spawn(
    process.execPath,
    [MAIN, "--blobHost", "127.0.0.1", "--blobPort", "0", "--inMemoryPersistence", "--skipApiVersionCheck", "--silent", "--disableTelemetry"],
    { cwd: workDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Should the test process end without stop() (a crash, an interrupted run), the child goes with it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async () => {
    process.off("exit", killOnExit);
    // In memory only: nothing to flush, so no graceful shutdown to wait for.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const port = await listeningPort(child, options.startTimeoutMs ?? 30_000);
    const blobEndpoint = `http://127.0.0.1:${port}/${azuriteAccount}`;
    await answers(blobEndpoint);
    return {
      blobEndpoint,
      connectionString: `DefaultEndpointsProtocol=http;AccountName=${azuriteAccount};AccountKey=${azuriteAccountKey};BlobEndpoint=${blobEndpoint};`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => fail(new Error(`Azurite did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = LISTENING.exec(output);
      if (match) finish(() => resolve(Number(match[1])));
    };
    const onExit = (code: number | null) => fail(new Error(`Azurite exited (code ${code}) before listening:\n${output}`));
    const finish = (then: () => void) => {
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      child.stderr!.off("data", onData);
      child.off("exit", onExit);
      // Keep draining its output, so that a full pipe never blocks it.
      child.stdout!.resume();
      child.stderr!.resume();
      then();
    };
    const fail = (error: Error) => finish(() => reject(error));
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Resolves once the endpoint answers any HTTP status (an unauthenticated request is refused, which is an answer). */
async function answers(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = request(`${url}?comp=list`, { method: "GET", timeout: 1_000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.once("error", () => resolve(false));
      req.once("timeout", () => req.destroy());
      req.end();
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`Azurite at ${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
