import { describe, expect, it } from "vitest";
import { requestUrl } from "../../shared/local/request-url";

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
