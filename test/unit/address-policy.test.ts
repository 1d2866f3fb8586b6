import { describe, expect, it } from "vitest";
import { checkWebhookUrl, isPublicAddress, type HostResolver } from "../../shared/platform/delivery/address-policy";

const notPublic: Array<[string, string]> = [
  // IPv4
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback, end of 127/8"],
  ["10.0.0.1", "RFC 1918 10/8"],
  ["172.16.0.1", "RFC 1918 172.16/12"],
  ["172.31.255.255", "RFC 1918 172.16/12, last"],
  ["192.168.1.1", "RFC 1918 192.168/16"],
  ["169.254.169.254", "link-local, cloud metadata"],
  ["169.254.0.1", "link-local"],
  ["100.64.0.1", "CGNAT 100.64/10"],
  ["100.100.100.200", "CGNAT, Alibaba metadata"],
  ["100.127.255.255", "CGNAT, last"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "0/8"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved 240/4"],
  ["192.0.0.8", "IETF protocol assignments 192.0.0/24"],
  ["192.0.2.1", "TEST-NET-1"],
  ["198.51.100.7", "TEST-NET-2"],
  ["203.0.113.9", "TEST-NET-3"],
  ["198.18.0.1", "benchmarking 198.18/15"],
  ["198.19.255.255", "benchmarking 198.18/15, last"],
  // IPv6
  ["::1", "IPv6 loopback"],
  ["::", "IPv6 unspecified"],
  ["fc00::1", "unique-local fc00::/7"],
  ["fd00:ec2::254", "unique-local, AWS metadata"],
  ["fe80::1", "link-local"],
  ["febf:ffff::1", "link-local, end of fe80::/10"],
  ["fe80::1%eth0", "link-local with zone"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["2001:db8:ffff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["fec0::1", "deprecated site-local"],
  ["100::1", "discard-only"],
  ["3fff::1", "documentation 3fff::/20"],
  ["4000::1", "outside the global unicast block 2000::/3"],
  // IPv6 embedding IPv4
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
  ["::ffff:10.0.0.1", "IPv4-mapped private"],
  ["::ffff:0:10.0.0.1", "IPv4-translated private"],
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["::8.8.8.8", "IPv4-compatible (deprecated) even with a public address"],
  ["64:ff9b::127.0.0.1", "NAT64 loopback"],
  ["64:ff9b::a9fe:a9fe", "NAT64 metadata"],
  ["64:ff9b::10.1.2.3", "NAT64 private"],
  ["64:ff9b:1::808:808", "NAT64 local-use prefix"],
  ["2002:7f00:1::1", "6to4 of loopback"],
  ["2002:a9fe:a9fe::1", "6to4 of metadata"],
  ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  ["2001::1", "Teredo"],
  // Unparseable
  ["", "empty"],
  ["localhost", "a name"],
  ["127.1", "shorthand IPv4"],
  ["0x7f000001", "hex IPv4"],
  ["2130706433", "decimal IPv4"],
  ["256.1.1.1", "out of range"],
  ["[::1]", "bracketed"],
  ["1.2.3.4/32", "CIDR"],
];

const isPublic: Array<[string, string]> = [
  ["8.8.8.8", "public IPv4"],
  ["1.1.1.1", "public IPv4"],
  ["93.184.215.14", "public IPv4"],
  ["100.63.255.255", "just below CGNAT"],
  ["100.128.0.1", "just above CGNAT"],
  ["172.32.0.1", "just above 172.16/12"],
  ["2606:4700:4700::1111", "public IPv6"],
  ["2001:4860:4860::8888", "public IPv6"],
  ["::ffff:8.8.8.8", "IPv4-mapped public"],
  ["64:ff9b::808:808", "NAT64 of a public address"],
  ["2002:808:808::1", "6to4 of a public address"],
];

describe("isPublicAddress", () => {
  it.each(notPublic)("refuses %s (%s)", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(isPublic)("allows %s (%s)", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

function resolver(table: Record<string, string[]>): HostResolver {
  return async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses;
  };
}

const resolve = resolver({
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "internal.example.com": ["127.0.0.1"],
  "mixed.example.com": ["93.184.215.14", "10.0.0.5"],
  "metadata.example.com": ["::ffff:169.254.169.254"],
  "empty.example.com": [],
});

describe("checkWebhookUrl", () => {
  const strict = { allowPrivateTargets: false, resolve };
  const lenient = { allowPrivateTargets: true, resolve };

  it("accepts an https URL whose every address is public", async () => {
    expect(await checkWebhookUrl("https://hooks.example.com/secops?x=1", strict)).toBeNull();
    expect(await checkWebhookUrl("https://hooks.example.com:8443/secops", strict)).toBeNull();
  });

  it.each([
    ["not a url", /absolute HTTPS URL/],
    ["/relative/path", /absolute HTTPS URL/],
    ["http://hooks.example.com/secops", /HTTPS/],
    ["ftp://hooks.example.com/secops", /HTTPS/],
    ["https://user:pass@hooks.example.com/secops", /credentials/],
    ["https://token@hooks.example.com/secops", /credentials/],
    ["https://localhost/secops", /localhost/],
    ["https://LOCALHOST./secops", /localhost/],
    ["https://api.localhost/secops", /localhost/],
    ["https://127.0.0.1/secops", /IP address/],
    ["https://8.8.8.8/secops", /IP address/],
    ["https://2130706433/secops", /IP address/],
    ["https://[::1]/secops", /IP address/],
    ["https://[2606:4700:4700::1111]/secops", /IP address/],
    ["https://internal.example.com/secops", /private or reserved/],
    ["https://mixed.example.com/secops", /private or reserved/],
    ["https://metadata.example.com/secops", /private or reserved/],
    ["https://nowhere.example.com/secops", /does not resolve/],
    ["https://empty.example.com/secops", /does not resolve/],
  ])("refuses %s", async (url, message) => {
    expect(await checkWebhookUrl(url, strict)).toMatch(message);
  });

  it("with allowPrivateTargets accepts IP literals, loopback names and private names but still requires https and no credentials", async () => {
    const withLoopback = { allowPrivateTargets: true, resolve: resolver({ localhost: ["127.0.0.1", "::1"], "api.localhost": ["127.0.0.1"], "internal.example.com": ["127.0.0.1"] }) };
    expect(await checkWebhookUrl("https://127.0.0.1:8443/secops", lenient)).toBeNull();
    expect(await checkWebhookUrl("https://[::1]:8443/secops", lenient)).toBeNull();
    expect(await checkWebhookUrl("https://internal.example.com/secops", lenient)).toBeNull();
    expect(await checkWebhookUrl("https://localhost:8443/secops", withLoopback)).toBeNull();
    expect(await checkWebhookUrl("https://api.localhost/secops", withLoopback)).toBeNull();
    expect(await checkWebhookUrl("http://127.0.0.1:8080/secops", lenient)).toMatch(/HTTPS/);
    expect(await checkWebhookUrl("http://localhost:8080/secops", withLoopback)).toMatch(/HTTPS/);
    expect(await checkWebhookUrl("http://internal.example.com/secops", lenient)).toMatch(/HTTPS/);
    expect(await checkWebhookUrl("https://a:b@internal.example.com/secops", lenient)).toMatch(/credentials/);
    expect(await checkWebhookUrl("https://a:b@localhost/secops", withLoopback)).toMatch(/credentials/);
    expect(await checkWebhookUrl("https://nowhere.example.com/secops", lenient)).toMatch(/does not resolve/);
  });

  it.each(["https://127.0.0.1:8443/hook", "https://[::1]:8443/hook", "https://localhost:8443/hook", "https://10.0.0.5/hook", "https://internal.example.com/hook"])(
    "refuses the local target %s by default with the name of the setting that allows it locally",
    async (url) => {
      expect(await checkWebhookUrl(url, strict)).toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    },
  );

  it("does not suggest the setting for a public target refused for another reason", async () => {
    for (const url of ["https://8.8.8.8/secops", "http://hooks.example.com/secops", "https://nowhere.example.com/secops"]) {
      expect(await checkWebhookUrl(url, strict)).not.toMatch(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
    }
  });

  it("uses the system resolver by default", async () => {
    // localhost is refused by name before any lookup; a literal never reaches the resolver.
    expect(await checkWebhookUrl("https://localhost/secops", { allowPrivateTargets: false })).toMatch(/localhost/);
    expect(await checkWebhookUrl("https://nonexistent.invalid/secops", { allowPrivateTargets: false })).toMatch(/does not resolve/);
    // With private targets allowed, localhost is looked up (the hosts file names it) and accepted.
    expect(await checkWebhookUrl("https://localhost:8443/secops", { allowPrivateTargets: true })).toBeNull();
  });
});
