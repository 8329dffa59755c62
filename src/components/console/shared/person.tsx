"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import { CopyIdButton } from "./resource-table";

export type TPerson = { id: string; name: string; email: string; member: boolean };

/** Names and emails for the `usr_` ids a page shows (members and people in the workspace's audit trail). */
export function usePeople(ws: string, ids: (string | null | undefined)[]): Map<string, TPerson> {
  const trpc = useTRPC();
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === "string" && id.startsWith("usr_")))]
    .sort()
    .slice(0, 200);
  const people = useQuery(
    trpc.workspaces.people.queryOptions({ ws, ids: wanted }, { enabled: wanted.length > 0, staleTime: 60_000 }),
  );
  return new Map((people.data ?? []).map((p) => [p.id, p]));
}

/**
 * A person by name and email, the `usr_` id one click away (copy). Unknown to
 * the workspace (or still loading): the id itself, with the copy button.
 */
export function Person({ id, person }: { id: string; person: TPerson | undefined }) {
  if (!person) {
    return (
      <span className="inline-flex items-center gap-1">
        <code className="font-mono text-xs break-all">{id}</code>
        <CopyIdButton id={id} label={`Copy id ${id}`} className="align-middle" />
      </span>
    );
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-x-1">
      <span className="font-medium text-slate-900">{person.name}</span>
      <span className="text-slate-600">{person.email}</span>
      {person.member ? null : <span className="text-slate-600">(former member)</span>}
      <CopyIdButton id={id} label={`Copy id ${id}`} className="align-middle" />
    </span>
  );
}

/** One person by id (a page that names a single person: who confirmed, who decided). */
export function PersonById({ ws, id }: { ws: string; id: string }) {
  const people = usePeople(ws, [id]);
  return <Person id={id} person={people.get(id)} />;
}

/** An audit actor or target: a person by name and email when it is a user, else its kind and id. */
export function ActorLabel({ kind, id, people }: { kind: string; id: string | null; people: Map<string, TPerson> }) {
  if (id && id.startsWith("usr_")) return <Person id={id} person={people.get(id)} />;
  return (
    <span>
      <span className="text-slate-600">{kind}</span>
      {id ? (
        <>
          {" "}
          <code className="font-mono break-all">{id}</code>
        </>
      ) : null}
    </span>
  );
}
