import type { TProblemView } from "@/lib/trpc/client";
import type { TSourceFreeze } from "@/server/domain/source/source.contract";
import { formatUnits } from "../shared/format";

const bytes = (n: number) => `${formatUnits(n)} bytes`;

/**
 * Whether a revision's source may still be being frozen, so a view should poll
 * it. Bounded in time: a freeze that settles without producing a descriptor
 * must not keep a page polling forever.
 */
export function stillFreezing(r: { descriptor_status: string; created_at: string }): boolean {
  return r.descriptor_status === "pending" && Date.now() - Date.parse(r.created_at) < 15 * 60_000;
}

/** The host of a repository URL (also for scp-like `git@host:path`), or null. */
export function repoHost(repoUrl: string): string | null {
  try {
    return new URL(repoUrl).hostname || null;
  } catch {
    const scp = /^[^@/\s]+@([^:/\s]+):/.exec(repoUrl);
    return scp ? scp[1]! : null;
  }
}

/** A short display name of a repository: its last path segment without `.git`. */
export function repoName(repoUrl: string): string {
  const last = repoUrl.replace(/\/+$/, "").split(/[/:]/).pop() ?? repoUrl;
  return last.replace(/\.git$/, "") || repoUrl;
}

/**
 * One sentence per spec 2.4 rejection code, in words a developer can act on.
 * `detail.actual/limit` are bytes, counts, levels or characters depending on the code.
 */
export function explainRejection(freeze: Pick<TSourceFreeze, "rejection" | "repo_url" | "ref">): string | null {
  const r = freeze.rejection;
  if (!r) return null;
  const d = r.detail && "actual" in r.detail ? r.detail : undefined;
  const numbers = (unit: (n: number) => string) => (d ? ` (actual ${unit(d.actual)}, limit ${unit(d.limit)})` : "");
  const plain = (n: number) => formatUnits(n);
  switch (r.code) {
    case "size_limit":
      return `The repository is larger than the limit${numbers(bytes)}.`;
    case "file_count_limit":
      return `The repository has more files than the limit${numbers((n) => `${plain(n)} files`)}.`;
    case "depth_limit":
      return `The repository's folders are nested deeper than the limit${numbers((n) => `${plain(n)} levels`)}.`;
    case "file_size_limit":
      return `A file in the repository is larger than the per-file limit${numbers(bytes)}.`;
    case "path_length":
      return `A file path in the repository is longer than the limit${numbers((n) => `${plain(n)} characters`)}.`;
    case "traversal":
      return "A path in the repository tries to leave the repository (for example with “..”).";
    case "symlink_escape":
      return "A symbolic link points outside the repository.";
    case "ref_not_found":
      return `The ref “${freeze.ref}” does not exist in the repository: use an existing branch, tag or commit.`;
    case "host_not_allowed": {
      const host = repoHost(freeze.repo_url);
      return `The repository's host${host ? ` (${host})` : ""} is not on the list of allowed source hosts.`;
    }
    case "private_source_unsupported":
      return "The repository needs credentials; only public repositories are supported.";
    case "fetch_timeout":
      return "Fetching the repository took longer than the time limit. This may be temporary: try again later.";
    case "fetch_failed":
      return "The repository could not be fetched. Check the URL, or try again later if the host is unavailable.";
    case "credential_in_descriptor": {
      const field = r.detail && "field" in r.detail ? r.detail.field : undefined;
      return `The detected runtime descriptor contains what looks like a credential${field ? ` (in ${field})` : ""}. Keep secrets out of the repository's configuration.`;
    }
    default:
      return `The source was rejected (${r.code}).`;
  }
}

/** The freeze's stored problem document, as the Alert primitive shows it. */
export function freezeProblem(problem: Record<string, unknown> | undefined): TProblemView | null {
  if (!problem || typeof problem.detail !== "string") return null;
  const errors = Array.isArray(problem.errors)
    ? (problem.errors as unknown[]).flatMap((e) => {
        const item = e as { path?: unknown; message?: unknown };
        return typeof item?.path === "string"
          ? [{ path: item.path, message: typeof item.message === "string" ? item.message : "" }]
          : [];
      })
    : undefined;
  return {
    title: typeof problem.title === "string" ? problem.title : undefined,
    status: typeof problem.status === "number" ? problem.status : undefined,
    code: typeof problem.code === "string" ? problem.code : undefined,
    reason: typeof problem.reason === "string" ? problem.reason : undefined,
    detail: problem.detail,
    errors,
    correlation_id: typeof problem.correlation_id === "string" ? problem.correlation_id : undefined,
  };
}

/** Repository URLs compared the way people mean them: no trailing slash or `.git`, host and path ignoring case. */
export function sameRepository(a: string, b: string): boolean {
  const norm = (u: string) =>
    u
      .trim()
      .replace(/\/+$/, "")
      .replace(/\.git$/, "")
      .toLowerCase();
  return norm(a) !== "" && norm(a) === norm(b);
}
