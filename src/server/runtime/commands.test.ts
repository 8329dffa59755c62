import { describe, expect, it } from "vitest";
import { CommandSyntaxError, splitCommand } from "./commands";

describe("splitCommand", () => {
  it("splits plain commands into argument vectors", () => {
    expect(splitCommand("npm ci")).toEqual(["npm", "ci"]);
    expect(splitCommand("  node   server.js  --port 3000 ")).toEqual(["node", "server.js", "--port", "3000"]);
    expect(splitCommand(`node "my app.js" 'a b' c\\ d`)).toEqual(["node", "my app.js", "a b", "c d"]);
    expect(splitCommand(`echo "say \\"hi\\""`)).toEqual(["echo", 'say "hi"']);
    expect(splitCommand(`node ''`)).toEqual(["node", ""]);
  });

  it("refuses everything a shell would interpret", () => {
    for (const bad of [
      "npm ci && npm run build",
      "node a.js | tee log",
      "node $(whoami)",
      "node `id`",
      "node a > out",
      "rm -rf *",
      "a; b",
      "node a.js\nrm -rf /",
      "ls ~",
    ]) {
      expect(() => splitCommand(bad), bad).toThrow(CommandSyntaxError);
    }
    expect(() => splitCommand("")).toThrow(/empty/);
    expect(() => splitCommand("node 'open")).toThrow(/unterminated/);
    expect(() => splitCommand("node \\")).toThrow(/backslash/);
  });

  it("keeps shell characters inside quotes as plain text", () => {
    expect(splitCommand(`node -e "console.log(1 && 2)"`)).toEqual(["node", "-e", "console.log(1 && 2)"]);
  });
});
