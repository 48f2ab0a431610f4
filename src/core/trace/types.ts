// The trace's public types: the packet, the node, and the result (steps, branches, outcome distribution).
export type TraceProtocol = 'tcp' | 'udp' | 'sctp'
export type TraceOrigin = 'pod' | 'host' | 'external'
export type TraceVerdict = 'ACCEPT' | 'DROP' | 'REJECT' | 'no-rule'

export interface TracePacket {
  protocol: TraceProtocol
  dst: string
  dport: number
  /** Source address; unknown when absent (then `-s` matches are decided by assumption and noted). */
  src?: string
  /** The source is a pod on this node: it arrives on a pod interface (decides `-i` matches). Default: from === 'pod'. */
  srcIsLocalPod?: boolean
  /** pod and external traffic enters at nat PREROUTING, host traffic at nat OUTPUT. */
  from: TraceOrigin
  /**
   * The interface the packet arrives on (pod and external traffic), as the node names it: `-i` patterns are matched
   * against it as the kernel does (`cali+` is a prefix). Absent: decided by the node's pod interface or assumption.
   */
  inInterface?: string
}

export interface TraceNode {
  /** The node's addresses (IP or IP/len); loopback is always local. Decides `--dst-type LOCAL` and INPUT vs FORWARD. */
  localAddresses: readonly string[]
  /**
   * Where a local pod's traffic arrives, when known (kube-proxy's BridgeInterface / InterfaceNamePrefix detector).
   * Without it, `-i` matches for local pods are assumed to hold (and noted).
   */
  podInterface?: {bridge: string} | {prefix: string}
  /** The device the node's route to an address leaves through (one device), when the routes are known: decides `-o`. */
  routeDevice?: (dst: string) => string | undefined
}

/** One rule whose target was taken. ruleIndex is 0-based (iptables -L --line-numbers shows ruleIndex + 1). */
export interface TraceStep {
  table: 'nat' | 'filter'
  chain: string
  ruleIndex: number
  /** The rule as in the dump, `-A CHAIN ...`. */
  rule: string
  /** For a `-m statistic` rule: the probability with which this branch took it. */
  probability?: number
  /** What was assumed to decide a match the packet alone cannot (interfaces, unknown source). */
  assumptions?: string[]
}

export interface TraceBranch {
  probability: number
  path: TraceStep[]
  /** The DNAT destination, `ip:port` (`[ip6]:port`). */
  dnat?: string
  masquerade: boolean
  verdict: TraceVerdict
  /** The policy of the filter chain the branch fell through (verdict no-rule). */
  policy?: string
  /** Aggregation key: DROP or REJECT, else the DNAT destination, else NO_DNAT. */
  outcome: string
}

export interface TraceResult {
  packet: TracePacket
  /** The source address used (given, or assumed for host traffic); absent when unknown. */
  src?: string
  entryChain: 'PREROUTING' | 'OUTPUT'
  branches: TraceBranch[]
  /** outcome → probability (sums to 1). */
  endpoints: Record<string, number>
  /** outcome → probability of the branches to it that are masqueraded. */
  masqueraded: Record<string, number>
  notes: string[]
}

/** Outcome of a branch that reaches its original destination unchanged. */
export const NO_DNAT = 'no-dnat'
