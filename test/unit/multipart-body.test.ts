import { describe, expect, it } from "vitest";
import { MAX_MULTIPART_PARTS, parseMultipartBody } from "../../shared/platform/http/multipart-body";
import { isApiError } from "../../shared/platform/errors/api-error";

/** A body of `count` text parts named f0, f1…, as a client writes it. */
function body(count: number, boundary = "xYz-7", preamble = ""): Buffer {
  const parts = Array.from({ length: count }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv${i}\r\n`);
  return Buffer.from(`${preamble}${parts.join("")}--${boundary}--\r\n`);
}

async function refusal(raw: Buffer, contentType: string) {
  try {
    await parseMultipartBody(raw, contentType);
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
  return undefined;
}

describe("a multipart/form-data body", () => {
  it(`is read when it holds up to ${MAX_MULTIPART_PARTS} parts, with or without a preamble, the boundary quoted or not`, async () => {
    const read = await parseMultipartBody(body(MAX_MULTIPART_PARTS), "multipart/form-data; boundary=xYz-7");
    expect(Object.keys(read!)).toHaveLength(MAX_MULTIPART_PARTS);
    expect(read!.f0).toBe("v0");
    const quoted = await parseMultipartBody(body(2, "a.b=c"), 'multipart/form-data; boundary="a.b=c"');
    expect({ ...quoted }).toEqual({ f0: "v0", f1: "v1" });
  });

  it("is refused before parsing when it holds more parts, however many, with a short answer", async () => {
    const one = await refusal(body(MAX_MULTIPART_PARTS + 1), "multipart/form-data; boundary=xYz-7");
    expect(one?.code).toBe("BAD_REQUEST");
    expect(one?.message).toContain(`at most ${MAX_MULTIPART_PARTS} parts`);
    // About 10 MiB of empty parts: refused as soon as the ninth is seen.
    const empty = "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n\r\n";
    const flood = Buffer.from(empty.repeat(Math.floor((10 * 1024 * 1024) / empty.length)) + "--b--\r\n");
    const refused = await refusal(flood, "multipart/form-data; boundary=b");
    expect(refused?.code).toBe("BAD_REQUEST");
    expect(refused!.message.length).toBeLessThan(200);
  });

  it("without a boundary, or truncated, is 400; another type is 415", async () => {
    expect((await refusal(body(1), "multipart/form-data"))?.code).toBe("BAD_REQUEST");
    expect((await refusal(Buffer.from("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nv"), "multipart/form-data; boundary=b"))?.code).toBe("BAD_REQUEST");
    expect((await refusal(body(1), "application/json"))?.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});
