import { bridgeToken, createCapstanClient, must, type TCapstanClientOptions } from "@capstan/client";

/**
 * A small Bridge app: a visit counter with a greeting, kept in the product's
 * data.kv scope (contract: data.kv, actions get/set/increment, scope prefix
 * /app). It authenticates as its service identity (client_credentials) and
 * calls every capability through the generated client, so the compiler
 * checks each request body against the published document.
 */
export type TBridgeAppConfig = {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** For tests: a fetch that reaches Capstan another way (default globalThis.fetch). */
  fetch?: TCapstanClientOptions["fetch"];
};

export type TVisit = { visits: number; greeting: string; invocationIds: string[] };

export async function visit(config: TBridgeAppConfig, name: string): Promise<TVisit> {
  const anonymous = createCapstanClient({ baseUrl: config.baseUrl, fetch: config.fetch });
  const token = await bridgeToken(anonymous, config.clientId, config.clientSecret);
  const bridge = createCapstanClient({ baseUrl: config.baseUrl, fetch: config.fetch, token });

  const counted = await must(
    bridge.POST("/v1/capabilities/data.kv/increment", { body: { key: "/app/visits", by: 1 } }),
  );
  const stored = await must(
    bridge.POST("/v1/capabilities/data.kv/set", { body: { key: "/app/last-visitor", value: { name } } }),
  );
  const read = await must(bridge.POST("/v1/capabilities/data.kv/get", { body: { key: "/app/last-visitor" } }));

  const visits = (counted.output as { value: number }).value;
  const last = (read.output as { value: { name: string } | null }).value;
  return {
    visits,
    greeting: `Hello ${last?.name ?? "stranger"}, visit number ${visits}`,
    invocationIds: [counted.capability_invocation_id, stored.capability_invocation_id, read.capability_invocation_id],
  };
}
