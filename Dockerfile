# The in-cluster agent image: the same package as the kubectl plugin (`check --in-cluster` runs
# `kubectl-node_doctor agent collect` in it on every node), plus the node tools the collection plan calls.
# Build:  docker build -t ghcr.io/node-doctor/kubectl-node-doctor:$(node -p "require('./package.json').version") .
# The CLI's default --image is that name with the plugin's version as the tag, so plugin and agent always match.

# --- build: compile TypeScript and generate the oclif manifest (needs the dev dependencies) ---
FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY bin ./bin
RUN npm run build

# --- runtime ---
FROM node:20-slim
# iptables brings iptables-save, ip6tables-save, iptables-legacy-save and iptables-nft-save; nftables: nft;
# iproute2: ip; ipset; ipvsadm; conntrack; curl for kube-proxy's metrics and healthz; procps: pgrep, sysctl, and pkill
# (the collection script's watchdog ends a timed-out command's children with it);
# util-linux; nfacct for the KUBE-* accounting objects. No systemd: the agent does not read the kubelet unit.
RUN apt-get update \
 && apt-get install -y --no-install-recommends iptables nftables iproute2 ipset ipvsadm conntrack curl procps util-linux nfacct ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY --from=build /src/oclif.manifest.json ./
COPY bin ./bin
COPY schemas ./schemas
LABEL org.opencontainers.image.source="https://github.com/node-doctor/kubectl-node-doctor" \
      org.opencontainers.image.description="node-doctor in-cluster agent: kubectl-node_doctor agent collect"
# Root, because the kubelet's files are root-owned; the DaemonSet drops every capability but NET_ADMIN/NET_RAW
# and mounts the root filesystem read-only (src/core/agent/manifests.ts).
ENTRYPOINT ["/app/bin/kubectl-node_doctor"]
CMD ["agent", "collect", "--out", "-"]
