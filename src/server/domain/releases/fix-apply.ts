import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Prisma, Revision } from "@/generated/prisma/client";
import { blobStore } from "@/server/platform/blob-store";
import { env } from "@/server/platform/env";
import { AppError } from "@/server/platform/errors";
import { validateContract } from "@/server/domain/source/contract-validation";
import { applyDescriptorEdits, detectDescriptor, UnsupportedSource } from "@/server/domain/source/descriptor-detection";
import { buildSnapshot, readSnapshotEntries } from "@/server/domain/source/snapshot";
import { SourceRejection, type TDescriptor, type TEvidence } from "@/server/domain/source/source.types";
import { scanTree } from "@/server/domain/source/tree-scan";
import type { TFileChange } from "./fix-rules";

/**
 * Turning an approved fix into the columns of a new revision. A source
 * patch unpacks the original snapshot into a scratch directory, checks each
 * pre-image, writes the post-images and runs the intake's own steps (tree
 * scan and limits, deterministic snapshot, descriptor detection, contract
 * validation). A descriptor edit keeps the snapshot and edits the
 * revision's descriptor. The original revision and snapshot are untouched.
 */
export type TNewRevision = Pick<
  Prisma.RevisionUncheckedCreateInput,
  "snapshot" | "descriptor" | "findings" | "contractStatus" | "capabilities" | "contractHash" | "contractRejection"
>;

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

async function snapshotOf(rev: Revision): Promise<Buffer> {
  const ev = rev.snapshot as TEvidence | null;
  const buf = ev ? await blobStore().get(ev.sha256) : null;
  if (!buf)
    throw new AppError("conflict", `Revision ${rev.id} has no frozen snapshot to patch`, {
      reason: "snapshot_missing",
    });
  return buf;
}

const READABLE = /\.(json|[cm]?js)$/;
const READ_MAX_BYTES = 256 * 1024;

const TEXT_MAX_BYTES = 256 * 1024;
const utf8 = (b: Buffer): string | null => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(b);
  } catch {
    return null;
  }
};

/**
 * Every regular file of the frozen snapshot by path: its text when it is
 * UTF-8 without NUL bytes and at most 256 KiB, else null (exists, not text).
 * What a generated diff is applied to.
 */
export async function snapshotTextFiles(rev: Revision): Promise<Map<string, string | null>> {
  const files = new Map<string, string | null>();
  for (const e of await readSnapshotEntries(await snapshotOf(rev))) {
    if (e.kind !== "file") continue;
    files.set(e.path, e.size <= TEXT_MAX_BYTES && !e.data.includes(0) ? utf8(e.data) : null);
  }
  return files;
}

/** The files a rule may read: JSON and JavaScript files (up to 256 KiB) with content, every other file by name. */
export async function ruleFiles(rev: Revision): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const e of await readSnapshotEntries(await snapshotOf(rev))) {
    if (e.kind === "file")
      files.set(e.path, READABLE.test(e.path) && e.size <= READ_MAX_BYTES ? e.data.toString("utf8") : "");
  }
  return files;
}

export async function patchedRevision(rev: Revision, changes: TFileChange[]): Promise<TNewRevision> {
  const entries = await readSnapshotEntries(await snapshotOf(rev));
  for (const c of changes) {
    const e = entries.find((x) => x.path === c.path);
    const matches = c.before_sha256 === null ? !e : e?.kind === "file" && sha(e.data) === c.before_sha256;
    if (!matches)
      throw new AppError("conflict", `${c.path} in the frozen source is not what the fix was written against`, {
        reason: "patch_conflict",
      });
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "capstan-fix-"));
  try {
    for (const e of entries) {
      const full = path.join(dir, e.path);
      if (!full.startsWith(dir + path.sep))
        throw new AppError("conflict", `The snapshot holds an unsafe path ${e.path}`, { reason: "patch_conflict" });
      await mkdir(path.dirname(full), { recursive: true });
      if (e.kind === "dir") await mkdir(full, { recursive: true });
      else if (e.kind === "symlink") await symlink(e.linkTarget!, full);
      else {
        const change = changes.find((c) => c.path === e.path);
        await writeFile(full, change ? change.after : e.data);
        await chmod(full, e.mode & 0o111 ? 0o755 : 0o644);
      }
    }
    for (const c of changes.filter((x) => x.before_sha256 === null)) {
      const full = path.join(dir, c.path);
      if (!full.startsWith(dir + path.sep))
        throw new AppError("conflict", `The fix creates an unsafe path ${c.path}`, { reason: "patch_conflict" });
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, c.after, { flag: "wx" });
      await chmod(full, 0o644);
    }
    const cfg = env();
    const scanned = await scanTree(dir, {
      maxTotalBytes: cfg.SOURCE_MAX_TOTAL_BYTES,
      maxFiles: cfg.SOURCE_MAX_FILES,
      maxDepth: cfg.SOURCE_MAX_DEPTH,
      maxFileBytes: cfg.SOURCE_MAX_FILE_BYTES,
      maxPathLength: cfg.SOURCE_MAX_PATH_LENGTH,
    });
    const blob = await blobStore().put(await buildSnapshot(dir, scanned), "application/gzip");
    const read = (p: string) => readFile(path.join(dir, p), "utf8");
    const { descriptor, findings } = await detectDescriptor(scanned, read);
    const contract = validateContract(
      scanned.some((e) => e.path === "capabilities.json" && e.kind === "file") ? await read("capabilities.json") : null,
    );
    return {
      snapshot: { uri: blob.uri, sha256: blob.sha256, size_bytes: blob.size_bytes },
      descriptor: descriptor as unknown as Prisma.InputJsonValue,
      findings: findings as unknown as Prisma.InputJsonValue,
      ...(contract.ok
        ? {
            contractStatus: "valid",
            capabilities: contract.capabilities as unknown as Prisma.InputJsonValue,
            contractHash: contract.contractHash,
          }
        : {
            contractStatus: "rejected",
            contractRejection: { reason: contract.reason, path: contract.path, message: contract.message },
          }),
    };
  } catch (err) {
    if (err instanceof SourceRejection || err instanceof UnsupportedSource) {
      throw new AppError("conflict", `The patched source cannot be frozen: ${err.message}`, {
        reason: "patch_rejected",
      });
    }
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function editedRevision(rev: Revision, edits: Record<string, unknown>): TNewRevision {
  let descriptor: TDescriptor;
  try {
    descriptor = applyDescriptorEdits(rev.descriptor as unknown as TDescriptor, edits);
  } catch (err) {
    if (err instanceof SourceRejection)
      throw new AppError("conflict", `The descriptor edit no longer applies: ${err.message}`, {
        reason: "patch_conflict",
      });
    throw err;
  }
  const ready = rev.contractStatus === "ready" || rev.contractStatus === "valid";
  return {
    snapshot: rev.snapshot as Prisma.InputJsonValue,
    descriptor: descriptor,
    findings: rev.findings as Prisma.InputJsonValue,
    contractStatus: ready ? "valid" : rev.contractStatus,
    capabilities: rev.capabilities ?? undefined,
    contractHash: rev.contractHash,
    contractRejection: rev.contractRejection ?? undefined,
  };
}
