import { describe, expect, it } from "vitest";
import { breadcrumbTrail } from "./breadcrumb-trail";

describe("breadcrumbTrail", () => {
  it("names the workspace, the area and the item; a detail page without a name shows its id", () => {
    expect(breadcrumbTrail("/console/w/ws_1/products", "Acme")).toEqual([
      { label: "Acme", href: "/console/w/ws_1" },
      { label: "Products", href: "/console/w/ws_1/products" },
    ]);
    expect(
      breadcrumbTrail("/console/w/ws_1/products/prod_9", "Acme", [{ label: "shop-web" }]).map((c) => c.label),
    ).toEqual(["Acme", "Products", "shop-web"]);
    expect(breadcrumbTrail("/console/w/ws_1/deployments/dep_3", undefined).map((c) => c.label)).toEqual([
      "ws_1",
      "Deployments",
      "dep_3",
    ]);
    expect(breadcrumbTrail("/console/w/ws_1", "Acme").map((c) => c.label)).toEqual(["Acme", "Overview"]);
  });

  it("puts detail pages without an area of their own under their parent area", () => {
    const t = breadcrumbTrail("/console/w/ws_1/revisions/rev_2", "Acme", [
      { label: "shop-web", href: "/console/w/ws_1/products/prod_9" },
      { label: "Revision rev_2" },
    ]);
    expect(t.map((c) => c.label)).toEqual(["Acme", "Products", "shop-web", "Revision rev_2"]);
    expect(breadcrumbTrail("/console/w/ws_1/correlations/evt_1", "Acme").map((c) => c.label)).toEqual([
      "Acme",
      "Audit log",
      "evt_1",
    ]);
    expect(breadcrumbTrail("/console/w/ws_1/billing/invoices/ivc_4", "Acme").map((c) => c.label)).toEqual([
      "Acme",
      "Billing",
      "ivc_4",
    ]);
  });

  it("covers the account pages, the workspace list and unknown paths", () => {
    expect(breadcrumbTrail("/console", undefined)).toEqual([{ label: "Workspaces" }]);
    expect(breadcrumbTrail("/console/tokens", undefined).map((c) => c.label)).toEqual(["Account", "API tokens"]);
    expect(breadcrumbTrail("/console/nope/x", undefined).map((c) => c.label)).toEqual(["Account", "Page not found"]);
    expect(breadcrumbTrail("/console/w/ws_1/nope", "Acme").map((c) => c.label)).toEqual(["Acme", "Page not found"]);
  });
});
