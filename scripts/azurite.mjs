// `npm run azurite`: keeps the local host's SOP documents in Azurite (the Blob Storage emulator)
// instead of memory, so they outlive a restart and go through the same Blob Storage adapter as in
// Azure. Prints the setting for `npm start` in another shell, then runs Azurite in the foreground
// (data under .azurite/; Ctrl-C stops it).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const port = Number(process.env.AZURITE_BLOB_PORT ?? 10000);
// Azurite's well-known development account and key (not a secret: every emulator has it).
const account = "devstoreaccount1";
const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const connection = `DefaultEndpointsProtocol=http;AccountName=${account};AccountKey=${key};BlobEndpoint=http://127.0.0.1:${port}/${account};`;
process.stdout.write(`Azurite (blob) on 127.0.0.1:${port}. In another shell:\n  SOP_BLOB_CONNECTION_STRING='${connection}' npm start\n`);

const main = createRequire(import.meta.url).resolve("azurite/dist/src/blob/main.js");
const child = spawn(process.execPath, [main, "--blobHost", "127.0.0.1", "--blobPort", String(port), "--location", ".azurite", "--skipApiVersionCheck", "--disableTelemetry", "--silent"], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
