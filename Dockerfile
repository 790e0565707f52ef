# syntax=docker/dockerfile:1
# Build: compile TypeScript to dist/. Runtime: production deps only, non-root, `web` or `worker` by argument.
# The runtime: Node 24 LTS, the version in .node-version (test/architecture/runtime-version.test.ts keeps them equal).
ARG NODE_VERSION=24.22.3
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
COPY bench ./bench
COPY scripts/write-build-info.mjs ./scripts/
# The commit this image is built from (the release workflow passes it): `open-swe --version`, the start-up
# lines and open_swe_build_info on /metrics say it (dist/build-info.json).
ARG OPEN_SWE_COMMIT=""
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# git for host-side mirrors and pushes; bubblewrap for the local sandbox provider (util-linux, bash and
# findutils from the base image are used too). `worker` checks at start that it can build sandboxes.
RUN apt-get update && apt-get install -y --no-install-recommends git bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# HEALTH_PORT: the worker role serves GET /health there (the web role serves it on PORT), so one
# HEALTHCHECK fits both roles.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 HEALTH_PORT=3000 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
COPY bin ./bin
COPY prompts ./prompts
# DATA_DIR is the service user's alone: Redis files, mirrors and sandboxes are 0700.
RUN install -d -o node -g node -m 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "const e=process.env,ports=[...new Set([e.HEALTH_PORT,e.PORT||3000].filter(Boolean))];Promise.any(ports.map(p=>fetch('http://127.0.0.1:'+p+'/livez').then(r=>{if(!r.ok)throw 0}))).then(()=>process.exit(0),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/open-swe.mjs"]
CMD ["web"]
