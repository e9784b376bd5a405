# One image recipe for every Patchbay app: the app is a build argument.
#
#   docker build --build-arg APP=mcp-runtime --build-arg PORT=8083 -t patchbay/mcp-runtime .
#
# The build context is the repository root (the whole pnpm workspace). The image runs `node dist/main.js`
# in the app's folder; an app's workers run from the same image with another command (for example
# `node dist/worker.js`, as docker-compose.yml and the Helm chart do). Adding an app needs no change here.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG APP
# corepack fails on registry signatures here, so pnpm comes from npm at the version the workspace pins.
RUN npm install -g pnpm@10.34.9 && npm cache clean --force
ENV CI=true \
    TURBO_TELEMETRY_DISABLED=1 \
    DO_NOT_TRACK=1 \
    npm_config_store_dir=/pnpm/store
WORKDIR /repo

# The store is filled from the lockfile alone, so this layer stays cached until a dependency changes
# (and is shared by every app's image). The optional files are globs: a missing one is skipped.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc* .pnpmfile.cjs* ./
RUN pnpm fetch

COPY . .
RUN test -n "${APP}" || { echo "Build with --build-arg APP=<app>, one of: $(ls apps | tr '\n' ' ')" >&2; exit 1; } \
 && test -f "apps/${APP}/package.json" || { echo "apps/${APP} is not an app of this repository; apps: $(ls apps | tr '\n' ' ')" >&2; exit 1; }
# The root project is included for the build tools (turbo, swc, typescript) in its devDependencies.
RUN pnpm install --offline --frozen-lockfile --filter "@patchbay/${APP}..." --filter patchbay
# swc emits the JavaScript; the type check is CI's job (pnpm typecheck), not the image's.
RUN pnpm turbo run build --filter="@patchbay/${APP}..." --output-logs=errors-only
# pnpm 10 deploys from a workspace without injected dependencies only with --legacy. The result holds the
# app's `files` (dist, and prisma/migrations where the app has them), its production dependencies, and
# each @patchbay/* dependency as a copy of its own `files` (its built dist). The legacy deploy resolves
# again and needs the registry's metadata, which `pnpm fetch` does not keep: --prefer-offline, not --offline.
RUN pnpm --filter "@patchbay/${APP}" --prod --prefer-offline deploy --legacy /out \
 && test -f /out/dist/main.js


FROM ${NODE_IMAGE} AS runtime
ARG APP
ARG PORT=8080
LABEL org.opencontainers.image.title="patchbay-${APP}"
ENV NODE_ENV=production \
    PORT=${PORT} \
    PATCHBAY_APP=${APP}
WORKDIR /app
# Owned by root and only readable by the app user: the service never writes its own files.
COPY --from=build /out ./
USER node
EXPOSE ${PORT}
# The slim image has no curl; Node 20 has fetch. /healthz answers 503 when a dependency is down.
# Workers serve /healthz on their own PORT too, so the same check fits them.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
