// Part of `npm run build`: the processes that are not Next.js (the worker and
// runner roles, the operator CLI) as plain JavaScript in dist/, so production
// runs them with node alone after `npm ci --omit=dev`:
//   dist/worker.mjs  <- src/server/workers/main.ts   (`node dist/worker.mjs`)
//   dist/cli.mjs     <- src/cli/capstan.ts           (`node dist/cli.mjs`, `npx capstan`)
// Our code (with the generated Prisma client under src/generated) is bundled;
// packages stay imports of node_modules (production dependencies only: a
// test checks that no devDependency is imported). Shared code goes to
// dist/chunks once.
import { rm } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = process.env.CAPSTAN_DIST_DIR ? path.resolve(process.env.CAPSTAN_DIST_DIR) : path.join(root, "dist");
const require = createRequire(path.join(root, "package.json"));

// Node's ESM loader refuses `pkg/sub/dir` of a CommonJS package without an exports map (a directory
// import, e.g. nodemailer/lib/smtp-connection), which CommonJS and TypeScript's bundler resolution
// allow: such subpaths are written as the file CommonJS would load (nodemailer/lib/smtp-connection/index.js).
const fullySpecified = {
  name: "fully-specified-subpaths",
  setup(b) {
    b.onResolve({ filter: /^(@[^/.][^/]*\/)?[^/.@][^/]*\/.+/ }, (args) => {
      const parts = args.path.split("/");
      const pkg = args.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
      let manifest;
      try {
        manifest = require(`${pkg}/package.json`);
      } catch {
        return { path: args.path, external: true }; // an exports map that hides package.json: Node resolves it
      }
      if (manifest.exports) return { path: args.path, external: true };
      const file = require.resolve(args.path);
      const at = file.lastIndexOf(`node_modules/${pkg}/`);
      return { path: file.slice(at + "node_modules/".length), external: true };
    });
  },
};
await rm(outdir, { recursive: true, force: true });
const started = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: { worker: "src/server/workers/main.ts", cli: "src/cli/capstan.ts" },
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  packages: "external",
  plugins: [fullySpecified],
  tsconfig: path.join(root, "tsconfig.json"),
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
  // Code that reads process.env.NODE_ENV keeps reading it at run time.
  define: {},
});
const outputs = Object.keys(result.metafile.outputs).filter((f) => f.endsWith(".mjs"));
console.log(`[build] dist/: ${outputs.length} files (worker, cli + shared chunks) in ${Date.now() - started} ms`);
