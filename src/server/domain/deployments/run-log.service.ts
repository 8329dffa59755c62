import type { Deployment } from "@/generated/prisma/client";
import { blobStore, blobMissing } from "@/server/platform/blob-store";
import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";
import { env } from "@/server/platform/env";
import { newId } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import type { TLogCursor } from "@/server/runtime";
import type { TRunnerOps } from "@/server/runtime/remote-runner";

/**
 * A deployment's run log beyond the runner's files (docs/decisions.md
 * "Deployment logs"). The launcher writes `<ISO time> <line>` to a file it
 * rotates at CAPSTAN_RUNNER_LOG_MAX_BYTES; Capstan copies it to the blob store
 * in segments: while the app runs (runner loop: once CAPSTAN_LOG_SEGMENT_BYTES
 * are new, or CAPSTAN_LOG_FLUSH_MS after the last flush) and a last time when
 * it stops, before its directory goes. Segments are numbered per deployment
 * (a unique key), each a byte range of the whole log; the deployment's
 * `log_cursor` says where in the runner's files the next one starts, and it
 * moves only with the segment (a conditional update on `log_seq`), so two
 * flushers never keep the same bytes twice. Readers join the segments and
 * the part not flushed yet: one log, whether the app still runs or not.
 * Segments expire CAPSTAN_LOG_RETENTION_DAYS after they were written.
 */
export type TCursorState = TLogCursor & { logical: number; flushed_at: string | null };

/** The most one flush reads from the runner in one go (a segment is at most this). */
const READ_BYTES = 1024 * 1024;
/** A whole log larger than this is not searched or served in one JSON answer (download has no bound). */
export const SCAN_LIMIT_BYTES = 32 * 1024 * 1024;

const LINE_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) /;

function timesOf(text: string): { first: Date | null; last: Date | null } {
  const first = LINE_TIME.exec(text)?.[1];
  const lines = text.trimEnd().split("\n");
  let last: string | undefined;
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 50 && !last; i--) last = LINE_TIME.exec(lines[i]!)?.[1];
  return { first: first ? new Date(first) : null, last: last ? new Date(last) : null };
}

/**
 * Copies what the runner has beyond the cursor into segments. `final`: the
 * app has ended (or is about to be removed): everything, partial last line
 * included. Otherwise only when enough is new or the last flush is old.
 * Returns the number of segments written; never throws for a flusher that
 * lost a race (the other one kept those bytes).
 */
export async function flushRunLog(
  id: string,
  host: Pick<TRunnerOps, "readLog">,
  opts: { final: boolean },
): Promise<number> {
  const cfg = env();
  let written = 0;
  for (let round = 0; round < 64; round++) {
    // platform-scoped: a runner loop or a retirement names the deployment by id; its row names the workspace.
    const row = await db().deployment.findUnique({
      where: { id },
      select: { workspaceId: true, logSeq: true, logCursor: true, startedAt: true },
    });
    if (!row) return written;
    const state = (row.logCursor as TCursorState | null) ?? { ino: 0, offset: 0, logical: 0, flushed_at: null };
    const read = await host.readLog(
      id,
      state.ino ? { ino: state.ino, offset: state.offset } : null,
      READ_BYTES,
      opts.final,
    );
    const bytes = Buffer.byteLength(read.text, "utf8");
    const moved = read.next.ino !== state.ino || read.next.offset !== state.offset;
    if (!bytes && !read.lost) {
      // Only the end of a rotated file was reached: the cursor moves to the new file, nothing to keep.
      if (moved && state.ino) await advance(id, row.logSeq, { ...state, ...read.next });
      return written;
    }
    const since = state.flushed_at ? Date.parse(state.flushed_at) : (row.startedAt?.getTime() ?? 0);
    // The rest of a rotated file is kept at once: the next rotation removes that file.
    const rotated = state.ino !== 0 && read.next.ino !== state.ino;
    if (
      !opts.final &&
      !read.lost &&
      !rotated &&
      bytes < cfg.CAPSTAN_LOG_SEGMENT_BYTES &&
      Date.now() - since < cfg.CAPSTAN_LOG_FLUSH_MS
    )
      return written;
    const text =
      (read.lost
        ? `${new Date().toISOString()} [capstan] an earlier part of the log was lost: the app wrote more than the runner keeps between two flushes\n`
        : "") + read.text;
    const buf = Buffer.from(text, "utf8");
    const blob = await blobStore().put(buf, "text/plain; charset=utf-8");
    const times = timesOf(text);
    const now = new Date();
    const next: TCursorState = { ...read.next, logical: state.logical + buf.length, flushed_at: now.toISOString() };
    const kept = await scopedDb(row.workspaceId).$transaction(async (tx) => {
      const claimed = await tx.deployment.updateMany({
        where: { id, logSeq: row.logSeq },
        data: { logSeq: row.logSeq + 1, logCursor: next },
      });
      if (claimed.count !== 1) return false;
      await tx.deploymentLogSegment.create({
        data: {
          id: newId("lseg"),
          workspaceId: row.workspaceId,
          deploymentId: id,
          seq: row.logSeq + 1,
          startOffset: BigInt(state.logical),
          sizeBytes: buf.length,
          sha256: blob.sha256,
          lostBytes: read.lost ? BigInt(-1) : BigInt(0),
          firstAt: times.first,
          lastAt: times.last,
          expiresAt: new Date(now.getTime() + cfg.CAPSTAN_LOG_RETENTION_DAYS * 86_400_000),
        },
      });
      return true;
    });
    if (!kept) return written;
    written++;
    if (bytes < READ_BYTES && !(moved && read.next.offset === 0)) return written;
  }
  return written;
}

