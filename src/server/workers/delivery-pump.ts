import { claimAndLoad, sendLeased } from "@/server/domain/webhooks/delivery.service";
import { env } from "@/server/platform/env";
import { trackTick } from "./ticks";

/**
 * Keeps up to CAPSTAN_WEBHOOK_CONCURRENCY webhook requests in flight in this
 * process: each run claims as many due deliveries as there are free slots and
 * starts them without waiting; every finished request frees a slot and calls
 * `onFree` (the worker loop runs again at once), so a busy endpoint is fed
 * continuously instead of once per poll. The per-subscription cap and the
 * ordering are the claim's (delivery.service.ts), valid across processes.
 */
const g = globalThis as unknown as { __capstanPump?: { inFlight: number } };
const state = (g.__capstanPump ??= { inFlight: 0 });

export async function pumpDeliveries(onFree: () => void = () => undefined): Promise<number> {
  const room = env().CAPSTAN_WEBHOOK_CONCURRENCY - state.inFlight;
  if (room <= 0) return 0;
  const rows = await claimAndLoad(room);
  for (const row of rows) {
    state.inFlight++;
    void trackTick(
      sendLeased(row).finally(() => {
        state.inFlight--;
        onFree();
      }),
    );
  }
  return rows.length;
}

export function deliveriesInFlight(): number {
  return state.inFlight;
}
