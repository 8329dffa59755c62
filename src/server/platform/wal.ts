import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { GroupCommit } from "./group-commit";
import { logger } from "./logger";

const datasync = promisify(fdatasync);

/**
 * A process-local write-ahead journal: JSON lines appended to segment files
 * `<dir>/<name>.<n>.jsonl`. An append is two steps:
 * - `append` writes the line synchronously (one `write(2)` into the kernel's
 *   page cache, no event-loop hop): once it returns the record survives the
 *   process's death (kill -9, a crash), because the kernel still writes it out;
 * - a line still outstanding (not released) `syncDelayMs` after it was
 *   written is synced (`fdatasync`): then it survives the host losing power
 *   too. A line released sooner costs no sync at all: the Bridge releases a
 *   draw's line once the call's record committed, and that commit is the
 *   durable charge. Lines written meanwhile share one sync (group commit).
 * The Bridge's in-flight journal (domain/usage/leases.service.ts) writes the
 * draw before the provider call; a call that lasts longer than the delay has its
 * draw on disk while the provider answers, a fast one is recorded first
 * (docs/decisions.md "One commit per priced call"). Records are never
 * rewritten; a segment is deleted once every record in it was released and a
 * newer segment exists.
 */
const SEGMENT_BYTES = 4 * 1024 * 1024;
/** How long a written line may wait for its sync (docs/decisions.md "One commit per priced call"). */
export const WAL_SYNC_DELAY_MS = 10;

export type TAppended = { segment: number; seq: number };

