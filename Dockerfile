# syntax=docker/dockerfile:1
# Capstan's production image: one image, every role (README "Production: build,
# commands, signals"). Built in three stages:
#   build  - full install, `npm run build` (.next for the web role, dist/ for the
#            worker and runner roles and the CLI: plain JavaScript);
#   deps   - `npm ci --omit=dev`: only what those run on;
#   final  - the runtime: node, tini as PID 1 (signals reach node, zombies are
#            reaped), git and tar (source intake), bubblewrap and runsc (the
#            runner role's sandboxes), a non-root user.
# Commands (node itself, never npm: npm does not relay SIGTERM):
#   web      node scripts/server.mjs            (the default CMD)
#   worker   node dist/worker.mjs               (CAPSTAN_ROLES=worker, or worker,runner)
#   migrate  node dist/cli.mjs migrate          (once per release, before the rest)
#   CLI      node dist/cli.mjs <command>

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prisma-generate.mjs ./scripts/prisma-generate.mjs
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS final
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates git tar bubblewrap runsc \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    CAPSTAN_DATA_DIR=/var/lib/capstan \
    CAPSTAN_RUNNER_DIR=/var/lib/capstan/runner
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json /app/next.config.mjs ./
COPY --from=build /app/.next ./.next
COPY --from=build /app/dist ./dist
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/bin ./bin
COPY --from=build /app/prisma ./prisma
RUN groupadd --system --gid 10001 capstan \
 && useradd --system --uid 10001 --gid capstan --home-dir /var/lib/capstan --create-home capstan \
 && mkdir -p /var/lib/capstan/runner && chown -R capstan:capstan /var/lib/capstan \
 && rm -rf .next/cache
USER capstan
EXPOSE 3000 7400 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "scripts/server.mjs"]
