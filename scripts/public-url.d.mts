export type TStartArgs = { port?: string; host?: string };
export function parseStartArgs(argv: string[]): TStartArgs;
export function resolveUrls(
  env: Record<string, string | undefined>,
  args?: TStartArgs,
): { port: string; host: string; publicUrl: string; nextauthUrl: string; warnings: string[] };
