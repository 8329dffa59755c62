// `npm start`: serves the production build, building it first when there is
// none (.next/BUILD_ID missing). Listens on $PORT (3000) and $HOST (0.0.0.0);
// forwards signals to the server (scripts/server.mjs) and exits with its code.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

const port = process.env.PORT ?? "3000";
const host = process.env.HOST ?? "0.0.0.0";
// scripts/server.mjs: Next.js in one process with the surface fast path in front (see there).
const child = spawn(process.execPath, [path.join(root, "scripts", "server.mjs")], {
  stdio: "inherit",
  cwd: root,
  env: { ...process.env, NODE_ENV: "production", PORT: port, HOST: host },
});

const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => forward(signal));

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
