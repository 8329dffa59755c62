import { newId } from "@/server/platform/ids";
import { listSigningKeys, rotateSigningKey, rotationTimings, type TRotation } from "./signing-keys.service";

/**
 * What the operator CLI prints for `rotate-signing-key` and `signing-keys`,
 * shared by the CLI (own database connection) and a running embedded server
 * (operator socket), so both say the same.
 */
export function describeRotation(r: TRotation, emergency: boolean): string {
  const t = rotationTimings();
  if (emergency) {
    return (
      `new signing key ${r.kid}: active now (emergency)\n` +
      `removed from the JWKS now: ${r.retired.join(", ") || "none"}\n` +
      "what this breaks: every token those keys signed fails verification now (in every Capstan process within " +
      `${t.cacheMs} ms): personal API tokens (users mint new ones), bridge tokens (apps fetch new ones with their ` +
      "client credentials), runner tokens of executions in flight (those invocations fail); verifiers that cached the " +
      `old JWKS keep accepting the old keys until their cache expires (at most max-age=${t.jwksMaxAgeSeconds} s) and ` +
      "fetch the new key on its first unknown kid\n"
    );
  }
  return (
    `new signing key ${r.kid}: next (published, not signing) until ${r.activates_at}, then active\n` +
    (r.previous
      ? `${r.previous} signs until then, then stays published until the last token it signed expires (see \`capstan signing-keys\`)\n`
      : "")
  );
}

export async function rotateAndDescribe(opts: { emergency: boolean; reason?: string }): Promise<string> {
  const r = await rotateSigningKey({
    emergency: opts.emergency,
    reason: opts.reason,
    correlationId: newId("evt"),
    actor: { kind: "system", id: null },
  });
  return describeRotation(r, opts.emergency);
}

export async function describeKeys(): Promise<string> {
  return (await listSigningKeys())
    .map((k) => {
      const when =
        k.state === "next"
          ? `signs from ${k.activates_at}`
          : k.state === "retiring"
            ? `leaves the JWKS ${k.retires_at}`
            : k.state === "retired"
              ? `retired ${k.retired_at ?? k.retires_at}${k.retired_reason ? ` (${k.retired_reason})` : ""}`
              : "signing";
      return `${k.kid}  ${k.state.padEnd(8)}  ${when}\n`;
    })
    .join("");
}