async function advance(id: string, seq: number, state: TCursorState): Promise<void> {
  // platform-scoped: the cursor of a deployment named by id, moved only if no segment was written meanwhile.
  await db().deployment.updateMany({ where: { id, logSeq: seq }, data: { logCursor: state } });
}

/** The runner loop: flushes the logs of the deployments running on this host. */
export async function flushLocalRunLogs(host: Pick<TRunnerOps, "readLog">, hostId: string): Promise<number> {
  // platform-scoped: the runner flushes the apps it runs, of every workspace.
  const rows = await db().deployment.findMany({
    where: { runnerHost: hostId, status: { in: ["applying", "active"] } },
    select: { id: true },
    take: 500,
  });
  let n = 0;
  for (const { id } of rows) {
    n += await flushRunLog(id, host, { final: false }).catch((err: unknown) => {
      logger.warn("run_log.flush_failed", { deployment_id: id, error: String(err) });
      return 0;
    });
  }
  return n;
}

export type TRunLogView = {
  /** The text from `start` to `end` (byte offsets in the whole kept log). */
  text: string;
  start: number;
  end: number;
  /** Bytes before the first kept segment: expired (retention), or before logs were kept in segments. */
  expired_before: number;
  segments: number;
};

type TSegmentRow = { seq: number; startOffset: bigint; sizeBytes: number; sha256: string };

async function segmentText(s: TSegmentRow): Promise<string> {
  const bytes = await blobStore().get(s.sha256);
  if (!bytes) throw blobMissing(s.sha256);
  return bytes.toString("utf8");
}

/** The part the runner still holds beyond the last segment (a running app), joined across a rotation. */
async function unflushed(
  dep: Pick<Deployment, "id" | "logCursor">,
  host: Pick<TRunnerOps, "readLog"> | null,
): Promise<string> {
  if (!host) return "";
  const c = dep.logCursor as TCursorState | null;
  let cursor: TLogCursor | null = c?.ino ? { ino: c.ino, offset: c.offset } : null;
  let out = "";
  for (let i = 0; i < 4; i++) {
    const r = await host.readLog(dep.id, cursor, 4 * READ_BYTES, true).catch(() => null);
    if (!r || !r.text) {
      if (r && (r.next.ino !== cursor?.ino || r.next.offset !== cursor?.offset)) {
        cursor = r.next;
        continue;
      }
      break;
    }
    out += r.text;
    cursor = r.next;
  }
  return out;
}

/**
 * The run log as one text: the segments (all of them from `from`, or the
 * last ones covering `tailBytes`), then what the runner has not flushed.
 * Offsets are bytes of the whole log, so a follower asks `from` = the last
 * `end` and gets only what is new. A tail starts at a line boundary.
 */
