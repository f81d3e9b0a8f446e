# The example worker (examples/worker.ts) for docker-compose.yml. Your own worker image looks the same
# with your steps in place of examples/steps.ts.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY examples ./examples
ENV NODE_ENV=production
# /metrics and /healthz listen on 127.0.0.1 unless told otherwise; in a container the scraper and the
# probes come from outside it.
ENV TFLOW_METRICS_HOST=0.0.0.0
USER node
CMD ["node", "--import", "tsx", "examples/worker.ts"]
