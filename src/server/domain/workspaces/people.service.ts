import { db } from "@/server/platform/db/client";
import { scopedDb } from "@/server/platform/db/scoped";

export type TPerson = { id: string; name: string; email: string; member: boolean };

/**
 * Names and emails of people a workspace's pages mention by id (audit actors,
 * creators, members). Only people the workspace knows are answered: current
 * members, and anyone who appears as an actor in its audit trail (a former
 * member stays recognisable in the records they left). Any other id is left
 * out, so this cannot be used to look up arbitrary accounts.
 */
export async function peopleOf(workspaceId: string, ids: string[]): Promise<TPerson[]> {
  const wanted = [...new Set(ids)].filter((id) => id.startsWith("usr_"));
  if (wanted.length === 0) return [];
  const [members, actors] = await Promise.all([
    scopedDb(workspaceId).membership.findMany({ where: { userId: { in: wanted } }, select: { userId: true } }),
    scopedDb(workspaceId).auditRecord.findMany({
      where: { actorId: { in: wanted } },
      select: { actorId: true },
      distinct: ["actorId"],
    }),
  ]);
  const memberIds = new Set(members.map((m) => m.userId));
  const known = new Set([...memberIds, ...actors.flatMap((a) => (a.actorId ? [a.actorId] : []))]);
  if (known.size === 0) return [];
  // Users are platform-global: only the ids the workspace knows (above) are read.
  // platform-scoped: users belong to no workspace (PLATFORM_GLOBAL); the ids come from this workspace's rows.
  const users = await db().user.findMany({
    where: { id: { in: [...known] } },
    select: { id: true, name: true, email: true },
  });
  return users.map((u) => ({ id: u.id, name: u.name, email: u.email, member: memberIds.has(u.id) }));
}
