// `npm start`: serves the production build, building it first when there is
// none (.next/BUILD_ID missing). Listens on $PORT (3000; `npm start -- -p N`) and $HOST (0.0.0.0);
// forwards signals to the server (scripts/server.mjs) and exits with its code.
// npm does not relay SIGTERM (it exits and leaves this process behind): this
// process follows its parent and stops the server when npm is gone
// (./follow-parent.mjs). In production run `node scripts/server.mjs` itself.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseStartArgs, resolveUrls } from "./public-url.mjs";
import { followParent } from "./follow-parent.mjs";

let startArgs;
try {
  startArgs = parseStartArgs(process.argv.slice(2));
} catch (err) {
  console.error(`[start] ${err.message}`);
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

function runOrExit(args, what, intro = what) {
  console.log(`[start] ${intro}`);
  const r = spawnSync(process.execPath, args, { stdio: "inherit", cwd: root, env: process.env });
  if (r.error) {
    console.error(`[start] ${what} could not run: ${r.error.message}`);
    process.exit(1);
  }
  if (r.status !== 0) {
    console.error(`[start] ${what} failed (${r.signal ?? `exit code ${r.status}`})`);
    process.exit(r.status || 1);
  }
}

if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
  if (!existsSync(path.join(root, "src", "generated", "prisma"))) {
    runOrExit([path.join(root, "scripts", "prisma-generate.mjs")], "generating the Prisma client");
  }
  runOrExit([nextBin, "build"], "next build", "no production build found (.next/BUILD_ID): running next build");
}

// CAPSTAN_PUBLIC_URL and NEXTAUTH_URL follow the port unless set (scripts/public-url.mjs).
const { port, host, publicUrl, nextauthUrl, warnings } = resolveUrls(process.env, startArgs);
for (const w of warnings) console.warn(`[start] warning: ${w}`);
// scripts/server.mjs: Next.js in one process with the surface fast path in front (see there).
const child = spawn(process.execPath, [path.join(root, "scripts", "server.mjs")], {
  stdio: "inherit",
  cwd: root,
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: port,
    HOST: host,
    CAPSTAN_PUBLIC_URL: publicUrl,
    NEXTAUTH_URL: nextauthUrl,
  },
});

const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => forward(signal));
followParent({ log: (msg) => console.log(`[start] ${msg}`) });

child.on("error", (err) => {
  console.error(`[start] could not start next: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Exit the way the child did (128 + signal number by shell convention).
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
