// Bench-only preload (`node --require bench/lib/round-trips.cjs`, set by bench/surface.ts through NODE_OPTIONS):
// counts the PostgreSQL round trips each HTTP request of the server makes and answers them in a
// `Bench-Round-Trips` response header. Every `pg` Client#query (Prisma's adapter and our own pools
// both go through it) made within the request's async context counts as one round trip, fire-and-forget
// ones included; work of other requests and of the workers does not. Never loaded by `npm start` itself.
"use strict";
// A CommonJS preload for `node --require`: require() is how it loads, by design.
/* global require */
/* eslint-disable @typescript-eslint/no-require-imports */
const { AsyncLocalStorage } = require("node:async_hooks");
const http = require("node:http");

const als = new AsyncLocalStorage();
let pg;
try {
  pg = require("pg");
} catch {
  return; // a process without pg (a hosted app started with the same NODE_OPTIONS)
}
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  const store = als.getStore();
  if (store) store.n++;
  return query.apply(this, args);
};
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function emitWithCounter(event, req, res) {
  // Only the requests the bench counts (admitted invocations), so every other answer is untouched.
  if (event !== "request" || req.method !== "POST" || !/\/invocations$/.test(req.url ?? ""))
    return emit.apply(this, arguments);
  const store = { n: 0 };
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadWithCount(...a) {
    if (!res.headersSent) res.setHeader("bench-round-trips", String(store.n));
    return writeHead.apply(this, a);
  };
  return als.run(store, () => emit.apply(this, arguments));
};

// BENCH_CPU_PROF=<dir>: the server (scripts/server.mjs) profiles itself and writes a .cpuprofile there at exit
// (--cpu-prof is not allowed in NODE_OPTIONS); summarise with bench/lib/profile-top.ts.
if (process.env.BENCH_CPU_PROF && /server\.mjs$/.test(process.argv[1] ?? "")) {
  const inspector = require("node:inspector");
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  process.on("exit", () => {
    session.post("Profiler.stop", (err, r) => {
      if (!err)
        require("node:fs").writeFileSync(
          require("node:path").join(process.env.BENCH_CPU_PROF, `server-${process.pid}.cpuprofile`),
          JSON.stringify(r.profile),
        );
    });
  });
}
