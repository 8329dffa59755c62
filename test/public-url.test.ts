import { describe, expect, it } from "vitest";
import { parseStartArgs, resolveUrls } from "../scripts/public-url.mjs";

describe("npm start: settings that follow the port", () => {
  it("defaults both URLs from PORT", () => {
    const r = resolveUrls({ PORT: "3700" });
    expect(r).toMatchObject({
      port: "3700",
      publicUrl: "http://localhost:3700",
      nextauthUrl: "http://localhost:3700",
      warnings: [],
    });
  });

  it("-p wins over PORT and the URLs follow it", () => {
    const r = resolveUrls({ PORT: "3000" }, parseStartArgs(["-p", "3710"]));
    expect(r.port).toBe("3710");
    expect(r.publicUrl).toBe("http://localhost:3710");
    expect(resolveUrls({}, parseStartArgs(["--port=3711", "-H", "127.0.0.1"]))).toMatchObject({
      port: "3711",
      host: "127.0.0.1",
    });
  });

  it("NEXTAUTH_URL follows a set CAPSTAN_PUBLIC_URL; a public host on another port is no mismatch", () => {
    const r = resolveUrls({ PORT: "3700", CAPSTAN_PUBLIC_URL: "https://capstan.example.com" });
    expect(r.nextauthUrl).toBe("https://capstan.example.com");
    expect(r.warnings).toEqual([]);
  });

  it("warns once per mismatch, naming the settings", () => {
    const port = resolveUrls({ PORT: "3700", CAPSTAN_PUBLIC_URL: "http://localhost:3000" });
    expect(port.warnings).toHaveLength(1);
    expect(port.warnings[0]).toMatch(/CAPSTAN_PUBLIC_URL .*port 3000.*listens on 3700/);
    const auth = resolveUrls({ PORT: "3700", NEXTAUTH_URL: "http://localhost:3000" });
    expect(auth.warnings).toHaveLength(1);
    expect(auth.warnings[0]).toMatch(/NEXTAUTH_URL .* CAPSTAN_PUBLIC_URL/);
  });

  it("refuses unknown options and a non-numeric port", () => {
    expect(() => parseStartArgs(["--prot", "1"])).toThrow(/unknown option --prot/);
    expect(() => parseStartArgs(["-p", "x"])).toThrow(/port number/);
  });
});
