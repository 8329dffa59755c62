/**
 * Shared types of source intake. The freeze pipeline is:
 *   fetchSource (git, shallow, allow-listed)  ->  scanTree (limits, traversal,
 *   symlink_escape; never follows symlinks)  ->  buildSnapshot (deterministic
 *   tar.gz)  ->  blob store (content-addressed)  ->  detectDescriptor +
 *   validateContract (capabilities.json).
 * Rejections are expected outcomes (status `rejected`); failures are ours or
 * the network's (status `failed`).
 */
export const SOURCE_REJECTION_CODES = [
  "size_limit",
  "file_count_limit",
  "depth_limit",
  "file_size_limit",
  "path_length",
  "traversal",
  "symlink_escape",
  "ref_not_found",
  "host_not_allowed",
  "private_source_unsupported",
  "fetch_timeout",
  "fetch_failed",
  "credential_in_descriptor",
] as const;
export type TSourceRejectionCode = (typeof SOURCE_REJECTION_CODES)[number];

export type TRejectionDetail = { actual: number; limit: number } | { field: string };

/** An expected refusal of a source; becomes the freeze's `rejection` (spec 2.4). */
export class SourceRejection extends Error {
  constructor(
    readonly code: TSourceRejectionCode,
    message: string,
    readonly detail?: TRejectionDetail,
    /** The offending path inside the repository, when there is one. */
    readonly path?: string,
  ) {
    super(message);
    this.name = "SourceRejection";
  }
}

export type TSourceLimits = {
  maxTotalBytes: number;
  maxFiles: number;
  maxDepth: number;
  maxFileBytes: number;
  maxPathLength: number;
};

export type TTreeEntry = {
  /** POSIX path relative to the repository root, no leading `./`. */
  path: string;
  kind: "file" | "symlink" | "dir";
  size: number;
  /** 0o755 for executables, 0o644 otherwise (normalised). */
  mode: number;
  linkTarget?: string;
};

/** commitSha is null for an uploaded tree (upload-source.ts): there is no commit. */
export type TFetched = { dir: string; commitSha: string | null; cleanup: () => Promise<void> };

/** The blob store's reference (defined beside the store, which must not import the domain). */
export type { TEvidence } from "@/server/platform/blob-store.types";

export type TFinding = { kind: string; severity: "info" | "warning" | "error"; code: string; message: string };

export type TRuntime = { kind: "node" | "shell"; version: string | null };
export type TBuildPlan = {
  runtime: TRuntime;
  workdir: string;
  install: { package_manager: "pnpm" | "npm" | "yarn" | null; command: string | null };
  build: { command: string | null };
  start: { command: string };
  port: number;
  health: { path: string; timeout_ms: number };
  env: Array<"PORT" | "NODE_ENV">;
};
export type TDescriptor = {
  runtime: TRuntime;
  entrypoint: { command: string; args: string[] };
  ports: Array<{ port: number; protocol: "http" }>;
  field_sources: Record<string, "detected" | "developer">;
  build_plan?: TBuildPlan;
  /** Resource limits the app asks for (each at most its workspace plan's). */
  limits?: { memory_mb?: number; processes?: number; cpu_weight?: number; disk_mb?: number };
};

export const CONTRACT_REJECTION_REASONS = [
  "unknown_capability",
  "unknown_action",
  "scope_invalid",
  "scope_widened",
  "owner_not_supported",
  "contract_too_large",
] as const;
export type TContractRejectionReason = (typeof CONTRACT_REJECTION_REASONS)[number];

export type TCapabilityEntry = {
  id: "ai.generate" | "storage.object" | "data.kv" | "email.send";
  required: boolean;
  actions: string[];
  scope: Record<string, unknown>;
  credential_owner: "workspace" | "platform";
  provider: { allow: string[]; fallback: "none" | "listed"; prefer?: string };
};

export type TContractResult =
  | { ok: true; capabilities: TCapabilityEntry[]; contractHash: string }
  | { ok: false; reason: TContractRejectionReason; path: string; message: string };
