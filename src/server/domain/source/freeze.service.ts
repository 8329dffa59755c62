import { lstat, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Prisma, type SourceFreeze } from "@/generated/prisma/client";
import { blobStore, isBlobStoreOutage } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { AppError, toProblem } from "@/server/platform/errors";
import { logger } from "@/server/platform/logger";
import { emitEvent } from "@/server/platform/outbox";
import { validateContract } from "./contract-validation";
import { detectDescriptor, UnsupportedSource } from "./descriptor-detection";
import { fetchSource } from "./git-fetch";
import { fetchUpload, isUploadSource } from "./upload-source";
import { writeSnapshot } from "./snapshot";
import { SourceRejection, type TContractResult, type TFetched, type TTreeEntry } from "./source.types";
import { scanTree } from "./tree-scan";

/**
 * The freeze worker: leases pending freezes (FOR UPDATE SKIP LOCKED, so any
 * number of processes can run it), fetches the source, enforces the limits,
 * writes the deterministic snapshot to the blob store, detects the runtime
 * descriptor and validates capabilities.json. Outcomes: frozen, rejected
 * (spec 2.4 codes, with the offending path in problem.errors) or failed.
 * The claim and the read of a claimed freeze by id are platform-scoped (every
 * workspace's queue); the freeze's own writes run on scopedDb(freeze.workspaceId).
 */
const LEASE_SECONDS = 300;
const MAX_ATTEMPTS = 3;
/** How soon a freeze that met a blob store outage is tried again (any number of times). */
export const OUTAGE_RETRY_MS = 2_000;

