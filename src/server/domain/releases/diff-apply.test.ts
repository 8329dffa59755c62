import { describe, expect, it } from "vitest";
import { applyUnifiedDiff, DiffRefusal, unfence } from "./diff-apply";

const SERVER = [
  'const http = require("node:http");',
  "const port = 8080;",
  'http.createServer((q, s) => s.end("ok")).listen(port);',
  "",
].join("\n");
const files = new Map<string, string | null>([
  ["server.js", SERVER],
  ["package.json", '{"name":"a"}\n'],
  ["logo.png", null],
]);
const GOOD = `--- a/server.js
+++ b/server.js
@@ -1,3 +1,3 @@
 const http = require("node:http");
-const port = 8080;
+const port = Number(process.env.PORT);
 http.createServer((q, s) => s.end("ok")).listen(port);
`;
const refusal = (answer: string) => {
  try {
    applyUnifiedDiff(answer, files);
  } catch (err) {
    if (err instanceof DiffRefusal) return `${err.code}: ${err.message}`;
    throw err;
  }
  return "applied";
};

describe("applyUnifiedDiff", () => {
  it("applies a unified diff to the frozen text and returns the pre-image hash and post-image", () => {
    const { diff, changes } = applyUnifiedDiff(GOOD, files);
    expect(diff).toBe(GOOD);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.path).toBe("server.js");
    expect(changes[0]!.before_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(changes[0]!.after).toBe(SERVER.replace("const port = 8080;", "const port = Number(process.env.PORT);"));
  });

  it("tolerates one Markdown fence, git headers and a hunk at another line than stated", () => {
    const git =
      "diff --git a/server.js b/server.js\nindex 1..2 100644\n" + GOOD.replace("@@ -1,3 +1,3 @@", "@@ -5,3 +5,3 @@");
    expect(applyUnifiedDiff("```diff\n" + git + "```", files).changes[0]!.after).toContain("process.env.PORT");
    expect(unfence("```\nx\n```")).toBe("x\n");
  });

  it("creates a new file from /dev/null", () => {
    const created = applyUnifiedDiff(
      "--- /dev/null\n+++ b/lib/util.js\n@@ -0,0 +1,2 @@\n+exports.a = 1;\n+exports.b = 2;\n",
      files,
    );
    expect(created.changes).toEqual([
      { path: "lib/util.js", before_sha256: null, after: "exports.a = 1;\nexports.b = 2;\n" },
    ]);
  });

  it("refuses anything that is not only a unified diff", () => {
    expect(refusal("Sure! Here is the fix:\n" + GOOD)).toMatch(/^ai_answer_not_a_diff: .*line 1/);
    expect(refusal("I cannot help with that.")).toMatch(/^ai_answer_not_a_diff/);
    expect(refusal("")).toMatch(/^ai_answer_not_a_diff: .*it is empty/);
    expect(refusal(GOOD.replace("@@ -1,3 +1,3 @@", "@@ -1,4 +1,3 @@"))).toMatch(
      /^ai_answer_not_a_diff: .*says -4 \+3 lines/,
    );
    expect(refusal(GOOD.replaceAll("server.js", "../etc/passwd"))).toMatch(/not a relative path/);
    expect(refusal("--- a/server.js\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")).toMatch(/deletes server.js/);
    expect(refusal(GOOD.replace("+++ b/server.js", "+++ b/other.js"))).toMatch(/renames server.js to other.js/);
    expect(refusal("--- a/server.js\n+++ b/server.js\n")).toMatch(/has a header but no hunk/);
  });

  it("refuses a diff whose context does not match the frozen file, or that targets what is not there", () => {
    expect(refusal(GOOD.replace("const port = 8080;", "const port = 9090;"))).toMatch(
      /^ai_diff_does_not_apply: .*hunk 1 of server.js/,
    );
    expect(refusal(GOOD.replaceAll("server.js", "missing.js"))).toMatch(
      /missing.js is not a file of the frozen source/,
    );
    expect(refusal(GOOD.replaceAll("server.js", "logo.png"))).toMatch(/logo.png is not a text file/);
    expect(refusal("--- /dev/null\n+++ b/server.js\n@@ -0,0 +1 @@\n+x\n")).toMatch(
      /creates server.js, which already exists/,
    );
  });
});
