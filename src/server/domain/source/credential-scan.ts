/**
 * Spots text that looks like a credential in a runtime descriptor field
 * (design "Source intake": secrets in descriptor fields reject the freeze
 * with `credential_in_descriptor`). Used by detection and by
 * descriptor:confirm edits.
 *
 * The patterns are the brief's, with these deliberate adjustments:
 * - `sk-` keys also match the hyphenated modern forms (`sk-proj-...`,
 *   `sk-ant-...`) and must start a word (`task-...` is not a key);
 * - GitHub tokens cover every `gh?_` kind and fine-grained `github_pat_`;
 * - an assignment whose value is a shell variable reference
 *   (`TOKEN=$TOKEN`, `API_KEY="${API_KEY}"`) is not a credential, and neither
 *   is a URL whose password part is one (`https://x:${TOKEN}@host`);
 * - a URL password stops at `/`, so `http://localhost:3000/@scope/pkg` is not
 *   mistaken for `user:password@`.
 */
const PATTERNS: ReadonlyArray<readonly [label: string, re: RegExp]> = [
  ["an API secret key (sk-...)", /\bsk-[A-Za-z0-9_-]{20,}/],
  ["a GitHub token", /\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})/],
  ["an AWS access key id", /AKIA[0-9A-Z]{16}/],
  ["a Slack token", /xox[baprs]-[A-Za-z0-9-]{10,}/],
  ["a private key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  [
    "an API key, secret, token or password assignment",
    /(?:api[_-]?key|secret|token|password)\s*=\s*(?!["']?\$)\S{8,}/i,
  ],
  ["a URL with embedded credentials", /https?:\/\/[^/\s:@]+:(?!\$)[^@\s/]+@/],
];

/**
 * Returns a description of the first kind of credential found in `text`
 * (e.g. "a GitHub token"), or null. It never returns the matched value, so
 * the result is safe to put in messages and logs.
 */
export function findCredential(text: string): string | null {
  for (const [label, re] of PATTERNS) if (re.test(text)) return label;
  return null;
}
