/**
 * A product's source in words: `capstan deploy <dir>` uploads the working tree
 * (repo_url `upload:`, ref the upload's id; docs/decisions.md issue #39), which
 * is not a repository a person could open.
 */
export function sourceLabel(repoUrl: string): string {
  return repoUrl === "upload:" ? "an uploaded directory (capstan deploy)" : repoUrl;
}
