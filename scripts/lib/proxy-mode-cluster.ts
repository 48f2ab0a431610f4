// The cluster the IPVS and nftables check fixtures start from: the iptables checks' clean bundle with kube-proxy
// switched to another mode and pinned to one version (used by make-ipvs-check-fixtures.ts and make-nft-check-fixtures.ts).
import type {ClusterSnapshot} from '../../src/core/model/snapshot.js'

/** A copy of `base` whose kube-proxy ConfigMap says `mode` and whose kube-proxy DaemonSet and pods run `image`. */
export function clusterInMode(base: ClusterSnapshot, mode: 'ipvs' | 'nftables', image: string): ClusterSnapshot {
  const cluster: ClusterSnapshot = structuredClone(base)
  for (const cm of cluster.configMaps) if (cm.data?.['config.conf']) cm.data['config.conf'] = cm.data['config.conf'].replace('mode: iptables', `mode: ${mode}`)
  for (const ds of cluster.daemonSets) for (const c of ds.spec?.template?.spec?.containers ?? []) c.image = image
  // The node's own kube-proxy pod decides the version rendered (the DaemonSet only when no pod says): keep them equal.
  for (const p of cluster.pods) {
    for (const c of [...(p.spec?.containers ?? []), ...(p.status?.containerStatuses ?? [])]) if (c.name === 'kube-proxy') c.image = image
  }
  return cluster
}
