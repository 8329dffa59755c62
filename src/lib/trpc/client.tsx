"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { inferRouterInputs } from "@trpc/server";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { Session } from "next-auth";
import { SessionProvider } from "next-auth/react";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/trpc/root";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

type TWsOnlyInput = inferRouterInputs<AppRouter>["workspaces"]["get"];

/**
 * Input for the procedures whose only parameter is the workspace
 * (workspaces.get, usage.plan, usage.budgets). They declare
 * `.input(z.object({}))`, which zod 4 infers as Record<string, never>; merged
 * with `{ ws }` no object literal type-checks, so we cast here, once.
 */
export function wsOnly(ws: string): TWsOnlyInput {
  return { ws };
}

/** What the console shows of a failure: the server's problem document (RFC 9457), or a stand-in. */
export type TProblemView = {
  title?: string;
  status?: number;
  code?: string;
  reason?: string;
  detail: string;
  errors?: { path: string; message: string }[];
  correlation_id?: string;
};

/**
 * The problem document a tRPC error carries in `data.problem` (see
 * server/trpc/init.ts), so the console shows what a script would see.
 * Network failures and anything else fall back to the error message.
 */
export function problemOf(error: unknown): TProblemView | null {
  if (!error) return null;
  const data = (error as { data?: { problem?: Partial<TProblemView> } | null }).data;
  const problem = data?.problem;
  if (problem && typeof problem.detail === "string") {
    return {
      title: problem.title,
      status: problem.status,
      code: problem.code,
      reason: problem.reason,
      detail: problem.detail,
      errors: Array.isArray(problem.errors) ? problem.errors : undefined,
      correlation_id: problem.correlation_id,
    };
  }
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return { title: "Request failed", detail: message || "The request failed. Check your connection and try again." };
}

function statusOf(error: unknown): number | undefined {
  return problemOf(error)?.status ?? (error as { data?: { httpStatus?: number } | null }).data?.httpStatus;
}

/** The session cookie expired under an open page: go sign in again, then come back here. */
function onAuthError(error: unknown) {
  if (typeof window === "undefined" || statusOf(error) !== 401) return;
  const back = window.location.pathname + window.location.search;
  window.location.assign(`/signin?callbackUrl=${encodeURIComponent(back)}`);
}

function makeQueryClient() {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onAuthError }),
    mutationCache: new MutationCache({ onError: onAuthError }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // 4xx answers are final (a retry gets the same 403/404); retry only what may be transient.
        retry: (failures, error) => {
          const status = statusOf(error);
          return (status === undefined || status >= 500) && failures < 2;
        },
      },
    },
  });
}

/** Everything a console page needs: the next-auth session, TanStack Query and the typed tRPC client. */
export function ConsoleProviders({ session, children }: { session: Session | null; children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // No transformer: the server has none (dates are ISO strings on the wire).
      links: [httpBatchLink({ url: "/api/trpc" })],
    }),
  );
  return (
    <SessionProvider session={session}>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {children}
        </TRPCProvider>
      </QueryClientProvider>
    </SessionProvider>
  );
}
