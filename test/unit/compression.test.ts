import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { COMPRESS_MIN_BYTES, encode, preferredCoding, varyOnEncoding, worthCompressing } from "../../shared/platform/http/compression";

describe("choosing a content coding (RFC 9110 12.5.3)", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["identity", null],
    ["gzip, deflate", "gzip"],
    // A browser's list: its members are equals, so the server's preference (Brotli) decides.
    ["gzip, deflate, br, zstd", "br"],
    ["BR", "br"],
    ["*", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0, *", "gzip"],
    ["br;q=0, gzip;q=0", null],
    ["deflate", null],
    ["gzip;q=0.001, identity", null],
  ])("Accept-Encoding %j → %j", (header, coding) => {
    expect(preferredCoding(header)).toBe(coding);
  });

  it("chooses only among what is offered", () => {
    expect(preferredCoding("br, gzip", ["gzip"])).toBe("gzip");
    expect(preferredCoding("br", ["gzip"])).toBeNull();
    expect(preferredCoding("br, gzip", [])).toBeNull();
  });
});

describe("what is worth compressing", () => {
  it("text and JSON from 1 KiB; never what is compressed already", () => {
    for (const type of ["application/json; charset=utf-8", "application/problem+json", "text/html; charset=utf-8", "text/javascript", "image/svg+xml"]) {
      expect(worthCompressing(type, COMPRESS_MIN_BYTES), type).toBe(true);
      expect(worthCompressing(type, COMPRESS_MIN_BYTES - 1), type).toBe(false);
    }
    for (const type of ["application/pdf", "image/png", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/jsonp-not", undefined]) {
      expect(worthCompressing(type, 1_000_000), String(type)).toBe(false);
    }
  });

  it("adds Accept-Encoding to Vary once, keeping what is there", () => {
    const none: Record<string, string> = {};
    varyOnEncoding(none);
    expect(none.Vary).toBe("Accept-Encoding");
    const other: Record<string, string> = { Vary: "Origin" };
    varyOnEncoding(other);
    varyOnEncoding(other);
    expect(other.Vary).toBe("Origin, Accept-Encoding");
    const any: Record<string, string> = { Vary: "*" };
    varyOnEncoding(any);
    expect(any.Vary).toBe("*");
  });
});

describe("encoding a body", () => {
  const json = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i, title: `Suspicious sign-in ${i}`, severity: "High" })) });

  it("round-trips in both codings, and a text answer shrinks", async () => {
    const br = await encode(json, "br");
    const gz = await encode(json, "gzip");
    expect(brotliDecompressSync(br).toString()).toBe(json);
    expect(gunzipSync(gz).toString()).toBe(json);
    expect(br.length).toBeLessThan(json.length / 5);
  });

  it("keeps a Buffer's compressed form with it: the same bytes are not compressed twice", async () => {
    const kept = Buffer.from(json);
    const first = await encode(kept, "br");
    expect(await encode(kept, "br")).toBe(first);
    // Another Buffer of the same content is another body: compressed on its own.
    expect(await encode(Buffer.from(json), "br")).not.toBe(first);
    expect(await encode(kept, "gzip")).not.toBe(first);
  });
});