export class LocalWal {
  private fd: number | null = null;
  private segment = 0;
  private bytes = 0;
  private outstanding = new Map<number, number>();
  private closed = false;
  private readonly syncs: GroupCommit<null, void>;
  /** Lines appended so far; lines up to `syncedSeq` are covered by a sync that started (or ran). */
  private seq = 0;
  private syncedSeq = 0;
  /** Lines after `syncedSeq` not released yet: the delayed sync runs only if some are left. */
  private unsynced = 0;
  private syncTimer: NodeJS.Timeout | null = null;
  private syncCount = 0;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly syncDelayMs = WAL_SYNC_DELAY_MS,
  ) {
    // One flush at a time (GroupCommit), so a rotation never closes a descriptor a sync is using.
    this.syncs = new GroupCommit<null, void>(async (items) => {
      if (this.fd !== null) {
        this.syncCount++;
        await datasync(this.fd);
      }
      if (this.bytes >= SEGMENT_BYTES) this.rotate();
      return items.map(() => undefined);
    }, 1_000_000);
  }

  /**
   * Appends one record: written (it survives the process's death) when this returns; on disk within
   * `syncDelayMs` plus one sync unless released before. Throws when it cannot be written.
   */
  append(record: Record<string, unknown>): TAppended {
    if (this.closed) throw new Error("journal closed");
    const fd = this.current();
    const buf = Buffer.from(`${JSON.stringify(record)}\n`);
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off);
    const seg = this.segment;
    this.bytes += buf.length;
    this.outstanding.set(seg, (this.outstanding.get(seg) ?? 0) + 1);
    const seq = ++this.seq;
    this.unsynced++;
    // A full segment is rotated by a sync (after it, within the flush), whatever the lines' state.
    if (this.bytes >= SEGMENT_BYTES) this.syncLogged();
    else if (!this.syncTimer) {
      this.syncTimer = setTimeout(() => {
        this.syncTimer = null;
        if (this.unsynced > 0) this.syncLogged();
      }, this.syncDelayMs);
      this.syncTimer.unref();
    }
    return { segment: seg, seq };
  }

  /** Every line written so far reaches the disk (graceful stop, tests); resolves after that sync. */
  sync(): Promise<void> {
    this.syncedSeq = this.seq;
    this.unsynced = 0;
    return this.syncs.add(null);
  }

  /**
   * A background sync. A failure is logged and every outstanding line counts as unsynced again, to be tried
   * again after a second (the lines stay written: the process's death does not lose them).
   */
  private syncLogged(): void {
    this.sync().catch((err: unknown) => {
      logger.error("journal.sync_failed", { journal: this.name, error: String(err) });
      this.syncedSeq = 0;
      this.unsynced = this.pending();
      if (this.closed || this.syncTimer || this.unsynced === 0) return;
      this.syncTimer = setTimeout(
        () => {
          this.syncTimer = null;
          if (this.unsynced > 0) this.syncLogged();
        },
        Math.max(this.syncDelayMs, 1_000),
      );
      this.syncTimer.unref();
    });
  }

  /** fdatasync calls made so far (tests, bench). */
  syncsDone(): number {
    return this.syncCount;
  }

  /** One record is finished; an older segment with none left is deleted. */
  release(appended: TAppended): void {
    const segment = appended.segment;
    if (appended.seq > this.syncedSeq && this.unsynced > 0) this.unsynced--;
    const left = (this.outstanding.get(segment) ?? 1) - 1;
    this.outstanding.set(segment, left);
    if (left <= 0 && segment !== this.segment) {
      this.outstanding.delete(segment);
      try {
        unlinkSync(segmentPath(this.dir, this.name, segment));
      } catch {
        /* already gone */
      }
    }
  }

  /** Records appended and not yet released. */
  pending(): number {
    let n = 0;
    for (const v of this.outstanding.values()) n += v;
    return n;
  }

  /** Graceful stop with nothing outstanding: the journal has nothing to recover, so its files go. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    // Lines still outstanding stay for recovery: on disk before the files are left behind.
    if (this.pending() > 0) await this.sync().catch(() => undefined);
    await this.syncs.idle();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    if (this.pending() === 0) LocalWal.remove(this.dir, this.name);
  }

  private current(): number {
    if (this.fd !== null) return this.fd;
    mkdirSync(this.dir, { recursive: true });
    this.fd = openSync(segmentPath(this.dir, this.name, this.segment), "a");
    // The directory entry must be durable too, or a crash could lose the new file.
    syncDir(this.dir);
    return this.fd;
  }

  /** After a sync, within the flush: lines written since go to disk with the old segment before it is closed. */
  private rotate(): void {
    const old = this.segment;
    if (this.fd !== null) {
      fdatasyncSync(this.fd);
      closeSync(this.fd);
    }
    this.fd = null;
    this.segment = old + 1;
    this.bytes = 0;
    if ((this.outstanding.get(old) ?? 0) <= 0) {
      // Nothing outstanding in it: drop it now (release() drops it later otherwise).
      this.outstanding.delete(old);
      try {
        unlinkSync(segmentPath(this.dir, this.name, old));
      } catch {
        /* gone */
      }
    }
  }

  /** The journals of `dir`, by name (a name is a writer: a process instance). */
  static names(dir: string): string[] {
    try {
      return [
        ...new Set(
          readdirSync(dir).flatMap((f) => {
            const m = /^(.+)\.\d+\.jsonl$/.exec(f);
            return m ? [m[1]!] : [];
          }),
        ),
      ];
    } catch {
      return [];
    }
  }

  /** Every record of journal `name`, oldest segment first; a torn last line (crash mid-write) is ignored. */
  static read(dir: string, name: string): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const seg of segments(dir, name)) {
      for (const line of readFileSync(segmentPath(dir, name, seg), "utf8").split("\n")) {
        if (!line) continue;
        try {
          out.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          /* a torn write: its append never resolved, so nobody relied on it */
        }
      }
    }
    return out;
  }

  static remove(dir: string, name: string): void {
    for (const seg of segments(dir, name)) {
      try {
        unlinkSync(segmentPath(dir, name, seg));
      } catch {
        /* gone */
      }
    }
  }
}

function segmentPath(dir: string, name: string, seg: number): string {
  return path.join(dir, `${name}.${seg}.jsonl`);
}

function segments(dir: string, name: string): number[] {
  try {
    return readdirSync(dir)
      .flatMap((f) => {
        if (!f.startsWith(`${name}.`) || !f.endsWith(".jsonl")) return [];
        const n = Number(f.slice(name.length + 1, -".jsonl".length));
        return Number.isInteger(n) ? [n] : [];
      })
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* some filesystems refuse fsync on a directory: the file's own sync still holds its data */
  }
}
