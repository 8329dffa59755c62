/**
 * `CAPSTAN_URL=https://capstan.example CAPSTAN_CLIENT_ID=svc_... CAPSTAN_CLIENT_SECRET=... npx tsx examples/bridge-app/main.ts Ada`
 */
import { visit } from "./app";

const { CAPSTAN_URL, CAPSTAN_CLIENT_ID, CAPSTAN_CLIENT_SECRET } = process.env;
if (!CAPSTAN_URL || !CAPSTAN_CLIENT_ID || !CAPSTAN_CLIENT_SECRET) {
  console.error("set CAPSTAN_URL, CAPSTAN_CLIENT_ID and CAPSTAN_CLIENT_SECRET");
  process.exit(2);
}
const result = await visit(
  { baseUrl: CAPSTAN_URL, clientId: CAPSTAN_CLIENT_ID, clientSecret: CAPSTAN_CLIENT_SECRET },
  process.argv[2] ?? "stranger",
);
console.log(result.greeting);
