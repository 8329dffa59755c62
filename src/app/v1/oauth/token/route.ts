import { handleOAuthToken } from "@/server/http/oauth-token-handler";

export const dynamic = "force-dynamic";

/** POST /v1/oauth/token: its own route (form-encoded, RFC 6749 JSON responses), ahead of the /v1 catch-all. */
export const POST = handleOAuthToken;
