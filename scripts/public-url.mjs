// Settings that follow each other (issue #39): the listen port (PORT or
// `npm start -- -p N`), CAPSTAN_PUBLIC_URL and NEXTAUTH_URL. Unset URLs
// default from the port (http://localhost:<port>) and NEXTAUTH_URL from the
// public URL; a mismatch between what is set is one warning at start, never a
// refusal (a proxy in front may legitimately change the port).

/** `-p 3700`, `--port 3700`, `--port=3700`, `-H host`, `--hostname host` from npm start's arguments. */
export function parseStartArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf("=");
    const [flag, inline] = a.startsWith("--") && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "-p" || flag === "--port") out.port = value();
    else if (flag === "-H" || flag === "--hostname") out.host = value();
    else throw new Error(`unknown option ${a} (npm start takes -p/--port and -H/--hostname)`);
  }
  if (out.port !== undefined && !/^\d{1,5}$/.test(out.port))
    throw new Error(`-p needs a port number, got ${JSON.stringify(out.port)}`);
  return out;
}

function origin(url) {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function isLocal(host) {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host === "0.0.0.0";
}

/**
 * The environment `npm start` gives the server, and the warnings to print.
 * `env` is process.env (not changed); `args` what parseStartArgs returned.
 */
export function resolveUrls(env, args = {}) {
  const port = String(args.port ?? env.PORT ?? "3000");
  const host = args.host ?? env.HOST ?? "0.0.0.0";
  const publicUrl = env.CAPSTAN_PUBLIC_URL || `http://localhost:${port}`;
  const nextauthUrl = env.NEXTAUTH_URL || publicUrl;
  const warnings = [];
  const pub = origin(publicUrl);
  const auth = origin(nextauthUrl);
  if (pub && auth && pub !== auth) {
    warnings.push(
      `NEXTAUTH_URL (${nextauthUrl}) and CAPSTAN_PUBLIC_URL (${publicUrl}) name different origins: console sign-in redirects to one, tokens and links name the other. Unset NEXTAUTH_URL to follow CAPSTAN_PUBLIC_URL.`,
    );
  }
  if (pub) {
    const u = new URL(pub);
    const urlPort = u.port || (u.protocol === "https:" ? "443" : "80");
    if (isLocal(u.hostname) && urlPort !== port) {
      warnings.push(
        `CAPSTAN_PUBLIC_URL (${publicUrl}) names port ${urlPort} on this machine but the server listens on ${port}: links, surface URLs and sign-in will point at the wrong port. Unset CAPSTAN_PUBLIC_URL to follow the port.`,
      );
    }
  }
  return { port, host, publicUrl, nextauthUrl, warnings };
}