export async function readRunLog(
  dep: Pick<Deployment, "id" | "workspaceId" | "logCursor">,
  host: Pick<TRunnerOps, "readLog"> | null,
  want: { from?: number; tailBytes: number },
): Promise<TRunLogView> {
  const segs = await scopedDb(dep.workspaceId).deploymentLogSegment.findMany({
    where: { deploymentId: dep.id },
    orderBy: { seq: "asc" },
    select: { seq: true, startOffset: true, sizeBytes: true, sha256: true },
  });
  const logicalEnd = (dep.logCursor as TCursorState | null)?.logical ?? 0;
  const firstKept = segs.length ? Number(segs[0]!.startOffset) : logicalEnd;
  const live = await unflushed(dep, host);
  const end = logicalEnd + Buffer.byteLength(live, "utf8");
  let start: number;
  if (want.from !== undefined) start = Math.max(want.from, firstKept);
  else start = Math.max(firstKept, end - want.tailBytes);
  // Never more than the scan bound in one answer (a follower far behind catches up in steps).
  const stop = Math.min(end, start + Math.max(want.tailBytes, 1), start + SCAN_LIMIT_BYTES);
  const parts: Buffer[] = [];
  for (const s of segs) {
    const a = Number(s.startOffset);
    const b = a + s.sizeBytes;
    if (b <= start || a >= stop) continue;
    const buf = Buffer.from(await segmentText(s), "utf8");
    parts.push(buf.subarray(Math.max(0, start - a), Math.min(buf.length, stop - a)));
  }
  if (stop > logicalEnd) {
    const buf = Buffer.from(live, "utf8");
    parts.push(buf.subarray(Math.max(0, start - logicalEnd), stop - logicalEnd));
  }
  let text = Buffer.concat(parts).toString("utf8");
  // A tail cut mid-line starts at the next whole line.
  if (want.from === undefined && start > firstKept) {
    const nl = text.indexOf("\n");
    if (nl >= 0) {
      start += Buffer.byteLength(text.slice(0, nl + 1), "utf8");
      text = text.slice(nl + 1);
    }
  }
  return { text, start, end: Math.min(end, stop), expired_before: firstKept, segments: segs.length };
}

/** Every kept byte of the run log, segment by segment, then the runner's unflushed part (the download). */
export async function* runLogChunks(
  dep: Pick<Deployment, "id" | "workspaceId" | "logCursor">,
  host: Pick<TRunnerOps, "readLog"> | null,
): AsyncGenerator<string> {
  let seq = 0;
  for (;;) {
    const batch = await scopedDb(dep.workspaceId).deploymentLogSegment.findMany({
      where: { deploymentId: dep.id, seq: { gt: seq } },
      orderBy: { seq: "asc" },
      take: 16,
      select: { seq: true, startOffset: true, sizeBytes: true, sha256: true },
    });
    for (const s of batch) {
      yield await segmentText(s);
      seq = s.seq;
    }
    if (batch.length < 16) break;
  }
  const live = await unflushed(dep, host);
  if (live) yield live;
}

/**
 * Retention: segments past their expiry go, and their blob with them when no
 * other segment and no workspace's evidence refers to the same bytes (blobs
 * are content-addressed). Safe in several workers at once (SKIP LOCKED).
 */
export async function purgeExpiredLogSegments(now = new Date()): Promise<number> {
  // platform-scoped: retention runs over every workspace's expired segments.
  const gone = await db().$queryRaw<{ sha256: string }[]>`
    DELETE FROM deployment_log_segments WHERE id IN (
      SELECT id FROM deployment_log_segments WHERE expires_at < ${now} ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED)
    RETURNING sha256`;
  for (const sha256 of new Set(gone.map((g) => g.sha256))) {
    // platform-scoped: whether anything of any workspace still refers to these bytes.
    const [refs] = await db().$queryRaw<{ n: number }[]>`
      SELECT ((SELECT count(*) FROM deployment_log_segments WHERE sha256 = ${sha256}) + (SELECT count(*) FROM workspace_blobs WHERE sha256 = ${sha256}))::int AS n`;
    if (!refs?.n)
      await blobStore()
        .delete(sha256)
        .catch((err: unknown) => logger.warn("run_log.blob_delete_failed", { sha256, error: String(err) }));
  }
  return gone.length;
}
