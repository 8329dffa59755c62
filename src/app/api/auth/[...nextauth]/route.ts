import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/options";

export const dynamic = "force-dynamic";

type TRouteContext = { params: Promise<{ nextauth: string[] }> };
type TRouteHandler = (req: Request, ctx: TRouteContext) => Promise<Response>;

function handler(req: Request, ctx: TRouteContext): Promise<Response> {
  // next-auth v4 types its App Router handler as `any`; this is its documented shape.
  const nextAuth = NextAuth as unknown as (options: ReturnType<typeof authOptions>) => TRouteHandler;
  return nextAuth(authOptions())(req, ctx);
}

export { handler as GET, handler as POST };
