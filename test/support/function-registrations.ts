import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import * as azure from "@azure/functions";
import { vi } from "vitest";

export interface FunctionRegistrations {
  http: { name: string; options: azure.HttpFunctionOptions }[];
  queues: { name: string; options: azure.ServiceBusQueueFunctionOptions }[];
  timers: { name: string; options: azure.TimerFunctionOptions }[];
}

const functionsDir = join(__dirname, "../../functions");
let registered: Promise<FunctionRegistrations> | undefined;

/**
 * What the modules of `functions/` register with `@azure/functions` as they load, as the Functions
 * worker would see it. A module registers once, when it is first imported: the unit project shares
 * one module graph between its files, so the registrations are taken once, here, and every file
 * that needs them reads the same record.
 */
export function functionRegistrations(): Promise<FunctionRegistrations> {
  registered ??= (async () => {
    // The composition root the functions load needs the local admin's secret on the embedded default.
    process.env.LOCAL_ADMIN_CLIENT_SECRET ??= "soms_" + randomBytes(32).toString("base64url");
    const taken: FunctionRegistrations = { http: [], queues: [], timers: [] };
    const spies = [
      vi.spyOn(azure.app, "http").mockImplementation((name, options) => void taken.http.push({ name, options })),
      vi.spyOn(azure.app, "serviceBusQueue").mockImplementation((name, options) => void taken.queues.push({ name, options })),
      vi.spyOn(azure.app, "timer").mockImplementation((name, options) => void taken.timers.push({ name, options })),
    ];
    try {
      for (const file of readdirSync(functionsDir).filter((f) => f.endsWith(".ts"))) await import(join(functionsDir, file));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return taken;
  })();
  return registered;
}
