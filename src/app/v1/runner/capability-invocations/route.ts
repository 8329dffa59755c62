import { handleRunnerCapabilityCall } from "@/server/bridge/runner-handler";

export const dynamic = "force-dynamic";

/** Runner-audience Bridge entry (its own route wins over v1/[...path]). */
export const POST = handleRunnerCapabilityCall;
