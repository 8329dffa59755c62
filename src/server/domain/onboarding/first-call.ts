import type { TCapabilityEntry } from "@/server/domain/source/source.types";

/**
 * The onboarding checklist's "first Bridge call": which capability and action
 * to call, an example body the Bridge accepts for it (within the contract's
 * scope), and the copy-paste shell commands. Pure, so it is unit-tested.
 * The client secret is never known here: the commands read it from an
 * environment variable the reader sets from the secret shown once.
 */
export const SECRET_PLACEHOLDER = "<paste the client secret shown once when the identity was created>";

export type TFirstCall = {
  capability: TCapabilityEntry["id"];
  action: string;
  token_url: string;
  call_url: string;
  body: Record<string, unknown>;
  curl: string;
};

/** `prefix` + `/name`, without a doubled slash (prefixes start with "/"). */
function keyUnder(prefix: unknown, name: string): string {
  const p = typeof prefix === "string" && prefix.startsWith("/") ? prefix.replace(/\/+$/, "") : "";
  return `${p}/${name}`;
}

/** Actions in the order a harmless first call prefers them. */
const PREFERRED: Record<TCapabilityEntry["id"], string[]> = {
  "ai.generate": ["generate"],
  "data.kv": ["set", "get", "list", "increment", "delete"],
  "storage.object": ["write", "list", "read", "delete"],
  "email.send": ["send"],
};

function exampleBody(c: TCapabilityEntry, action: string): Record<string, unknown> {
  const s = c.scope;
  switch (c.id) {
    case "ai.generate": {
      const kinds = Array.isArray(s.models) ? (s.models as string[]) : ["text"];
      return kinds.includes("text") || kinds.length === 0
        ? { model_kind: "text", input: { messages: [{ role: "user", content: "Say hello" }] } }
        : { model_kind: kinds[0], input: { text: "hello" } };
    }
    case "data.kv":
      if (action === "set") return { key: keyUnder(s.prefix, "hello"), value: "world" };
      if (action === "list") return { prefix: keyUnder(s.prefix, "") };
      return { key: keyUnder(s.prefix, "hello") };
    case "storage.object":
      if (action === "write")
        return { key: keyUnder(s.prefix, "hello.txt"), content_base64: "aGVsbG8=", content_type: "text/plain" };
      if (action === "list") return { prefix: keyUnder(s.prefix, "") };
      return { key: keyUnder(s.prefix, "hello.txt") };
    case "email.send": {
      const from = Array.isArray(s.from_addresses) ? String(s.from_addresses[0]) : "app@example.com";
      const domain = Array.isArray(s.recipient_domains) ? String(s.recipient_domains[0]) : "example.com";
      return { from, recipients: [`someone@${domain}`], subject: "Hello from Capstan", text: "Hello" };
    }
  }
}

/** Single-quote a string for a POSIX shell. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The call to suggest: among the contract's capabilities the identity may
 * call, one whose workspace-owned credential has a ready binding (so it can
 * succeed), else a platform-owned one (data.kv needs no binding), else the
 * first. Null when the identity may call nothing in the contract.
 */
export function chooseFirstCall(
  capabilities: TCapabilityEntry[],
  readyBindingCapabilities: ReadonlySet<string>,
  may: (capability: string, action: string) => boolean,
): { entry: TCapabilityEntry; action: string } | null {
  const options = capabilities
    .map((entry) => ({ entry, action: PREFERRED[entry.id].find((a) => entry.actions.includes(a) && may(entry.id, a)) }))
    .filter((o): o is { entry: TCapabilityEntry; action: string } => o.action !== undefined);
  return (
    options.find((o) => o.entry.credential_owner === "workspace" && readyBindingCapabilities.has(o.entry.id)) ??
    options.find((o) => o.entry.credential_owner === "platform") ??
    options[0] ??
    null
  );
}

/** The two commands: exchange the identity's credentials for a token, then call the Bridge. */
export function buildFirstCall(
  publicUrl: string,
  clientId: string,
  entry: TCapabilityEntry,
  action: string,
): TFirstCall {
  const base = publicUrl.replace(/\/+$/, "");
  const token_url = `${base}/v1/oauth/token`;
  const call_url = `${base}/v1/capabilities/${entry.id}/${action}`;
  const body = exampleBody(entry, action);
  const curl = [
    `export CAPSTAN_CLIENT_SECRET=${shellQuote(SECRET_PLACEHOLDER)}`,
    `TOKEN=$(curl -sS ${token_url} \\`,
    `  -d grant_type=client_credentials -d client_id=${clientId} \\`,
    `  --data-urlencode "client_secret=$CAPSTAN_CLIENT_SECRET" | jq -r .access_token)`,
    `curl -sS -X POST ${call_url} \\`,
    `  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join("\n");
  return { capability: entry.id, action, token_url, call_url, body, curl };
}
