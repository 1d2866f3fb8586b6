import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { enableCompileCache } from "../../shared/hosts/azure/compile-cache";

/** node:module's compile cache API as Node 22 has it, recording the directory it was given. */
function fakeModule(status: "ENABLED" | "ALREADY_ENABLED" | "FAILED" | "DISABLED", message?: string) {
  const codes = { FAILED: 0, ENABLED: 1, ALREADY_ENABLED: 2, DISABLED: 3 };
  const calls: (string | undefined)[] = [];
  let flushes = 0;
  return {
    calls,
    flushes: () => flushes,
    api: {
      constants: { compileCacheStatus: codes },
      flushCompileCache: () => void (flushes += 1),
      enableCompileCache: (directory?: string) => {
        calls.push(directory);
        return { status: codes[status], directory: status === "ENABLED" || status === "ALREADY_ENABLED" ? directory : undefined, message };
      },
    },
  };
}

describe("compile cache", () => {
  it("does nothing where Node has no compile cache (Node 20)", () => {
    expect(enableCompileCache({}, {})).toEqual({ status: "unsupported" });
  });

  it("keeps the cache in the instance's temporary folder, or where NODE_COMPILE_CACHE says, and writes it out soon after start", () => {
    const first = fakeModule("ENABLED");
    const scheduled: (() => void)[] = [];
    expect(enableCompileCache({}, first.api, (write) => scheduled.push(write))).toEqual({ status: "enabled", directory: join(tmpdir(), "secops-compile-cache") });
    expect(scheduled).toHaveLength(1);
    expect(first.flushes()).toBe(0);
    scheduled[0]!();
    expect(first.flushes()).toBe(1);
    const named = fakeModule("ALREADY_ENABLED");
    expect(enableCompileCache({ NODE_COMPILE_CACHE: "/var/cache/node" }, named.api)).toEqual({ status: "already-enabled", directory: "/var/cache/node" });
    expect(named.calls).toEqual(["/var/cache/node"]);
  });

  it("reports a cache turned off (NODE_DISABLE_COMPILE_CACHE) or one that could not be set up, and never throws", () => {
    const none = (): void => {
      throw new Error("nothing to write");
    };
    expect(enableCompileCache({}, fakeModule("DISABLED").api, none)).toEqual({ status: "disabled" });
    expect(enableCompileCache({}, fakeModule("FAILED", "EACCES: permission denied").api)).toMatchObject({ status: "failed", message: "EACCES: permission denied" });
    const throwing = {
      constants: { compileCacheStatus: { FAILED: 0, ENABLED: 1, ALREADY_ENABLED: 2, DISABLED: 3 } },
      enableCompileCache: () => {
        throw new Error("read-only file system");
      },
    };
    expect(enableCompileCache({}, throwing)).toMatchObject({ status: "failed", message: "read-only file system" });
  });
});
