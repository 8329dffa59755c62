"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle, PackagePlus } from "lucide-react";
import Link from "next/link";
import { useEffect, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { problemOf, useTRPC, wsOnly, type TProblemView } from "@/lib/trpc/client";
import type { TProduct, TProductStatus, TSourceFreeze } from "@/server/domain/source/source.contract";
import { formatUnits, titleCase } from "./format";
import { LoadMore } from "./load-more";
import { hasRole, workspaceHref } from "./nav-config";
import { Loading, PageHeader } from "./page-header";
import { QueryStates } from "./query-states";
import { RelativeTime } from "./relative-time";

/* ------------------------------------------------------------------------------------------------
 * Source freeze progress and outcome, shared by the products page (new product) and the product
 * page (freeze again).
 * ---------------------------------------------------------------------------------------------- */

/** An id that links to its page: a text link, aligned with the table's other cells. */
export const idLinkClass = cn(buttonVariants({ variant: "link" }), "h-auto px-0 font-mono text-xs");

type TFreezeStatus = TSourceFreeze["status"];

const FREEZE_TONE: Record<TFreezeStatus, "info" | "success" | "warning" | "danger"> = {
  pending: "info",
  frozen: "success",
  rejected: "warning",
  failed: "danger",
};

export function FreezeStatusBadge({ status }: { status: TFreezeStatus }) {
  return (
    <Badge tone={FREEZE_TONE[status]} className="gap-1">
      {status === "pending" ? <LoaderCircle aria-hidden="true" className="size-3 animate-spin motion-reduce:animate-none" /> : null}
      {titleCase(status)}
    </Badge>
  );
}

/**
 * Whether a revision's source may still be being frozen, so a view should poll
 * it. Bounded in time: a freeze that settles without producing a descriptor
 * must not keep a page polling forever.
 */
export function stillFreezing(r: { descriptor_status: string; created_at: string }): boolean {
  return r.descriptor_status === "pending" && Date.now() - Date.parse(r.created_at) < 15 * 60_000;
}

/** The host of a repository URL (also for scp-like `git@host:path`), or null. */
export function repoHost(repoUrl: string): string | null {
  try {
    return new URL(repoUrl).hostname || null;
  } catch {
    const scp = /^[^@/\s]+@([^:/\s]+):/.exec(repoUrl);
    return scp ? scp[1]! : null;
  }
}

/** A short display name of a repository: its last path segment without `.git`. */
export function repoName(repoUrl: string): string {
  const last = repoUrl.replace(/\/+$/, "").split(/[/:]/).pop() ?? repoUrl;
  return last.replace(/\.git$/, "") || repoUrl;
}

const bytes = (n: number) => `${formatUnits(n)} bytes`;

/**
 * One sentence per spec 2.4 rejection code, in words a developer can act on.
 * `detail.actual/limit` are bytes, counts, levels or characters depending on the code.
 */
export function explainRejection(freeze: Pick<TSourceFreeze, "rejection" | "repo_url" | "ref">): string | null {
  const r = freeze.rejection;
  if (!r) return null;
  const d = r.detail && "actual" in r.detail ? r.detail : undefined;
  const numbers = (unit: (n: number) => string) => (d ? ` (actual ${unit(d.actual)}, limit ${unit(d.limit)})` : "");
  const plain = (n: number) => formatUnits(n);
  switch (r.code) {
    case "size_limit":
      return `The repository is larger than the limit${numbers(bytes)}.`;
    case "file_count_limit":
      return `The repository has more files than the limit${numbers((n) => `${plain(n)} files`)}.`;
    case "depth_limit":
      return `The repository's folders are nested deeper than the limit${numbers((n) => `${plain(n)} levels`)}.`;
    case "file_size_limit":
      return `A file in the repository is larger than the per-file limit${numbers(bytes)}.`;
    case "path_length":
      return `A file path in the repository is longer than the limit${numbers((n) => `${plain(n)} characters`)}.`;
    case "traversal":
      return "A path in the repository tries to leave the repository (for example with “..”).";
    case "symlink_escape":
      return "A symbolic link points outside the repository.";
    case "ref_not_found":
      return `The ref “${freeze.ref}” does not exist in the repository: use an existing branch, tag or commit.`;
    case "host_not_allowed": {
      const host = repoHost(freeze.repo_url);
      return `The repository's host${host ? ` (${host})` : ""} is not on the list of allowed source hosts.`;
    }
    case "private_source_unsupported":
      return "The repository needs credentials; only public repositories are supported.";
    case "fetch_timeout":
      return "Fetching the repository took longer than the time limit. This may be temporary: try again later.";
    case "fetch_failed":
      return "The repository could not be fetched. Check the URL, or try again later if the host is unavailable.";
    case "credential_in_descriptor": {
      const field = r.detail && "field" in r.detail ? r.detail.field : undefined;
      return `The detected runtime descriptor contains what looks like a credential${field ? ` (in ${field})` : ""}. Keep secrets out of the repository's configuration.`;
    }
    default:
      return `The source was rejected (${r.code}).`;
  }
}

/** The freeze's stored problem document, as the Alert primitive shows it. */
export function freezeProblem(problem: Record<string, unknown> | undefined): TProblemView | null {
  if (!problem || typeof problem.detail !== "string") return null;
  const errors = Array.isArray(problem.errors)
    ? (problem.errors as unknown[]).flatMap((e) => {
        const item = e as { path?: unknown; message?: unknown };
        return typeof item?.path === "string" ? [{ path: item.path, message: typeof item.message === "string" ? item.message : "" }] : [];
      })
    : undefined;
  return {
    title: typeof problem.title === "string" ? problem.title : undefined,
    status: typeof problem.status === "number" ? problem.status : undefined,
    code: typeof problem.code === "string" ? problem.code : undefined,
    reason: typeof problem.reason === "string" ? problem.reason : undefined,
    detail: problem.detail,
    errors,
    correlation_id: typeof problem.correlation_id === "string" ? problem.correlation_id : undefined,
  };
}

/** Where the problem lies: a path inside the repository (`/source/...`) or a request field. */
function OffendingPath({ path }: { path: string }) {
  if (path.startsWith("/source/")) {
    return (
      <p>
        Offending path in the repository: <code className="font-mono text-xs break-all">{path.slice("/source/".length)}</code>
      </p>
    );
  }
  // `/repo_url` is where URL and ref problems point; the sentence and the repository above already say it.
  if (path === "/source" || path === "/repo_url" || path === "") return null;
  return (
    <p>
      Concerns: <code className="font-mono text-xs break-all">{path.replace(/^\//, "")}</code>
    </p>
  );
}

/** A settled freeze that did not produce a source: what went wrong, in words, then the evidence. */
function FreezeOutcome({ freeze }: { freeze: TSourceFreeze }) {
  const problem = freezeProblem(freeze.problem);
  const path = problem?.errors?.[0]?.path;
  if (freeze.status === "rejected") {
    const sentence = explainRejection(freeze) ?? problem?.detail ?? "The source was rejected.";
    return (
      <Alert tone="warning" title="The source was rejected">
        <p>{sentence}</p>
        {path ? <OffendingPath path={path} /> : null}
        {freeze.rejection ? (
          <p className="text-xs opacity-75">
            Rejection code: <code className="font-mono">{freeze.rejection.code}</code>
          </p>
        ) : null}
        {problem?.correlation_id ? (
          <p className="text-xs opacity-75">
            Correlation id: <code className="font-mono">{problem.correlation_id}</code>
          </p>
        ) : null}
      </Alert>
    );
  }
  // failed: either an unsupported source (no runtime found) or our own fault.
  const sentence =
    problem?.reason === "unsupported_source"
      ? "The repository was fetched, but Capstan could not find a runtime it can run in it."
      : "The freeze failed on our side. Try again; if it keeps failing, report it with the correlation id.";
  return (
    <Alert tone="danger" title="The freeze failed">
      <p>{sentence}</p>
      {problem ? <p>{problem.detail}</p> : null}
      {path ? <OffendingPath path={path} /> : null}
      {problem?.correlation_id ? (
        <p className="text-xs opacity-75">
          Correlation id: <code className="font-mono">{problem.correlation_id}</code>
        </p>
      ) : null}
    </Alert>
  );
}

/**
 * Live progress of one source freeze: polls every second while pending, then
 * explains the outcome and links to the new revision. Lists that show the
 * freeze's product or revision are refreshed when it settles.
 */
export function FreezeProgress({ ws, frz, showProductLink = true }: { ws: string; frz: string; showProductLink?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const freeze = useQuery(
    trpc.source.getSourceFreeze.queryOptions(
      { ws, frz },
      { refetchInterval: (q) => (!q.state.data || q.state.data.status === "pending" ? 1000 : false), staleTime: 0 },
    ),
  );
  const status = freeze.data?.status;

  useEffect(() => {
    if (!status || status === "pending") return;
    void queryClient.invalidateQueries(trpc.source.listRevisions.pathFilter());
    void queryClient.invalidateQueries(trpc.source.listProducts.pathFilter());
    void queryClient.invalidateQueries(trpc.source.getRevision.pathFilter());
  }, [status, queryClient, trpc]);

  if (freeze.error) return <Alert title="The freeze's progress could not be read" problem={problemOf(freeze.error)} />;
  if (!freeze.data) return <Loading what="source freeze" />;
  const f = freeze.data;

  return (
    <section aria-label="Source freeze" className="space-y-3 rounded-md border border-slate-200 p-4">
      <div className="flex flex-wrap items-center gap-2 text-sm" role="status">
        <span className="font-medium">Source freeze</span>
        <code className="font-mono text-xs text-slate-600">{f.id}</code>
        <FreezeStatusBadge status={f.status} />
        {f.status === "pending" ? <span className="text-slate-600">Fetching and checking the repository…</span> : null}
        {f.status === "frozen" ? <span className="text-slate-600">The source is frozen.</span> : null}
      </div>
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
        <div className="min-w-0">
          <dt className="text-slate-600">Repository</dt>
          <dd className="font-mono text-xs break-all">{f.repo_url}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Ref</dt>
          <dd className="font-mono text-xs break-all">{f.ref}</dd>
        </div>
        {f.commit_sha ? (
          <div>
            <dt className="text-slate-600">Commit</dt>
            <dd className="font-mono text-xs break-all">{f.commit_sha}</dd>
          </div>
        ) : null}
        {f.snapshot ? (
          <div>
            <dt className="text-slate-600">Snapshot</dt>
            <dd className="text-xs">
              {bytes(f.snapshot.size_bytes)}, sha256 <code className="font-mono break-all">{f.snapshot.sha256.slice(0, 12)}…</code>
              {f.replayed ? " (same commit as an earlier freeze)" : ""}
            </dd>
          </div>
        ) : null}
      </dl>
      {f.status === "rejected" || f.status === "failed" ? <FreezeOutcome freeze={f} /> : null}
      <div className="flex flex-wrap gap-2">
        {f.status === "frozen" ? (
          <Link href={workspaceHref(ws, `/revisions/${f.revision.id}`)} className={buttonVariants({ size: "sm" })}>
            Review revision {f.revision.id}
          </Link>
        ) : null}
        {showProductLink && f.status !== "pending" ? (
          <Link href={workspaceHref(ws, `/products/${f.product.id}`)} className={buttonVariants({ variant: "secondary", size: "sm" })}>
            Open product {f.product.id}
          </Link>
        ) : null}
      </div>
    </section>
  );
}

/* ------------------------------------------------------------------------------------------------
 * Products page
 * ---------------------------------------------------------------------------------------------- */

const PRODUCT_TONE: Record<TProductStatus, "info" | "success" | "neutral" | "danger"> = {
  building: "info",
  ready: "neutral",
  live: "success",
  failed: "danger",
};

export function ProductStatusBadge({ status }: { status: TProductStatus }) {
  return <Badge tone={PRODUCT_TONE[status]}>{titleCase(status)}</Badge>;
}

/** Repository URLs compared the way people mean them: no trailing slash or `.git`, host and path ignoring case. */
export function sameRepository(a: string, b: string): boolean {
  const norm = (u: string) => u.trim().replace(/\/+$/, "").replace(/\.git$/, "").toLowerCase();
  return norm(a) !== "" && norm(a) === norm(b);
}

function NewProductForm({ ws, canCreate, existing }: { ws: string; canCreate: boolean; existing: TProduct[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [repoUrl, setRepoUrl] = useState("");
  const [ref, setRef] = useState("main");
  const [name, setName] = useState("");
  const already = existing.filter((p) => sameRepository(p.repo_url, repoUrl));
  const create = useMutation(
    trpc.source.createProduct.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.source.listProducts.pathFilter()),
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ ws, repo_url: repoUrl.trim(), ref: ref.trim(), auth: { kind: "none" }, ...(name.trim() ? { name: name.trim() } : {}) });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>New product</CardTitle>
        <CardDescription>
          Capstan freezes the repository at the ref (a branch, tag or commit) and detects how to run it. Only public repositories are
          supported.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-72 flex-[3] space-y-1.5">
            <Label htmlFor="product-repo-url">Repository URL</Label>
            <Input
              id="product-repo-url"
              name="repo_url"
              type="url"
              inputMode="url"
              required
              maxLength={2048}
              autoComplete="off"
              placeholder="https://github.com/owner/repository.git"
              value={repoUrl}
              disabled={!canCreate}
              onChange={(e) => setRepoUrl(e.target.value)}
            />
          </div>
          <div className="min-w-48 flex-[2] space-y-1.5">
            <Label htmlFor="product-name">Name (optional)</Label>
            <Input
              id="product-name"
              name="name"
              maxLength={100}
              autoComplete="off"
              placeholder={repoUrl.trim() ? repoName(repoUrl.trim()) : "From the repository"}
              aria-describedby="product-name-hint"
              value={name}
              disabled={!canCreate}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="min-w-40 flex-1 space-y-1.5">
            <Label htmlFor="product-ref">Ref</Label>
            <Input
              id="product-ref"
              name="ref"
              required
              maxLength={256}
              autoComplete="off"
              value={ref}
              disabled={!canCreate}
              onChange={(e) => setRef(e.target.value)}
            />
          </div>
          <Button type="submit" disabled={!canCreate || create.isPending}>
            <PackagePlus aria-hidden="true" />
            {create.isPending ? "Creating…" : "Create product"}
          </Button>
        </form>
        <p id="product-name-hint" className="text-xs text-slate-600">
          Names are unique in the workspace, ignoring case. Without one, the repository&apos;s name is used (with -2, -3… when taken).
        </p>
        {already.length > 0 ? (
          <Alert tone="warning" title="This repository is already a product here">
            <p>
              {already.map((p, i) => (
                <span key={p.id}>
                  {i > 0 ? ", " : ""}
                  <Link href={workspaceHref(ws, `/products/${p.id}`)} className="underline underline-offset-2">
                    {p.name}
                  </Link>
                </span>
              ))}{" "}
              already builds it. Creating it again makes a separate product (for example for another branch), with its own name.
            </p>
          </Alert>
        ) : null}
        {create.error ? <Alert title="The product was not created" problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending ? <FreezeProgress key={create.data.source_freeze_id} ws={ws} frz={create.data.source_freeze_id} /> : null}
      </CardContent>
    </Card>
  );
}

/** The workspace's products and the form that creates one from a repository, with live freeze progress. */
export function ProductsView({ ws }: { ws: string }) {
  const trpc = useTRPC();
  const workspace = useQuery(trpc.workspaces.get.queryOptions(wsOnly(ws)));
  const products = useInfiniteQuery(
    trpc.source.listProducts.infiniteQueryOptions({ ws, limit: 50, order: "desc" }, { getNextPageParam: (page) => page.next_cursor ?? undefined }),
  );
  const role = workspace.data?.role;
  // Until the role is known, let the form be used: the server decides anyway.
  const canCreate = role === undefined || hasRole(role, "developer");
  const rows = products.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <>
      <PageHeader
        title="Products"
        description={workspace.data ? `Hosted apps of ${workspace.data.name}, each created from a repository.` : "Hosted apps, each created from a repository."}
      />
      <div className="space-y-6">
        {workspace.error ? <Alert problem={problemOf(workspace.error)} /> : null}
        {role && !canCreate ? <Alert>Only developers, admins and owners can create products. You are {role}.</Alert> : null}
        <NewProductForm ws={ws} canCreate={canCreate} existing={rows} />

        <Card>
          <CardHeader>
            <CardTitle>All products</CardTitle>
          </CardHeader>
          <CardContent className="px-0 py-0">
            <QueryStates query={products} what="products" empty={rows.length === 0} emptyText="No products yet." />
            {rows.length > 0 ? (
              <Table>
                <TableCaption>Products of this workspace</TableCaption>
                <TableHeader>
                  <TableRow>
                    <TableHead>Name</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>Repository</TableHead>
                    <TableHead>Last activity</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((p) => (
                    <TableRow key={p.id}>
                      <TableCell data-label="Name">
                        <Link href={workspaceHref(ws, `/products/${p.id}`)} className="font-medium text-sky-800 underline underline-offset-2">
                          {p.name}
                        </Link>
                        <div className="font-mono text-xs text-slate-600">{p.id}</div>
                      </TableCell>
                      <TableCell data-label="Status">
                        <ProductStatusBadge status={p.status} />
                      </TableCell>
                      <TableCell data-label="Repository" className="max-w-80 text-xs break-all">
                        <span className="font-mono">{p.repo_url}</span> <span className="text-slate-600">@ {p.ref}</span>
                      </TableCell>
                      <TableCell data-label="Last activity" className="whitespace-nowrap">
                        <RelativeTime iso={p.last_activity_at} />
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
            <LoadMore query={products} label="Load more products" />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
