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
USER node
CMD ["node", "--import", "tsx", "examples/worker.ts"]
