"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId } from "react";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { useTRPC } from "@/lib/trpc/client";
import { workspaceHref } from "./nav-config";

/** Picks the current workspace; choosing one opens its overview. */
export function WorkspaceSwitcher({ current }: { current: string | undefined }) {
  const trpc = useTRPC();
  const router = useRouter();
  const id = useId();
  const list = useQuery(trpc.workspaces.list.queryOptions({ limit: 200, order: "asc" }));
  const items = list.data?.items ?? [];
  const known = current !== undefined && items.some((w) => w.id === current);

  return (
    <div className="space-y-1.5">
      <Label htmlFor={id} className="text-xs tracking-wide text-slate-600 uppercase">
        Workspace
      </Label>
      <Select
        id={id}
        value={current ?? ""}
        disabled={list.isPending}
        onChange={(e) => {
          if (e.target.value) router.push(workspaceHref(e.target.value));
        }}
      >
        {current === undefined ? <option value="">{list.isPending ? "Loading…" : "Choose a workspace…"}</option> : null}
        {current !== undefined && !known ? (
          <option value={current}>{list.isPending ? "Loading…" : current}</option>
        ) : null}
        {items.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </Select>
    </div>
  );
}
