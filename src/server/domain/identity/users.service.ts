import { randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import { writeAudit } from "@/server/platform/audit";
import { db } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { AppError } from "@/server/platform/errors";
import { newId, PLATFORM_WORKSPACE_ID } from "@/server/platform/ids";
import { logger } from "@/server/platform/logger";
import { iso } from "@/server/platform/time";

// argon2id with OWASP's second recommended parameter set (19 MiB, t=2, p=1).
const ARGON = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 } as const;

export type TUserView = { id: string; email: string; name: string; created_at: string };

export async function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON);
}

/** Returns the user when the password matches; constant work whether or not the email exists. */
export async function verifyPassword(email: string, password: string): Promise<TUserView | null> {
  // The one read of the hash: it is omitted from every other query (db/client.ts OMIT_SECRETS).
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
  const user = await db().user.findUnique({
    where: { email: email.trim().toLowerCase() },
    omit: { passwordHash: false },
  });
  const stored =
    user?.passwordHash ??
    "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$2wzWZm8Ca2rSd0Yk1hB0dYSIvFzlS4eLDUaVyD3Yd6Q";
  const ok = await verify(stored, password).catch(() => false);
  if (!user || !ok) return null;
  return { id: user.id, email: user.email, name: user.name, created_at: iso(user.createdAt) };
}

export async function createUser(
  caller: { userId: string | null; correlationId: string },
  input: { email: string; name: string; password: string },
): Promise<TUserView> {
  const email = input.email.trim().toLowerCase();
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
  if (await db().user.findUnique({ where: { email }, select: { id: true } })) {
    throw new AppError("conflict", `A user with email ${email} already exists`, { reason: "email_taken" });
  }
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL).
  const user = await db().user.create({
    data: { id: newId("usr"), email, name: input.name, passwordHash: await hashPassword(input.password) },
  });
  logger.info("user.created", { user_id: user.id, by: caller.userId, correlation_id: caller.correlationId });
  return { id: user.id, email: user.email, name: user.name, created_at: iso(user.createdAt) };
}

/**
 * First start: create `ws_platform` and its owner from BOOTSTRAP_ADMIN_EMAIL /
 * BOOTSTRAP_ADMIN_PASSWORD, or with a generated password printed once.
 * Idempotent and safe to race (a unique violation means another process won).
 */
export async function bootstrapPlatform(correlationId: string): Promise<{ created: boolean; email?: string }> {
  // platform-scoped: bootstrap creates the platform workspace and its owner (a user): the platform's own setup.
  const existing = await db().workspace.findUnique({ where: { id: PLATFORM_WORKSPACE_ID }, select: { id: true } });
  if (existing) return { created: false };
  const cfg = env();
  const email = (cfg.BOOTSTRAP_ADMIN_EMAIL ?? "admin@example.com").toLowerCase();
  const generated = !cfg.BOOTSTRAP_ADMIN_PASSWORD;
  const password = cfg.BOOTSTRAP_ADMIN_PASSWORD ?? randomBytes(18).toString("base64url");
  const passwordHash = await hashPassword(password);
  try {
    // platform-scoped: bootstrap creates the platform workspace and its owner (a user): the platform's own setup.
    await db().$transaction(async (tx) => {
      const user =
        (await tx.user.findUnique({ where: { email } })) ??
        (await tx.user.create({ data: { id: newId("usr"), email, name: "Platform owner", passwordHash } }));
      await tx.workspace.create({
        data: {
          id: PLATFORM_WORKSPACE_ID,
          name: "Platform",
          createdById: user.id,
          plan: { create: { plan: "enterprise" } },
          memberships: { create: { id: newId("mem"), userId: user.id, role: "owner" } },
        },
      });
      await writeAudit(tx, {
        workspaceId: PLATFORM_WORKSPACE_ID,
        actor: { kind: "system", id: null },
        action: "platform.bootstrapped",
        target: { kind: "user", id: user.id },
        correlationId,
        details: { email, password_generated: generated },
      });
    });
  } catch (err) {
    if ((err as { code?: string }).code === "P2002") return { created: false };
    throw err;
  }
  if (generated) {
    // Printed once, to the operator's terminal only; it is never stored in clear.
    process.stdout.write(
      `\n================ Capstan bootstrap ================\n` +
        `Platform owner: ${email}\nOne-time generated password: ${password}\n` +
        `Sign in at ${cfg.CAPSTAN_PUBLIC_URL}/signin and change it.\n` +
        `===================================================\n\n`,
    );
  }
  return { created: true, email };
}
