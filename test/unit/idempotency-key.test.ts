import { describe, expect, it } from "vitest";
import { allRoutes } from "../../shared/api/route-groups";
import { parseIdempotencyKey, requestFingerprint } from "../../shared/platform/http/idempotency";
import { apiErrorOf } from "../support/api-error-of";

describe("Idempotency-Key", () => {
  it("takes a bare key or an RFC 8941 string of 1 to 255 printable ASCII characters", () => {
    expect(parseIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324")).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(parseIdempotencyKey('"a \\"quoted\\" \\\\ key"')).toBe('a "quoted" \\ key');
    expect(parseIdempotencyKey("k".repeat(255))).toHaveLength(255);
  });

  it.each(["", " ", '""', '"', '"abc', '"a"b"', '"a\\nb"', "k".repeat(256), `"${"k".repeat(256)}"`, "clé", "a\u0000b", "tab\there"])("refuses %j as 400 VALIDATION_ERROR naming the header", async (value) => {
    const error = await apiErrorOf(Promise.resolve().then(() => parseIdempotencyKey(value)));
    expect([error.code, error.status, error.target]).toEqual(["VALIDATION_ERROR", 400, "Idempotency-Key"]);
  });

  it("fingerprints the request, not its spelling: field order aside, any difference in method, target or body is another request", () => {
    const base = requestFingerprint("POST", "/api/v2/webhooks", { a: 1, b: { c: [1, 2], d: "x" } });
    expect(requestFingerprint("POST", "/api/v2/webhooks", { b: { d: "x", c: [1, 2] }, a: 1 })).toBe(base);
    expect(requestFingerprint("POST", "/api/v2/webhooks", { a: 1, b: { c: [2, 1], d: "x" } })).not.toBe(base);
    expect(requestFingerprint("POST", "/api/v2/webhooks", { a: "1", b: { c: [1, 2], d: "x" } })).not.toBe(base);
    expect(requestFingerprint("POST", "/api/v2/webhooks?x=1", { a: 1, b: { c: [1, 2], d: "x" } })).not.toBe(base);
    expect(requestFingerprint("PUT", "/api/v2/webhooks", { a: 1, b: { c: [1, 2], d: "x" } })).not.toBe(base);
    expect(requestFingerprint("POST", "/api/v2/webhooks", undefined)).not.toBe(requestFingerprint("POST", "/api/v2/webhooks", null));
    // A file's bytes count, whatever their size.
    expect(requestFingerprint("POST", "/x", { file: Buffer.from("one") })).not.toBe(requestFingerprint("POST", "/x", { file: Buffer.from("two") }));
  });

  it("is honoured by every POST that creates something (201) or starts something (202), and by no other method", () => {
    for (const route of allRoutes()) {
      const statuses = [route.successStatus ?? 200].flat();
      const label = `${route.method} ${route.path}`;
      if (route.method === "POST" && statuses.some((s) => s === 201 || s === 202)) expect(route.idempotencyKey, label).toBe(true);
      if (route.method !== "POST") expect(route.idempotencyKey, label).toBeUndefined();
    }
  });

  it("is honoured by the POSTs that create or start something without answering 201 or 202: a gamebook run, and the portal's comment, ticket link and trigger", () => {
    const honouring = new Set(allRoutes().filter((r) => r.idempotencyKey).map((r) => `${r.method} ${r.path}`));
    for (const label of [
      "POST /workspaces/{workspaceId}/gamebooks/run",
      "POST /portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/comments",
      "POST /portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/tickets",
      "POST /portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/trigger",
    ]) {
      expect(honouring.has(label), label).toBe(true);
    }
  });
});
