import { z } from "zod";
import { describe, expect, it } from "vitest";
import { oneTimeSecret, oneTimeSecretPaths, storableBody, stripOneTimeSecrets } from "./one-time-secret";

describe("one-time secret marks", () => {
  const Created = z
    .object({
      id: z.string(),
      secret: oneTimeSecret(z.object({ password: z.string(), url: z.string() }).nullable(), "db"),
      nested: z
        .object({ items: z.array(z.object({ key: oneTimeSecret(z.string(), "k"), name: z.string() })) })
        .nullable(),
      choice: z.union([z.object({ a: oneTimeSecret(z.string(), "a") }), z.object({ b: z.string() })]).optional(),
    })
    .meta({ id: "PlantedForUnitTest" });

  it("finds every marked field, through nullable, optional, arrays and unions", () => {
    expect(oneTimeSecretPaths(Created)).toEqual([["secret"], ["nested", "items", "*", "key"], ["choice", "a"]]);
    expect(oneTimeSecretPaths(z.object({ id: z.string(), secret_rotated_at: z.string() }))).toEqual([]);
  });

  it("a marked field is optional (absent from a replay) and its description says so", () => {
    expect(Created.safeParse({ id: "x", nested: null }).success).toBe(true);
    expect(z.toJSONSchema(Created.shape.secret)).toMatchObject({ "x-capstan-one-time-secret": true });
  });

  it("strips the marked fields from a copy; the original keeps them", () => {
    const body = {
      id: "x",
      secret: { password: "p", url: "u" },
      nested: { items: [{ key: "k1", name: "n" }, { name: "m" }] },
      choice: { a: "s" },
    };
    const stripped = stripOneTimeSecrets(body, oneTimeSecretPaths(Created));
    expect(stripped).toEqual({ id: "x", nested: { items: [{ name: "n" }, { name: "m" }] }, choice: {} });
    expect(body.secret.password).toBe("p");
  });

  it("a body that is not JSON is not stored when the operation has a secret", () => {
    expect(storableBody("not json", [["secret"]])).toBe("");
    expect(storableBody("not json", [])).toBe("not json");
    expect(storableBody(JSON.stringify({ secret: "s", id: 1 }), [["secret"]])).toBe('{"id":1}');
  });
});
