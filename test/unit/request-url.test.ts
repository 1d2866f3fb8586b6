import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { requestOrigin, requestTarget, requestUrl } from "../../shared/hosts/local/request-url";

const fallback = "127.0.0.1:7071";

describe("request URL of the local host", () => {
  it("uses a well-formed Host header", () => {
    expect(requestUrl("/api/v2/users?role=Admin", "api.example.com:8443", fallback).href).toBe("https://api.example.com:8443/api/v2/users?role=Admin".replace("https", "http"));
    expect(requestUrl("/x", "[::1]:7071", fallback).host).toBe("[::1]:7071");
  });

  it("falls back to the configured host for a Host header that is no host", () => {
    for (const bad of [undefined, "", "a:99999", "a:port", "a b", "[::1", "user@evil.example", "evil.example/path", "evil.example?x", "a#b", "\\\\evil"]) {
      expect(requestUrl("/api/v2/users", bad, fallback).host).toBe(fallback);
    }
  });

  it("takes only the path and query from the request target, even in absolute form or starting with //", () => {
    expect(requestUrl("http://evil.example/api/v2/x?y=1", "h.example", fallback).href).toBe("http://h.example/api/v2/x?y=1");
    expect(requestUrl("//evil.example/api/v2/x", "h.example", fallback).host).toBe("h.example");
    expect(requestUrl("//evil.example/api/v2/x", "h.example", fallback).pathname).toBe("//evil.example/api/v2/x");
    expect(requestUrl("*", undefined, fallback).pathname).toBe("/*");
    expect(requestUrl("http://[bad/", undefined, fallback).pathname).toBe("/");
  });
});

describe("path and query of the local host's requests", () => {
  // Characters that the URL parser keeps, encodes, rewrites or treats specially, in any order.
  const pieces = ["/", "//", "a", "Z", "0", "-", ".", "..", "_", "~", "%", "%2e", "%2E", "%41", "?", "&", "=", "+", "'", '"', " ", "#", "\\", "{", "}", "<", ">", "|", "^", "`", "@", ":", ";", ",", "!", "$", "(", ")", "*", "é", "\t", "\0"];
  const target = fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((parts) => parts.join(""));

  it("are exactly what the URL parser makes of the request target, for any target", () => {
    fc.assert(
      fc.property(fc.oneof(target, target.map((t) => "/" + t), fc.string()), (t) => {
        const url = requestUrl(t, undefined, fallback);
        expect(requestTarget(t)).toEqual({ path: url.pathname, search: url.search });
      }),
      { numRuns: 20_000 },
    );
  });

  it("keeps plain targets as sent, and resolves dot segments and encodes the rest as the URL parser does", () => {
    expect(requestTarget("/api/v2/service-accounts/6b1c6bb3-3c83-4ee2-9c3a-7a7e4f8cbd62")).toEqual({ path: "/api/v2/service-accounts/6b1c6bb3-3c83-4ee2-9c3a-7a7e4f8cbd62", search: "" });
    expect(requestTarget("/api/v2/users?role=Admin&pageSize=5")).toEqual({ path: "/api/v2/users", search: "?role=Admin&pageSize=5" });
    expect(requestTarget("/api/v2/x/../users?")).toEqual({ path: "/api/v2/users", search: "" });
    expect(requestTarget("/api/v2/%2e%2E/users")).toEqual({ path: "/api/users", search: "" });
    expect(requestTarget("/api/v2/a b")).toEqual({ path: "/api/v2/a%20b", search: "" });
  });

  it("takes the origin from a well-formed Host header, else the host it listens on", () => {
    expect(requestOrigin("api.example.com:8443", fallback)).toBe("http://api.example.com:8443");
    expect(requestOrigin("api.example.com:80", fallback)).toBe("http://api.example.com");
    expect(requestOrigin("user@evil.example", fallback)).toBe(`http://${fallback}`);
  });
});
