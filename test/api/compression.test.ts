import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHost, type TestHost } from "../support/test-host";

/**
 * Answers go compressed to a client that accepts it, through the pipeline both hosts share: the
 * bytes as sent (undici's `request` neither asks for a coding nor decodes one), decoded here, and
 * checked against the served OpenAPI document as any answer is.
 */

let host: TestHost;
let ws: string;
beforeAll(async () => {
  host = await startTestHost();
  ws = host.demo.workspaces[0]!.id;
});
afterAll(() => host.close());

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes on the wire. */
  wire: Buffer;
  /** The body decoded as its Content-Encoding says. */
  text: string;
}

async function send(method: string, path: string, acceptEncoding: string | undefined, body?: unknown): Promise<Sent> {
  const headers: Record<string, string> = { authorization: host.basic(host.admin.clientId, host.admin.clientSecret) };
  if (acceptEncoding !== undefined) headers["accept-encoding"] = acceptEncoding;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await request(host.base + path, { method: method as "GET", headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const wire = Buffer.from(await res.body.arrayBuffer());
  const coding = res.headers["content-encoding"];
  const text = (coding === "br" ? brotliDecompressSync(wire) : coding === "gzip" ? gunzipSync(wire) : wire).toString("utf8");
  const flat = Object.entries(res.headers).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v) => [name, v] as [string, string]) : value === undefined ? [] : [[name, value] as [string, string]]));
  await host.checked(method, host.base + path, new Response(text, { status: res.statusCode, headers: flat.filter(([name]) => name !== "content-encoding" && name !== "content-length") }));
  return { status: res.statusCode, headers: res.headers, wire, text };
}

const firstPage = { isFirstCall: true, workspacePageTokens: [] };

describe("compressed answers", () => {
  it("the cross-workspace first page goes in Brotli to a browser, in gzip to a gzip client, as it is to one that asks for neither; the same page each time", async () => {
    const plain = await send("POST", "/incidents/across-workspaces", undefined, firstPage);
    const browser = await send("POST", "/incidents/across-workspaces", "gzip, deflate, br, zstd", firstPage);
    const gzipClient = await send("POST", "/incidents/across-workspaces", "gzip", firstPage);
    for (const answer of [plain, browser, gzipClient]) {
      expect(answer.status).toBe(200);
      // The answer depends on Accept-Encoding whichever coding went: a cache must know.
      expect(answer.headers.vary).toBe("Accept-Encoding");
      expect(Number(answer.headers["content-length"])).toBe(answer.wire.length);
    }
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(browser.headers["content-encoding"]).toBe("br");
    expect(gzipClient.headers["content-encoding"]).toBe("gzip");
    const incidents = (s: Sent) => (JSON.parse(s.text) as { data: { incidents: { incident: { id: string } }[] } }).data.incidents.map((i) => i.incident.id);
    expect(incidents(plain).length).toBeGreaterThan(20);
    expect(incidents(browser)).toEqual(incidents(plain));
    expect(incidents(gzipClient)).toEqual(incidents(plain));
    expect(browser.wire.length).toBeLessThan(plain.wire.length / 5);
    expect(gzipClient.wire.length).toBeLessThan(plain.wire.length / 4);
  });

  it("a problem goes compressed too when it is large; a small answer goes as it is, without Vary", async () => {
    const small = await send("GET", "/workspaces/no-such-workspace/incidents", "br");
    expect(small.status).toBeGreaterThanOrEqual(400);
    expect(small.wire.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    // Sixty tokens of no workspace: an error for each.
    const invalid = await send("POST", "/incidents/across-workspaces", "br", { isFirstCall: false, workspacePageTokens: Array.from({ length: 60 }, () => ({ workspaceId: "nope", sourceTokens: {} })) });
    expect(invalid.status).toBe(400);
    expect(invalid.headers["content-type"]).toBe("application/problem+json");
    expect(invalid.headers["content-encoding"]).toBe("br");
    expect(JSON.parse(invalid.text)).toMatchObject({ code: "VALIDATION_ERROR", errors: expect.objectContaining({ "workspacePageTokens[59].workspaceId": ["Invalid GUID"] }) });
  });

  it("an incident's ETag is its version, whatever the coding: one read compressed is accepted in If-Match", async () => {
    const incident = host.simulated.vendors.createIncident("SourceA", ws, { title: "Suspicious sign-in from TOR exit node ".repeat(30), severity: "High" });
    const path = `/workspaces/${ws}/incidents/SourceA/${encodeURIComponent(incident.id)}`;
    const plain = await send("GET", path, undefined);
    const compressed = await send("GET", path, "br");
    expect(compressed.headers["content-encoding"]).toBe("br");
    expect(compressed.headers.etag).toBe(plain.headers.etag);
    const write = await host.call("PUT", `${path}/status`, { body: { status: "Active" }, headers: { "if-match": String(compressed.headers.etag) } });
    expect(write.status).toBe(204);
  });

  it("the OpenAPI document is compressed once and served the same bytes again", async () => {
    const first = await send("GET", "/openapi.json", "br");
    const again = await send("GET", "/openapi.json", "br");
    expect(first.headers["content-encoding"]).toBe("br");
    expect(again.wire.equals(first.wire)).toBe(true);
    expect(JSON.parse(first.text)).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
  });

  it("the portal page's script goes in the build's Brotli form", async () => {
    const html = (await request(new URL("/portal/", host.base).href)).body;
    const script = /src="(\/portal\/assets\/[^"]+\.js)"/.exec(await html.text())?.[1];
    expect(script).toBeDefined();
    const res = await request(new URL(script!, host.base).href, { headers: { "accept-encoding": "gzip, deflate, br" } });
    const wire = Buffer.from(await res.body.arrayBuffer());
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(brotliDecompressSync(wire).toString("utf8")).toContain("portal");
  });
});
