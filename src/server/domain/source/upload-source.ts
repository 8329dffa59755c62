import { mkdir, mkdtemp, open, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";
import { blobStore } from "@/server/platform/blob-store";
import { scopedDb } from "@/server/platform/db/scoped";
import { SourceRejection, type TFetched, type TSourceLimits } from "./source.types";

/**
 * Uploaded source trees (issue #39): `capstan deploy <dir>` packs a working
 * tree as tar.gz, sends it to POST /v1/workspaces/{ws}/uploads, and creates
 * the product with `repo_url: "upload:"` and `ref: <upload id>`: the
 * workspace's uploads are a repository whose refs are upload ids, so a new
 * revision of the same product is `POST .../source-freezes {ref: <new upload id>}`.
 * The freeze unpacks the archive here and then goes through exactly what a
 * git checkout goes through (scanTree, the deterministic snapshot, detection,
 * capabilities.json): the snapshot, not the upload, is what the revision keeps.
 *
 * Unpacking enforces the intake limits while it streams (a small gzip can
 * expand enormously) and refuses what git could never produce: absolute or
 * `..` names, hard links, devices and fifos, an entry twice, and writing
 * through a symlink the archive created (each file is opened O_EXCL under
 * parents that are real directories made here).
 */
export const UPLOAD_REPO_URL = "upload:";
const UPLOAD_ID = /^upl_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

export function isUploadSource(repoUrl: string): boolean {
  return repoUrl === UPLOAD_REPO_URL;
}

/** Intake-time check: the ref must be an upload of this workspace (else 422 ref_not_found, nothing created). */
export async function checkUploadRef(workspaceId: string, ref: string): Promise<void> {
  const missing = () =>
    new SourceRejection(
      "ref_not_found",
      `An upload source's ref must be the id of an upload of this workspace (POST /v1/workspaces/${workspaceId}/uploads); ${JSON.stringify(ref.slice(0, 64))} is not one`,
    );
  if (!UPLOAD_ID.test(ref)) throw missing();
  const row = await scopedDb(workspaceId).upload.findUnique({ where: { id: ref }, select: { id: true } });
  if (!row) throw missing();
}

export async function fetchUpload(
  workspaceId: string,
  uploadId: string,
  limits: TSourceLimits,
  workRoot: string,
): Promise<TFetched> {
  await checkUploadRef(workspaceId, uploadId);
  const row = await scopedDb(workspaceId).upload.findUniqueOrThrow({
    where: { id: uploadId },
    select: { sha256: true },
  });
  const bytes = await blobStore().get(row.sha256);
  if (!bytes) throw new SourceRejection("fetch_failed", `The bytes of upload ${uploadId} are gone from the blob store`);
  await mkdir(workRoot, { recursive: true });
  const base = await mkdtemp(path.join(workRoot, "upload-"));
  const cleanup = () => rm(base, { recursive: true, force: true, maxRetries: 3 });
  try {
    const tree = path.join(base, "tree");
    await mkdir(tree);
    await unpackTarGz(bytes, tree, limits);
    return { dir: tree, commitSha: null, cleanup };
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
}

/** Bad gzip or tar data is the upload's fault (fetch_failed); a file-system error (E...) stays ours. */
function notAnArchive(err: unknown): unknown {
  if (err instanceof SourceRejection) return err;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string" && code.startsWith("E")) return err;
  return new SourceRejection(
    "fetch_failed",
    `The upload is not a readable tar.gz: ${(err as Error)?.message ?? String(err)}`,
  );
}

function entryName(raw: string): string {
  const name = raw.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  const traversal = () =>
    new SourceRejection(
      "traversal",
      `The archive entry ${JSON.stringify(raw.slice(0, 200))} can escape the tree`,
      undefined,
      name || raw,
    );
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name) || name.includes("\\")) throw traversal();
  if (name.split("/").some((seg) => seg === ".." || seg === "." || seg === "")) throw traversal();
  return name;
}

/** Unpacks a tar.gz into `into` under the intake limits (see the module comment). */
export async function unpackTarGz(bytes: Buffer, into: string, limits: TSourceLimits): Promise<void> {
  const extract = tar.extract();
  const seen = new Set<string>();
  const links = new Set<string>();
  let files = 0;
  let total = 0;
  const feeding = pipeline(Readable.from([bytes]), createGunzip(), extract).catch((err: unknown) => {
    throw notAnArchive(err);
  });
  try {
    for await (const entry of extract) {
      const h = entry.header;
      const name = entryName(h.name);
      if (name === "") {
        entry.resume();
        continue; // the archive's own root ("./")
      }
      if (seen.has(name)) throw new SourceRejection("traversal", `The archive holds ${name} twice`, undefined, name);
      seen.add(name);
      const segs = name.split("/");
      for (let i = 1; i < segs.length; i++) {
        if (links.has(segs.slice(0, i).join("/")))
          throw new SourceRejection("traversal", `The archive writes ${name} through a symlink`, undefined, name);
      }
      if (segs.length > limits.maxDepth) {
        throw new SourceRejection(
          "depth_limit",
          `A path is ${segs.length} levels deep, over the limit of ${limits.maxDepth}`,
          { actual: segs.length, limit: limits.maxDepth },
          name,
        );
      }
      const target = path.join(into, ...segs);
      if (h.type === "directory") {
        await mkdir(target, { recursive: true });
        entry.resume();
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      if (h.type === "symlink") {
        links.add(name);
        await symlink(h.linkname ?? "", target);
        entry.resume();
      } else if (h.type === "file" || h.type === "contiguous-file") {
        const size = h.size ?? 0;
        if (size > limits.maxFileBytes) {
          throw new SourceRejection(
            "file_size_limit",
            `A file is ${size} bytes, over the limit of ${limits.maxFileBytes}`,
            { actual: size, limit: limits.maxFileBytes },
            name,
          );
        }
        total += size;
        if (total > limits.maxTotalBytes) {
          throw new SourceRejection(
            "size_limit",
            `The tree is over the size limit of ${limits.maxTotalBytes} bytes`,
            { actual: total, limit: limits.maxTotalBytes },
            name,
          );
        }
        const fh = await open(target, "wx", (h.mode ?? 0o644) & 0o111 ? 0o755 : 0o644);
        try {
          for await (const chunk of entry) await fh.write(chunk as Buffer);
        } finally {
          await fh.close();
        }
      } else {
        throw new SourceRejection(
          "traversal",
          `The archive holds a ${h.type ?? "special"} entry (only files, directories and symlinks are accepted)`,
          undefined,
          name,
        );
      }
      files += 1;
      if (files > limits.maxFiles) {
        throw new SourceRejection(
          "file_count_limit",
          `The tree has more than ${limits.maxFiles} files`,
          { actual: files, limit: limits.maxFiles },
          name,
        );
      }
    }
  } catch (err) {
    extract.destroy();
    await feeding.catch(() => undefined);
    throw notAnArchive(err);
  }
  await feeding;
}
