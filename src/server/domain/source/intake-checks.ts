import { env } from "@/server/platform/env";
import { AppError } from "@/server/platform/errors";
import { SourceRejection } from "./source.types";
import { checkUploadRef, isUploadSource } from "./upload-source";

/**
 * What intake can refuse before it creates anything (issue #39): a source
 * this server's own settings refuse, and an upload ref that names no upload
 * of the workspace. A refusal is a 422 that names the setting or the fix and
 * leaves no product, revision or freeze behind. Everything that needs the
 * network or the tree (hosts off the allow-list included, so the console keeps
 * showing those as a rejected freeze) is still decided by the freeze worker.
 */
export async function checkIntakeSource(workspaceId: string, repoUrl: string, ref: string): Promise<void> {
  if (isUploadSource(repoUrl)) {
    try {
      await checkUploadRef(workspaceId, ref);
    } catch (err) {
      if (err instanceof SourceRejection) throw refused(err.code, err.message, "/ref");
      throw err;
    }
    return;
  }
  if (env().SOURCE_ALLOW_LOCAL || !isLocalSource(repoUrl)) return;
  throw refused(
    "host_not_allowed",
    "file:// and loopback sources are not enabled on this server: the operator sets SOURCE_ALLOW_LOCAL=1 to allow them " +
      "(development and tests), or deploy the directory with `capstan deploy <dir>`, which uploads its tree.",
    "/repo_url",
  );
}

function refused(code: string, message: string, path: string): AppError {
  return new AppError("validation_failed", message, {
    reason: code,
    errors: [{ path, message, ...({ code, retryable: false } as object) }],
  });
}

function isLocalSource(raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  if (u.protocol === "file:") return true;
  const host = u.hostname.toLowerCase();
  return (
    (u.protocol === "http:" || u.protocol === "https:") &&
    (host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host))
  );
}
