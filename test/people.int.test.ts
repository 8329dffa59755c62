import { beforeAll, expect, it } from "vitest";
import { peopleOf } from "@/server/domain/workspaces/people.service";
import { db } from "@/server/platform/db/client";
import { api, bootApp, makeUser, makeWorkspace, type TTestUser, type TTestWorkspace } from "./support/api";

/**
 * The console's people lookup (#21): `usr_` ids become names and emails only
 * for people the workspace knows (members, and actors of its audit trail,
 * who stay recognisable after they leave); anyone else, including members
 * of another workspace, is not answered.
 */
let owner: TTestUser;
let member: TTestUser;
let stranger: TTestUser;
let ws: TTestWorkspace;

beforeAll(async () => {
  await bootApp();
  [owner, member, stranger] = await Promise.all([makeUser(), makeUser(), makeUser()]);
  ws = await makeWorkspace(owner.token);
  await makeWorkspace(stranger.token); // a member elsewhere, not here
  const r = await api("PUT", `/v1/workspaces/${ws.id}/members/${member.userId}`, {
    token: owner.token,
    body: { role: "admin" },
  });
  expect(r.status, r.text).toBe(200);
});

it("answers members with name and email, and nobody else", async () => {
  const people = await peopleOf(ws.id, [
    owner.userId,
    member.userId,
    stranger.userId,
    "usr_00000000000000000000000000",
    "svc_x",
  ]);
  expect(people.map((p) => p.id).sort()).toEqual([owner.userId, member.userId].sort());
  expect(people.find((p) => p.id === member.userId)).toEqual({
    id: member.userId,
    name: "Test user",
    email: member.email,
    member: true,
  });
});

it("a former member who acted in the workspace is still named, marked as not a member", async () => {
  // The member acts (an audited change), then leaves.
  const created = await api("POST", `/v1/workspaces/${ws.id}/event-subscriptions`, {
    token: member.token,
    body: { url: "https://hooks.example.com/x", event_types: ["*"] },
  });
  expect(created.status, created.text).toBe(201);
  const renamed = await api(
    "PATCH",
    `/v1/workspaces/${ws.id}/event-subscriptions/${(created.json as { id: string }).id}`,
    {
      token: member.token,
      body: { name: "Renamed by member" },
    },
  );
  expect(renamed.status, renamed.text).toBe(200);
  await db().membership.deleteMany({ where: { workspaceId: ws.id, userId: member.userId } });
  const people = await peopleOf(ws.id, [member.userId]);
  expect(people).toEqual([{ id: member.userId, name: "Test user", email: member.email, member: false }]);
});
