# syntax=docker/dockerfile:1
# One Dockerfile, four images: docker build --target stackgate|gateway|backend|frontend .
# - stackgate: the whole service in one process, with its own Trivy server (small installs:
#   `docker run -p 8080:8080 -v stackgate:/data ghcr.io/stackgate/stackgate`);
# - gateway, backend, frontend: the same service split into three (compose.yml, compose.ha.yml).
# Each runtime image is the official Node slim base plus a few megabytes: the gateway and the backend
# are single-file builds (scripts/bundle.ts), the frontend is Astro's server with its dependencies
# inside. No node_modules tree, no TypeScript, no compiler, no build tool reaches a runtime image.
# NODE_IMAGE and TRIVY_IMAGE may point at a private mirror.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG TRIVY_IMAGE=aquasec/trivy:0.69.3@sha256:bcc376de8d77cfe086a917230e818dc9f8528e3c852f7b1aff648949b6258d1c

FROM ${TRIVY_IMAGE} AS trivy

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY apps/gateway/package.json apps/gateway/
COPY apps/backend/package.json apps/backend/
COPY apps/frontend/package.json apps/frontend/
COPY packages/contract/package.json packages/contract/
COPY packages/simulators/package.json packages/simulators/
# --ignore-scripts: nothing here needs an install script. The one native module, better-sqlite3 13,
# loads the prebuilt binary it ships in its package (linux x64/arm64, glibc and musl), so no
# node-gyp, Python or compiler is needed; esbuild finds its platform binary as an optional
# dependency; the pinned `node` dev dependency is not wanted: the base image is the Node to use.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY packages packages
COPY apps apps
COPY scripts/bundle.ts scripts/
RUN node scripts/bundle.ts /out \
 && STACKGATE_FRONTEND_SELF_CONTAINED=1 STACKGATE_FRONTEND_DIST=/out/frontend ASTRO_TELEMETRY_DISABLED=1 \
    node node_modules/astro/bin/astro.mjs build --root apps/frontend >/dev/null

FROM ${NODE_IMAGE} AS runtime
ARG STACKGATE_VERSION=dev
# V8's code cache on disk: a restarted container compiles its JavaScript only once.
ENV STACKGATE_VERSION=${STACKGATE_VERSION} NODE_COMPILE_CACHE=/tmp/node-compile-cache
WORKDIR /app
# The V8 flags `npm start` gives each service (scripts/stackgate.ts says why): a young generation of
# 1 MiB semi-spaces for the gateway and the dashboard, 8 MiB and a 25 % old-generation growth for the
# backend; no optimizing compilers for the gateway and the dashboard.

FROM runtime AS gateway
COPY --from=build /out/gateway ./
ENV NODE_ENV=production PORT=80 BACKEND_URL=http://backend:3000 FRONTEND_URL=http://frontend:4321
# Port 80 as a non-root user: compose.yml sets net.ipv4.ip_unprivileged_port_start=0 for this
# container (Docker sets it by itself, Podman and Kubernetes do not). A file capability on the Node
# binary would do the same without the sysctl, but setting it copies the whole 110 MB binary into
# this image's layer.
USER node
EXPOSE 80
# Healthy only when the backend answers through the gateway (/health itself is liveness only).
# The start periods are generous: a pass counts at once, and a slow host (a CI runner, a Raspberry
# Pi) must not be marked unhealthy while Node is still starting.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s \
  CMD ["node", "-e", "fetch('http://127.0.0.1/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=1", "--max-opt=1", "main.mjs"]

FROM runtime AS backend
COPY --from=trivy /usr/local/bin/trivy /usr/local/bin/trivy
COPY --from=build /out/backend ./
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
ENV NODE_ENV=production BACKEND_HOST=0.0.0.0 BACKEND_PORT=3000 DATA_DIR=/data \
    TRIVY_SERVER_URL=http://trivy:4954 MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
USER node
VOLUME ["/data"]
EXPOSE 3000
# Better Auth's /api/auth/ok is no longer served (only the auth routes Stackgate uses are): the
# session lookup answers 200 without a session. Not /health/ready: the backend takes whoever asks
# that for a gateway watching it, and would wait for one at every stop.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/api/auth/get-session').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=25", "main.mjs"]

FROM runtime AS frontend
COPY --from=build /out/frontend ./dist
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4321 BACKEND_URL=http://backend:3000
USER node
EXPOSE 4321
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:4321/sign-in').then(()=>process.exit(0),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=1", "--max-opt=1", "dist/server/entry.mjs"]

# The whole service in one process (apps/gateway/src/one-process.ts, built beside the backend as
# stackgate.mjs), the dashboard's server loaded from ./frontend, and Trivy's server started and kept
# by it (TRIVY_SERVER_START), its database cached in the volume (/data/trivy-cache). Without
# BETTER_AUTH_SECRET and SEED_ADMIN_PASSWORD it generates both, as `npm start` does: the secret is kept
# in /data/auth-secret, the first admin's password printed in the container's log until the first
# sign-in (so NODE_ENV is not production here; the dashboard's server is built for production
# regardless). Port 8080 needs no privilege. Last, so that a build without --target makes this image.
FROM runtime AS stackgate
COPY --from=trivy /usr/local/bin/trivy /usr/local/bin/trivy
COPY --from=build /out/backend ./
COPY --from=build /out/frontend ./frontend
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
ENV PORT=8080 DATA_DIR=/data STACKGATE_FRONTEND_ENTRY=/app/frontend/server/entry.mjs \
    TRIVY_SERVER_START=true TRIVY_SERVER_URL=http://127.0.0.1:4954 \
    MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
USER node
VOLUME ["/data"]
EXPOSE 8080
# Healthy once the API answers through the gateway (/health itself is liveness only).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=25", "stackgate.mjs"]
