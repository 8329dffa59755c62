import { describe, expect, it } from "vitest";
import { EgressBlockedError, egressBlocked, isPrivateHostLiteral, isPublicAddress } from "./egress";

describe("isPublicAddress", () => {
  it.each([
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.1",
    "100.127.255.254",
    "127.0.0.1",
    "127.255.0.9",
    "169.254.169.254",
    "169.254.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.168.1.1",
    "198.18.0.1",
    "198.19.255.255",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
  ])("refuses IPv4 %s", (ip) => expect(isPublicAddress(ip)).toBe(false));

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "192.0.1.1",
    "198.17.255.255",
    "198.20.0.1",
    "223.255.255.255",
  ])("accepts IPv4 %s", (ip) => expect(isPublicAddress(ip)).toBe(true));

  it.each([
    "::",
    "::1",
    "[::1]",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "febf::1",
    "fec0::1",
    "ff02::1",
    "ff0e::fb",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.1.2.3",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "::127.0.0.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::7f00:1",
    // SIIT, local-use NAT64 and 6to4 forms of private v4 addresses.
    "::ffff:0:7f00:1",
    "::ffff:0:a9fe:a9fe",
    "64:ff9b:1::a9fe:a9fe",
    "64:ff9b:1::808:808",
    "2002:a9fe:a9fe::1",
    "2002:7f00:1::",
    "2002:a00:1::5",
  ])("refuses IPv6 %s", (ip) => expect(isPublicAddress(ip)).toBe(false));

  it.each([
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "[2a00:1450::1]",
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "64:ff9b::8.8.8.8",
    "::ffff:0:808:808",
    "2002:808:808::1",
    "fbff::1",
    "fe7f::1",
  ])("accepts IPv6 %s", (ip) => expect(isPublicAddress(ip)).toBe(true));

  // The ipaddr.js special-purpose ranges beyond the hand-written list: documentation, benchmarking, ORCHID, discard, SRv6.
  it.each([
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "192.88.99.1",
    "2001:db8::1",
    "3fff::1",
    "2001:2::1",
    "100::1",
    "2001:20::1",
    "5f00::1",
    "64:ff9b::c000:201",
  ])("refuses the special-purpose address %s", (ip) => expect(isPublicAddress(ip)).toBe(false));

  // Globally reachable anycast (AS112, AMT) and Teredo stay public.
  it.each([
    "192.175.48.1",
    "192.31.196.1",
    "192.52.193.1",
    "2620:4f:8000::1",
    "2001:4:112::1",
    "2001:3::1",
    "2001:0:4136:e378::1",
  ])("accepts the public special-purpose address %s", (ip) => expect(isPublicAddress(ip)).toBe(true));

  it.each(["", "localhost", "example.com", "1.2.3", "1.2.3.4.5", "::g"])("is false for a non-address %j", (ip) =>
    expect(isPublicAddress(ip)).toBe(false),
  );
});

describe("isPrivateHostLiteral", () => {
  it.each([
    "localhost",
    "LOCALHOST",
    "localhost.",
    "api.localhost",
    "127.0.0.1",
    "10.0.0.5",
    "169.254.169.254",
    "100.64.1.1",
    "0.0.0.0",
    "::1",
    "[::1]",
    "[::]",
    "[fe80::1]",
    "[fd00::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    // Numeric IPv4 forms URL parsers (and getaddrinfo) accept.
    "2130706433",
    "0x7f.1",
    "0177.0.0.1",
    "127.1",
  ])("treats %s as private", (host) => expect(isPrivateHostLiteral(host)).toBe(true));

  it.each([
    "example.com",
    "api.openai.com",
    "localhost.example.com",
    "8.8.8.8",
    "[2606:4700:4700::1111]",
    "2606:4700:4700::1111",
    "internal.corp",
  ])("leaves %s to the connect-time guard", (host) => expect(isPrivateHostLiteral(host)).toBe(false));
});

describe("EgressBlockedError", () => {
  it("names the host, not its addresses, and is found behind a cause chain", () => {
    const blocked = new EgressBlockedError("metadata.internal");
    expect(blocked).toMatchObject({ code: "EGRESS_BLOCKED", host: "metadata.internal", name: "EgressBlockedError" });
    expect(blocked.message).toBe("egress blocked: metadata.internal resolves to a non-public address");
    expect(egressBlocked(new TypeError("fetch failed", { cause: blocked }))).toBe(blocked);
    expect(egressBlocked(new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") }))).toBeNull();
    expect(egressBlocked(undefined)).toBeNull();
  });

  it("is recognised by its code when another bundle's copy of the class threw it", () => {
    // Next.js bundles have their own module instances; the shared agent may throw the other bundle's class.
    const foreign = Object.assign(new Error("egress blocked: x.example resolves to a non-public address"), {
      code: "EGRESS_BLOCKED",
    });
    expect(foreign).not.toBeInstanceOf(EgressBlockedError);
    expect(egressBlocked(new TypeError("fetch failed", { cause: foreign }))).toBe(foreign);
  });
});
