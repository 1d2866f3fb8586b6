import { randomBytes } from "node:crypto";
import { HttpRequest, InvocationContext } from "@azure/functions";
import { describe, expect, it, vi } from "vitest";
import { httpHandler } from "../../shared/hosts/azure/http-function";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { allRoutes } from "../../shared/api/route-groups";
import { loadConfig } from "../../shared/platform/config/config";
import { meetsExpectation } from "../../shared/platform/http/pipeline";
import type { Logger } from "../../shared/platform/logger";

describe("an unmet Expect in Azure", () => {
  const config = loadConfig({ LOCAL_ADMIN_CLIENT_SECRET: "soms_" + randomBytes(32).toString("base64url") });
  const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
  const { services } = createLocalServices(config, { logger: quiet });
  const handler = httpHandler(allRoutes(), () => services);

  it("is answered 417 before the body is read, authenticated or routed", async () => {
    const request = new HttpRequest({
      method: "POST",
      url: "https://api.example.com/api/v2/users",
      headers: { expect: "teapot", "content-type": "application/json", "content-length": "2" },
      body: { string: "{}" },
    });
    const read = vi.spyOn(request, "arrayBuffer");
    const response = await handler(request, new InvocationContext({ functionName: "users" }));
    expect(response.status).toBe(417);
    expect(read).not.toHaveBeenCalled();
    const headers = response.headers as Record<string, string>;
    expect(headers["Content-Type"]).toBe("application/problem+json");
    expect(JSON.parse(String(response.body))).toMatchObject({ status: 417, code: "BAD_REQUEST", target: "Expect" });
  });

  it("100-continue (as Node's server reads it) is met; anything else, an empty value included, is not", () => {
    for (const value of [undefined, "100-continue", "100-Continue", " 100-continue "]) expect(meetsExpectation(value), String(value)).toBe(true);
    for (const value of ["", "teapot", "101-continue", "100-continuex"]) expect(meetsExpectation(value), value).toBe(false);
  });
});
