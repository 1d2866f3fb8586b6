// `npm run receiver`: a local HTTPS webhook receiver for trying the service's webhooks by hand.
import { mkdirSync } from "node:fs";
import { parseReceiverArgs, RECEIVER_USAGE, startupLines } from "./receiver-cli";
import { loadOrCreateCertificate } from "./self-signed-certificate";
import { startWebhookReceiver } from "./webhook-receiver";

async function main(): Promise<void> {
  const parsed = parseReceiverArgs(process.argv.slice(2), process.env, process.cwd());
  if (parsed.kind === "help") {
    process.stdout.write(RECEIVER_USAGE + "\n");
    return;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`${parsed.message}\n\n${RECEIVER_USAGE}\n`);
    process.exit(2);
  }
  const { settings } = parsed;
  // Made before anyone writes the secret file into it.
  mkdirSync(settings.dir, { recursive: true });
  const certificate = await loadOrCreateCertificate(settings.dir, { commonName: "localhost" });
  const print = (line: string) => process.stdout.write(line + "\n");
  const receiver = await startWebhookReceiver({
    port: settings.port,
    certificate,
    secrets: settings.secrets,
    secretFile: settings.secretFile,
    printBodies: settings.printBodies,
    print,
  });
  print("");
  for (const line of startupLines({ settings, origins: receiver.origins, port: receiver.port, certPath: certificate.certPath, certificateCreated: certificate.created, cwd: process.cwd() })) print(line);
  print("");

  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException)?.code;
  process.stderr.write(
    code === "EADDRINUSE"
      ? "The receiver's port is taken: pick another with --port <n> (and use it in the webhook's URL).\n"
      : `${String((error as Error)?.stack ?? error)}\n`,
  );
  process.exit(1);
});
