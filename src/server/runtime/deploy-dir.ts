import { execFile, spawn } from "node:child_process";
import { statfsSync } from "node:fs";
import { chown, mkdir, readFile, rm } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A deployment's directory: when the host can mount (root), a tmpfs capped
 * at the deployment's disk limit (app, build output, sockets and log all
 * count; a full disk is ENOSPC to the app and nothing else), mode 0700 and
 * owned by the deployment's uid. Removing it unmounts first.
 */
export async function makeDeploymentDir(dir: string, diskBytes: number | null): Promise<boolean> {
  await removeDeploymentDir(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (diskBytes === null) return false;
  await run("/usr/bin/mount", ["-t", "tmpfs", "-o", `size=${diskBytes},mode=0700,nosuid,nodev`, "tmpfs", dir], {
    timeout: 10_000,
  });
  return true;
}

async function isMountPoint(dir: string): Promise<boolean> {
  const mounts = await readFile("/proc/self/mounts", "utf8").catch(() => "");
  // Paths with spaces are escaped as \040 in /proc/self/mounts; ours never have any.
  return mounts.split("\n").some((l) => l.split(" ")[1] === dir);
}

export async function removeDeploymentDir(dir: string): Promise<void> {
  // Lazily: a process still holding a file inside (being killed) must not keep the mount alive.
  for (let i = 0; i < 3 && (await isMountPoint(dir)); i++)
    await run("/usr/bin/umount", ["-l", dir], { timeout: 10_000 }).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

/** Subdirectories the app owns. */
export async function makeOwnedDirs(dirs: string[], uid: number, gid: number, chownThem: boolean): Promise<void> {
  for (const d of dirs) {
    await mkdir(d, { recursive: true, mode: 0o700 });
    if (chownThem) await chown(d, uid, gid);
  }
}

/** True when the tmpfs is full (what the app sees as ENOSPC). */
export async function diskFull(dir: string): Promise<boolean> {
  try {
    // Synchronous: a tmpfs's counters, asked after every invocation (no disk read, no pool hop).
    const s = statfsSync(dir);
    return s.blocks > 0 && s.bavail === 0;
  } catch {
    return false;
  }
}

/** Unpacks a tar.gz with the system tar as the app's user (no shell; GNU tar refuses absolute and `..` member names). */
export function unpackAs(
  tarball: Buffer,
  into: string,
  ids: { uid: number; gid: number } | null,
): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(
      "tar",
      ["-xzf", "-", "-C", into, "--no-same-owner", "--no-same-permissions", "--no-overwrite-dir"],
      {
        stdio: ["pipe", "ignore", "pipe"],
        ...(ids ?? {}),
      },
    );
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d.slice(0, 2000)));
    child.on("error", (e) => resolve(e.message));
    child.on("close", (code) => resolve(code === 0 ? null : err.trim() || `tar exited with code ${code}`));
    child.stdin.on("error", () => undefined);
    child.stdin.end(tarball);
  });
}
