import type { Server } from "node:http";

export function installGracefulStop(
  server: Server,
  opts?: {
    graceMs?: number;
    delayMs?: number;
    log?: (msg: string) => void;
    app?: { begin(): void; finish(ms: number): Promise<void> };
  },
): void;