export async function processPendingFreezes(limit = 2): Promise<number> {
  // platform-scoped: the claim scans every workspace's pending freezes.
  const claimed = await db().$queryRaw<{ id: string }[]>`
    UPDATE source_freezes SET locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1, updated_at = now()
     WHERE id IN (
       SELECT id FROM source_freezes
        WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < now())
        ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  for (const { id } of claimed) {
    // platform-scoped: the claimed row is read by id to learn its workspace.
    const freeze = await db().sourceFreeze.findUniqueOrThrow({ where: { id } });
    await freezeOne(freeze).catch((err) =>
      logger.error("freeze.crashed", { source_freeze_id: id, error: String(err) }),
    );
  }
  return claimed.length;
}

export async function freezeOne(freeze: SourceFreeze): Promise<void> {
  const cfg = env();
  let fetched: TFetched | undefined;
  try {
    const limits = {
      maxTotalBytes: cfg.SOURCE_MAX_TOTAL_BYTES,
      maxFiles: cfg.SOURCE_MAX_FILES,
      maxDepth: cfg.SOURCE_MAX_DEPTH,
      maxFileBytes: cfg.SOURCE_MAX_FILE_BYTES,
      maxPathLength: cfg.SOURCE_MAX_PATH_LENGTH,
    };
    const workRoot = path.join(os.tmpdir(), "capstan-freeze");
    // An uploaded tree (capstan deploy <dir>) is unpacked under the same limits; a repository is fetched.
    const src = isUploadSource(freeze.repoUrl)
      ? await fetchUpload(freeze.workspaceId, freeze.ref, limits, workRoot)
      : await fetchSource({
          repoUrl: freeze.repoUrl,
          ref: freeze.ref,
          timeoutMs: cfg.SOURCE_FETCH_TIMEOUT_MS,
          allowedHosts: cfg.SOURCE_ALLOWED_HOSTS,
          allowLocal: cfg.SOURCE_ALLOW_LOCAL,
          workRoot,
        });
    fetched = src;
    const entries = await scanTree(src.dir, limits);
    // Streamed to a temp file and from there to the store: a large tree is never in memory whole.
    const snapDir = await mkdtemp(path.join(os.tmpdir(), "capstan-snap-"));
    let blob;
    try {
      const file = path.join(snapDir, "snapshot.tar.gz");
      await writeSnapshot(src.dir, entries, file);
      blob = await blobStore().putFile(file, "application/gzip");
    } finally {
      await rm(snapDir, { recursive: true, force: true });
    }
    const readText = (p: string) => readRegularFile(src.dir, entries, p);
    const { descriptor, findings } = await detectDescriptor(entries, readText);
    const contract = validateContract(
      entries.some((e) => e.path === "capabilities.json" && e.kind === "file")
        ? await readText("capabilities.json")
        : null,
    );
    // The same commit frozen before; for an upload (no commit), the same tree (the snapshot is deterministic).
    const replayed =
      (await scopedDb(freeze.workspaceId).sourceFreeze.count({
        where: {
          productId: freeze.productId,
          status: "frozen",
          id: { not: freeze.id },
          ...(src.commitSha ? { commitSha: src.commitSha } : { snapshotSha256: blob.sha256 }),
        },
      })) > 0;
    await finish(freeze, {
      status: "frozen",
      commitSha: src.commitSha,
      replayed,
      snapshot: { uri: blob.uri, sha256: blob.sha256, size_bytes: blob.size_bytes },
      revision: {
        commitSha: src.commitSha,
        snapshot: { uri: blob.uri, sha256: blob.sha256, size_bytes: blob.size_bytes },
        descriptorStatus: "detected",
        descriptor: descriptor as unknown as Prisma.InputJsonValue,
        findings: findings as unknown as Prisma.InputJsonValue,
        ...contractColumns(contract),
      },
    });
  } catch (err) {
    if (err instanceof SourceRejection) {
      const retryable = err.code === "fetch_timeout" || err.code === "fetch_failed";
      const problem = toProblem(
        new AppError("validation_failed", err.message, {
          reason: err.code,
          errors: [
            {
              path: err.path ? `/source/${err.path}` : "/repo_url",
              code: err.code,
              message: err.message,
              ...({ retryable } as object),
            },
          ],
        }),
        {
          instance: `/v1/workspaces/${freeze.workspaceId}/source-freezes/${freeze.id}`,
          correlationId: freeze.correlationId,
        },
      );
      await finish(freeze, {
        status: "rejected",
        rejection: { code: err.code, ...(err.detail ? { detail: err.detail } : {}) },
        problem,
        commitSha: fetched?.commitSha,
        revision: { descriptorStatus: "unavailable" },
      });
    } else if (err instanceof UnsupportedSource) {
      const problem = toProblem(
        new AppError("validation_failed", err.message, {
          reason: "unsupported_source",
          errors: [{ path: "/source", message: err.message }],
        }),
        {
          instance: `/v1/workspaces/${freeze.workspaceId}/source-freezes/${freeze.id}`,
          correlationId: freeze.correlationId,
        },
      );
      await finish(freeze, {
        status: "failed",
        problem,
        commitSha: fetched?.commitSha,
        revision: { descriptorStatus: "unavailable" },
      });
    } else if (isBlobStoreOutage(err)) {
      // The blob store is down: not this freeze's fault, so no attempt is spent and it waits
      // (pending, the reason in `problem`) until the store is back; the worker retries it alone.
      const problem = toProblem(err as AppError, {
        instance: `/v1/workspaces/${freeze.workspaceId}/source-freezes/${freeze.id}`,
        correlationId: freeze.correlationId,
      });
      logger.warn("freeze.blob_store_unavailable", { source_freeze_id: freeze.id, error: (err as Error).message });
      await scopedDb(freeze.workspaceId).sourceFreeze.update({
        where: { id: freeze.id },
        data: {
          attempts: { decrement: 1 },
          lockedUntil: new Date(Date.now() + OUTAGE_RETRY_MS),
          problem: problem as unknown as Prisma.InputJsonValue,
        },
      });
    } else if (freeze.attempts < MAX_ATTEMPTS) {
      // Our own fault (disk, database): release the lease for another try.
      logger.error("freeze.attempt_failed", {
        source_freeze_id: freeze.id,
        attempt: freeze.attempts,
        error: String(err),
      });
      await scopedDb(freeze.workspaceId).sourceFreeze.update({
        where: { id: freeze.id },
        data: { lockedUntil: new Date(Date.now() + 5_000 * freeze.attempts) },
      });
    } else {
      const problem = toProblem(
        new AppError("internal", "The source could not be frozen; quote the correlation id when reporting it."),
        {
          instance: `/v1/workspaces/${freeze.workspaceId}/source-freezes/${freeze.id}`,
          correlationId: freeze.correlationId,
        },
      );
      await finish(freeze, { status: "failed", problem, revision: { descriptorStatus: "unavailable" } });
    }
  } finally {
    await fetched?.cleanup().catch(() => undefined);
  }
}

function contractColumns(c: TContractResult): Prisma.RevisionUpdateInput {
  return c.ok
    ? {
        contractStatus: "valid",
        capabilities: c.capabilities as unknown as Prisma.InputJsonValue,
        contractHash: c.contractHash,
      }
    : { contractStatus: "rejected", contractRejection: { reason: c.reason, path: c.path, message: c.message } };
}

/** Reads a regular file of the scanned tree (never through a symlink). */
async function readRegularFile(root: string, entries: TTreeEntry[], rel: string): Promise<string> {
  const entry = entries.find((e) => e.path === rel);
  if (!entry || entry.kind !== "file") throw new Error(`${rel} is not a regular file`);
  const full = path.join(root, rel);
  if (!(await lstat(full)).isFile()) throw new Error(`${rel} is not a regular file`);
  return readFile(full, "utf8");
}

type TFinish = {
  status: "frozen" | "rejected" | "failed";
  commitSha?: string | null;
  replayed?: boolean;
  snapshot?: { uri: string; sha256: string; size_bytes: number };
  rejection?: Record<string, unknown>;
  problem?: Record<string, unknown>;
  revision?: Prisma.RevisionUpdateInput;
};

async function finish(freeze: SourceFreeze, f: TFinish): Promise<void> {
  const now = new Date();
  await scopedDb(freeze.workspaceId).$transaction(async (tx) => {
    await tx.sourceFreeze.update({
      where: { id: freeze.id },
      data: {
        status: f.status,
        commitSha: f.commitSha ?? null,
        replayed: f.replayed ?? false,
        snapshotUri: f.snapshot?.uri ?? null,
        snapshotSha256: f.snapshot?.sha256 ?? null,
        snapshotSize: f.snapshot ? BigInt(f.snapshot.size_bytes) : null,
        rejection: (f.rejection ?? undefined) as Prisma.InputJsonValue | undefined,
        // null clears the note an outage left while the freeze waited.
        problem: f.problem ? (f.problem as Prisma.InputJsonValue) : Prisma.DbNull,
        lockedUntil: null,
        finishedAt: now,
        updatedAt: now,
      },
    });
    if (f.revision)
      await tx.revision.update({ where: { id: freeze.revisionId }, data: { ...f.revision, updatedAt: now } });
    await emitEvent(tx, {
      workspaceId: freeze.workspaceId,
      type: "source_freeze.completed",
      correlationId: freeze.correlationId,
      subject: freeze.id,
      data: {
        source_freeze_id: freeze.id,
        product_id: freeze.productId,
        revision_id: freeze.revisionId,
        status: f.status,
        commit_sha: f.commitSha ?? null,
        rejection: f.rejection ?? null,
      },
    });
  });
}
