"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { PackagePlus } from "lucide-react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { problemOf, useTRPC } from "@/lib/trpc/client";
import type { TProduct } from "@/server/domain/source/source.contract";
import { TextField } from "../shared/text-field";
import { workspaceHref } from "../shell/nav-config";
import { FreezeProgress } from "./freeze-progress";
import { repoName, sameRepository } from "./source-freeze";

/** Creates a product from a repository, warns when the repository already is one, and follows the freeze. */
export function NewProductForm({ ws, canCreate, existing }: { ws: string; canCreate: boolean; existing: TProduct[] }) {
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
    create.mutate({
      ws,
      repo_url: repoUrl.trim(),
      ref: ref.trim(),
      auth: { kind: "none" },
      ...(name.trim() ? { name: name.trim() } : {}),
    });
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>New product</CardTitle>
        <CardDescription>
          Capstan freezes the repository at the ref (a branch, tag or commit) and detects how to run it. Only public
          repositories are supported.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <TextField
            id="product-repo-url"
            label="Repository URL"
            className="min-w-72 flex-[3]"
            name="repo_url"
            type="url"
            inputMode="url"
            required
            maxLength={2048}
            autoComplete="off"
            placeholder="https://github.com/owner/repository.git"
            value={repoUrl}
            disabled={!canCreate}
            onValue={setRepoUrl}
          />
          <TextField
            id="product-name"
            label="Name (optional)"
            className="min-w-48 flex-[2]"
            name="name"
            maxLength={100}
            autoComplete="off"
            placeholder={repoUrl.trim() ? repoName(repoUrl.trim()) : "From the repository"}
            aria-describedby="product-name-hint"
            value={name}
            disabled={!canCreate}
            onValue={setName}
          />
          <TextField
            id="product-ref"
            label="Ref"
            className="min-w-40 flex-1"
            name="ref"
            required
            maxLength={256}
            autoComplete="off"
            value={ref}
            disabled={!canCreate}
            onValue={setRef}
          />
          <Button type="submit" disabled={!canCreate || create.isPending}>
            <PackagePlus aria-hidden="true" />
            {create.isPending ? "Creating…" : "Create product"}
          </Button>
        </form>
        <p id="product-name-hint" className="text-xs text-slate-600">
          Names are unique in the workspace, ignoring case. Without one, the repository&apos;s name is used (with -2,
          -3… when taken).
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
              already builds it. Creating it again makes a separate product (for example for another branch), with its
              own name.
            </p>
          </Alert>
        ) : null}
        {create.error ? <Alert title="The product was not created" problem={problemOf(create.error)} /> : null}
        {create.data && !create.isPending ? (
          <FreezeProgress key={create.data.source_freeze_id} ws={ws} frz={create.data.source_freeze_id} />
        ) : null}
      </CardContent>
    </Card>
  );
}
