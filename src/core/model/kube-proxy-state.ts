// What kube-proxy reports about itself: the mode it runs (its /proxyMode body) and its sync health metrics.
// Plain data types; the parsers that produce them are core/parse/proxy-mode.ts and core/parse/prom-metrics.ts.

export const RUNNING_PROXY_MODES = ['iptables', 'ipvs', 'nftables', 'kernelspace', 'userspace'] as const
export type RunningProxyMode = (typeof RUNNING_PROXY_MODES)[number]

/** The modes a kube-proxy can be moved to (`fix kube-proxy-mode --to`). */
export const PROXY_MODES = ['iptables', 'nftables', 'ipvs'] as const
export type ProxyModeName = (typeof PROXY_MODES)[number]

export interface HistogramData {
  count: number
  sum: number
  /** Cumulative counts by upper bound, ascending, +Inf last. */
  buckets: Array<{le: number; count: number}>
}

export interface KubeProxySyncMetrics {
  /** Last successful sync (Unix seconds); the stalest IP family when there are several. */
  lastSyncTimestampSeconds?: number
  /** Last time a change was queued (Unix seconds); the newest IP family. */
  lastQueuedTimestampSeconds?: number
  /** Queued changes not yet synced: lastQueued − lastSync when positive (a stuck proxier grows this). */
  pendingSeconds?: number
  /** Per `ip_family` label value (`""` when the metrics have no such label, before ~1.33). */
  byIpFamily: Record<string, {lastSyncTimestampSeconds?: number; lastQueuedTimestampSeconds?: number}>
  /** iptables-restore failures (iptables and ipvs modes). */
  iptablesRestoreFailuresTotal?: number
  iptablesPartialRestoreFailuresTotal?: number
  nftablesSyncFailuresTotal?: number
  syncDuration?: HistogramData & {p50?: number; p99?: number; averageSeconds?: number}
  endpointChangesPending?: number
  serviceChangesPending?: number
}
