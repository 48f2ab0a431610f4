// The parse stage's vocabulary: what "could not parse" looks like, and the node-level facts checks declare
// applicability on (proxy mode, dataplane, layout).

/** Why one artifact could not be parsed: `iptables-save (iptables-save -c):12: unexpected token`. */
export interface ParseProblem {
  /** Artifact id from the collection plan (`iptables-save`), or `cluster:<what>` for a cluster object. */
  artifact: string
  /** The command run or the file read, as the artifact records it. */
  source?: string
  /** 1-based line of the artifact's content, when the parser knows it. */
  line?: number
  reason: string
}

/** A parsed artifact: the value, or the problem that stopped the parser (with the parser's own error kept). */
export type Parsed<T> = {ok: true; value: T} | {ok: false; problem: ParseProblem; error: Error}

/** `artifact (source):line: reason`, the one-line form of a parse problem. */
export function formatParseProblem(p: ParseProblem): string {
  return `${p.artifact}${p.source !== undefined && p.source !== p.artifact ? ` (${p.source})` : ''}${p.line !== undefined ? `:${p.line}` : ''}: ${p.reason}`
}

/** The mode kube-proxy runs in, as far as the snapshots tell (`unknown` when they do not). */
export type ProxyModeFact = 'iptables' | 'ipvs' | 'nftables' | 'kernelspace' | 'unknown'

/**
 * Which packet-filter backend the node's Service dataplane runs on: `ebpf` when Cilium or Calico eBPF implements
 * Services, `nftables` for kube-proxy's nftables mode, else the iptables backend (`iptables --version`).
 */
export type DataplaneFact = 'iptables-legacy' | 'iptables-nft' | 'nftables' | 'ebpf' | 'unknown'

/** The node's CNI (core/layout resolves it from links, CNI config and DaemonSets). */
export type LayoutFact =
  | 'calico'
  | 'flannel'
  | 'canal'
  | 'cilium'
  | 'aws-vpc-cni'
  | 'azure-cni'
  | 'gke'
  | 'kube-router'
  | 'ovn-kubernetes'
  | 'antrea'
  | 'weave'
  | 'other'
  | 'unknown'

/** Who implements Services on the node (core/layout). */
export type ServicesOwnerFact = 'kube-proxy' | 'cilium' | 'calico-ebpf' | 'ovn-kubernetes' | 'kube-router' | 'antrea' | 'none' | 'unknown'

/**
 * When a check applies, as data. Each listed fact must hold one of the values; a fact the snapshots cannot decide
 * (`unknown`) does not skip the check: it runs and judges for itself, as it did before applicability was data.
 */
export interface Applicability {
  proxyMode?: ReadonlyArray<Exclude<ProxyModeFact, 'unknown'>>
  dataplane?: ReadonlyArray<Exclude<DataplaneFact, 'unknown'>>
  layout?: ReadonlyArray<Exclude<LayoutFact, 'unknown'>>
  /** Who implements Services: kube-proxy's rule checks declare `['kube-proxy']`. */
  servicesOwner?: ReadonlyArray<Exclude<ServicesOwnerFact, 'unknown'>>
}
