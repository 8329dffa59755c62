/**
 * Descriptor commands ("npm ci", "node server.js") become argument vectors
 * without a shell: whitespace separates words, single and double quotes group
 * them, a backslash escapes the next character. Anything a shell would
 * interpret (pipes, redirects, substitutions, globs, chaining) is refused,
 * so a descriptor string can never reach `sh -c` on the host. An app that
 * needs shell syntax puts it in a package.json script, which its own package
 * manager runs inside the sandbox.
 */
const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~!\n\r]/;

export class CommandSyntaxError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
    this.name = "CommandSyntaxError";
  }
}

export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\") {
      if (i + 1 >= command.length) throw new CommandSyntaxError(command, "the command ends with a lone backslash");
      word += command[++i];
      inWord = true;
    } else if (ch === " " || ch === "\t") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else if (SHELL_SYNTAX.test(ch)) {
      throw new CommandSyntaxError(
        command,
        `the command uses shell syntax (${JSON.stringify(ch)}); write it as a plain command or move it into a package.json script`,
      );
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new CommandSyntaxError(command, "the command has an unterminated quote");
  if (inWord) words.push(word);
  if (!words.length) throw new CommandSyntaxError(command, "the command is empty");
  return words;
}
