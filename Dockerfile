# syntax=docker/dockerfile:1
# One Dockerfile, three images: docker build --target gateway|backend|frontend .
ARG NODE_IMAGE=node:24-bookworm-slim
ARG TRIVY_IMAGE=aquasec/trivy:0.69.3@sha256:bcc376de8d77cfe086a917230e818dc9f8528e3c852f7b1aff648949b6258d1c

FROM ${TRIVY_IMAGE} AS trivy

# Production dependencies of one workspace, nothing else.
FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/gateway/package.json apps/gateway/
COPY apps/backend/package.json apps/backend/
COPY apps/frontend/package.json apps/frontend/
COPY packages/contract/package.json packages/contract/
COPY packages/simulators/package.json packages/simulators/
ARG WORKSPACE
RUN npm ci --omit=dev --no-audit --no-fund --workspace "${WORKSPACE}"

FROM dependencies AS frontend-build
COPY packages/contract packages/contract
COPY apps/frontend apps/frontend
RUN ASTRO_TELEMETRY_DISABLED=1 node node_modules/astro/bin/astro.mjs build --root apps/frontend

FROM ${NODE_IMAGE} AS runtime
ARG STACKGATE_VERSION=dev
ENV NODE_ENV=production STACKGATE_VERSION=${STACKGATE_VERSION}
WORKDIR /app
COPY package.json ./

FROM runtime AS gateway
COPY --from=dependencies /app/node_modules node_modules
COPY apps/gateway/package.json apps/gateway/
COPY apps/gateway/src apps/gateway/src
ENV PORT=80 BACKEND_URL=http://backend:3000 FRONTEND_URL=http://frontend:4321
USER node
EXPOSE 80
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "apps/gateway/src/main.ts"]

FROM runtime AS backend
COPY --from=trivy /usr/local/bin/trivy /usr/local/bin/trivy
COPY --from=dependencies /app/node_modules node_modules
COPY packages/contract packages/contract
COPY apps/backend/package.json apps/backend/
COPY apps/backend/src apps/backend/src
RUN mkdir -p /data && chown node:node /data
ENV BACKEND_HOST=0.0.0.0 BACKEND_PORT=3000 DATA_DIR=/data TRIVY_SERVER_URL=http://trivy:4954
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/doc').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "apps/backend/src/main.ts"]

FROM runtime AS frontend
COPY --from=dependencies /app/node_modules node_modules
COPY --from=frontend-build /app/apps/frontend/dist apps/frontend/dist
COPY apps/frontend/package.json apps/frontend/
ENV HOST=0.0.0.0 PORT=4321 BACKEND_URL=http://backend:3000
USER node
EXPOSE 4321
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:4321/sign-in').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "apps/frontend/dist/server/entry.mjs"]
