import { describe, expect, it } from "vitest";
import { normalizeHostname } from "./hostname";

const rules = { surfaceDomain: "capstan.app", reservedHosts: ["console.capstan.dev"] };
const ok = (raw: string) => {
  const r = normalizeHostname(raw, rules);
  if (!r.ok) throw new Error(`${raw}: ${r.message}`);
  return r;
};
const refused = (raw: string) => {
  const r = normalizeHostname(raw, rules);
  if (r.ok) throw new Error(`${raw} was accepted as ${r.hostname}`);
  return r.message;
};

describe("custom domain hostnames", () => {
  it("normalises case, a trailing dot and IDNA to one canonical form", () => {
    expect(ok("App.Example.COM.").hostname).toBe("app.example.com");
    expect(ok("shop.münchen.de").hostname).toBe("shop.xn--mnchen-3ya.de");
    expect(ok("xn--80ak6aa92e.com").hostname).toBe("xn--80ak6aa92e.com");
  });

  it("tells an apex from a subdomain by the public suffix list", () => {
    expect(ok("example.com")).toMatchObject({ apex: true, registrable: "example.com" });
    expect(ok("example.co.uk")).toMatchObject({ apex: true, registrable: "example.co.uk" });
    expect(ok("www.example.co.uk")).toMatchObject({ apex: false, registrable: "example.co.uk" });
    expect(ok("me.github.io")).toMatchObject({ apex: true });
  });

  it("refuses URLs, IP literals, wildcards and public suffixes with the reason", () => {
    expect(refused("http://x.com")).toMatch(/not a URL/);
    expect(refused("x.com/path")).toMatch(/not a URL/);
    expect(refused("x.com:8080")).toMatch(/host:port/);
    expect(refused("1.2.3.4")).toMatch(/not an IP address/);
    expect(refused("[::1]")).toMatch(/not an IP address/);
    expect(refused("1.2.3.999")).toMatch(/not an IP address/);
    expect(refused("*.example.com")).toMatch(/wildcard/);
    expect(refused("com")).toMatch(/at least two labels/);
    expect(refused("co.uk")).toMatch(/public suffix/);
    expect(refused("github.io")).toMatch(/public suffix/);
  });

  it("refuses malformed names", () => {
    expect(refused("a".repeat(300) + ".com")).toMatch(/longer than 253/);
    expect(refused(`${"a".repeat(64)}.com`)).toMatch(/1\.\.63/);
    expect(refused("xn--zz.com")).toMatch(/not a valid/);
    expect(refused("ab--cd.com")).toMatch(/third and fourth/);
    expect(refused("-a.com")).toMatch(/hyphen/);
    expect(refused("a..com")).toMatch(/1\.\.63/);
    expect(refused("exa_mple.com")).toMatch(/letters, digits and hyphens/);
    expect(refused("x.com..")).toMatch(/more than one dot/);
    expect(refused("a b.com")).toMatch(/spaces/);
    expect(refused("a\u0000b.com")).toMatch(/control/);
    expect(refused("")).toMatch(/empty/);
    expect(refused("<script>.com")).toMatch(/not a valid/);
  });

  it("keeps Capstan's own hosts out of reach", () => {
    expect(refused("capstan.app")).toMatch(/surfaces/);
    expect(refused("srf-01jh.capstan.app")).toMatch(/surfaces/);
    expect(refused("console.capstan.dev")).toMatch(/Capstan itself/);
    expect(ok("capstan.dev.evil.com").hostname).toBe("capstan.dev.evil.com");
  });
});
