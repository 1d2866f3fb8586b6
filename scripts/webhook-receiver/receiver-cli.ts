// The command line of `npm run receiver`: its settings and what it prints at start.
import { relative, resolve } from "node:path";

export interface ReceiverSettings {
  port: number;
  /** Where the certificate is kept and the secret file is looked for (git-ignored `.receiver/`). */
  dir: string;
  secrets: string[];
  secretFile: string;
  printBodies: boolean;
}

export const RECEIVER_USAGE = `Usage: npm run receiver -- [options]

A local HTTPS webhook receiver: prints every delivery and verifies both signature schemes.

Options:
  --port <n>           Port on 127.0.0.1 and ::1 (default 8443; RECEIVER_PORT)
  --secret <whsec_…>   The webhook's signing secret (repeatable; RECEIVER_SECRET)
  --secret-file <path> Read again on every delivery: the API's answer to creating the webhook, or
                       one secret per line (default .receiver/webhook.json)
  --dir <path>         Where the certificate is kept (default .receiver; RECEIVER_DIR)
  --body               Print each delivery's whole body
  --help               This text`;

export type ParsedArgs = { kind: "run"; settings: ReceiverSettings } | { kind: "help" } | { kind: "error"; message: string };

/** `argv` without node and the script; relative paths are taken from `cwd` (npm runs scripts in the package root). */
export function parseReceiverArgs(argv: string[], env: NodeJS.ProcessEnv, cwd: string): ParsedArgs {
  let port = env.RECEIVER_PORT ?? "8443";
  let dir = env.RECEIVER_DIR || ".receiver";
  let secretFile: string | undefined;
  const secrets = env.RECEIVER_SECRET ? [env.RECEIVER_SECRET] : [];
  let printBodies = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (name) {
      case "--help":
      case "-h":
        return { kind: "help" };
      case "--body":
        printBodies = true;
        break;
      case "--port":
      case "--secret":
      case "--secret-file":
      case "--dir": {
        const given = value();
        if (given === undefined || given === "") return { kind: "error", message: `${name} needs a value` };
        if (name === "--port") port = given;
        else if (name === "--secret") secrets.push(given);
        else if (name === "--secret-file") secretFile = given;
        else dir = given;
        break;
      }
      default:
        return { kind: "error", message: `unknown option ${arg}` };
    }
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return { kind: "error", message: `--port must be a port number, not ${port}` };
  const absoluteDir = resolve(cwd, dir);
  return {
    kind: "run",
    settings: {
      port: Number(port),
      dir: absoluteDir,
      secrets,
      secretFile: resolve(cwd, secretFile ?? resolve(absoluteDir, "webhook.json")),
      printBodies,
    },
  };
}

export interface StartupFacts {
  settings: ReceiverSettings;
  origins: string[];
  port: number;
  certPath: string;
  certificateCreated: boolean;
  /** The directory the person runs commands from, to show paths as they would type them. */
  cwd: string;
}

/** A path as one shell word, quoted only when it needs to be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What the receiver prints once listening: where it listens, how to start the service, where the secret goes. */
export function startupLines(facts: StartupFacts): string[] {
  const { settings, port, certPath, cwd } = facts;
  const shortest = (path: string) => {
    const rel = relative(cwd, path);
    return rel && !rel.startsWith("..") ? rel : path;
  };
  return [
    `Webhook receiver listening on https://127.0.0.1:${port}/hook (any path; also https://localhost:${port}/…${facts.origins.length > 1 ? ` and https://[::1]:${port}/…` : ""})`,
    `  Certificate: ${certPath} (self-signed for localhost, 127.0.0.1 and ::1; ${facts.certificateCreated ? "made now" : "kept from an earlier start"})`,
    "",
    "  Start the service so that it trusts this certificate and may deliver to this machine:",
    `    NODE_EXTRA_CA_CERTS=${shellWord(certPath)} WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start`,
    "",
    settings.secrets.length > 0
      ? `  Signing secret: given at start (${settings.secrets.length}); ${shortest(settings.secretFile)} is read too, on every delivery.`
      : `  Signing secret: none yet. Write the API's answer to creating the webhook (or the whsec_… secret) to ${shortest(settings.secretFile)};`,
    ...(settings.secrets.length > 0 ? [] : ["  it is read again on every delivery, so deliveries sent before it was there are verified on their retry."]),
    "",
    "Waiting for deliveries (Ctrl-C stops).",
  ];
}
