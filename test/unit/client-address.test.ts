import { randomBytes } from "node:crypto";
import { HttpRequest, InvocationContext } from "@azure/functions";
import { describe, expect, it } from "vitest";
import { addressOf, platformClientAddress } from "../../shared/hosts/azure/client-address";
import { httpHandler } from "../../shared/hosts/azure/http-function";
import { loadConfig } from "../../shared/platform/config/config";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { metaGroup } from "../../shared/api/route-groups";

const headers = (h: Record<string, string>) => (name: string) => h[name];

describe("client address behind the App Service front end", () => {
  it("takes client-ip, which the front end writes, without its port", () => {
    expect(platformClientAddress(headers({ "client-ip": "203.0.113.7:49828", "x-forwarded-for": "198.51.100.1, 203.0.113.7:49828" }))).toBe("203.0.113.7");
    expect(platformClientAddress(headers({ "client-ip": "[2001:DB8::1]:443" }))).toBe("2001:db8::1");
  });

  it("otherwise takes the last X-Forwarded-For hop, the one the front end appends, never the caller's first entry", () => {
    expect(platformClientAddress(headers({ "x-forwarded-for": "198.51.100.1, 203.0.113.7:49828" }))).toBe("203.0.113.7");
    expect(platformClientAddress(headers({}))).toBe("unknown");
  });

  it("reads only addresses", () => {
    expect(addressOf("2001:db8::1")).toBe("2001:db8::1");
    expect(addressOf("not-an-ip")).toBeUndefined();
    expect(addressOf("1.2.3.4:80:90")).toBeUndefined();
  });

  it("a forged X-Forwarded-For gets no fresh rate-limit bucket", async () => {
    const config = loadConfig({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_SECOND: "0.001", LOCAL_ADMIN_CLIENT_SECRET: "soms_" + randomBytes(32).toString("base64url") });
    const { services } = createLocalServices(config);
    const handler = httpHandler(metaGroup.routes, () => services);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const request = new HttpRequest({
        method: "GET",
        url: "https://api.example.com/api/v2/errors",
        // Each request claims another origin in front; the front end's own entries stay the same.
        headers: { "x-forwarded-for": `198.51.100.${i}, 203.0.113.7:5000${i}`, "client-ip": `203.0.113.7:5000${i}` },
      });
      const response = await handler(request, new InvocationContext({ functionName: "meta" }));
      statuses.push(response.status ?? 200);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});
