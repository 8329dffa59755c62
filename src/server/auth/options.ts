import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDb } from "@/server/platform/db/client";
import { env } from "@/server/platform/env";
import { verifyPassword } from "@/server/domain/identity/users.service";

/** next-auth secret: NEXTAUTH_SECRET, else one generated into the data directory (embedded default). */
export function authSecret(): string {
  const cfg = env();
  if (cfg.NEXTAUTH_SECRET) return cfg.NEXTAUTH_SECRET;
  const file = path.resolve(cfg.CAPSTAN_DATA_DIR, "nextauth.secret");
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  }
  return readFileSync(file, "utf8").trim();
}

/** Console sign-in: email + password (argon2id), JWT session cookie (8 h). */
export function authOptions(): NextAuthOptions {
  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: 8 * 3600 },
    pages: { signIn: "/signin" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          await getDb();
          const user = await verifyPassword(credentials.email, credentials.password);
          return user ? { id: user.id, email: user.email, name: user.name } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) token.uid = user.id;
        return token;
      },
      session({ session, token }) {
        if (session.user) (session.user as { id?: string }).id = token.uid as string;
        return session;
      },
    },
  };
}
