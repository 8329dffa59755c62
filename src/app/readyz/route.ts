import { readiness } from "@/server/http/readiness";

export const dynamic = "force-dynamic";

export const GET = readiness;
