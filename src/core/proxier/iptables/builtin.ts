// Rules kube-proxy installs outside the restore input. Mirrors pkg/proxy/iptables/proxier.go iptablesJumpChains and
// iptablesKubeletJumpChains (v1.28–v1.35): on every full sync, for each entry in list order, EnsureChain(target) then
// EnsureRule(Prepend, …), i.e. `iptables -C` and, when missing, `iptables -I CHAIN` (position 1). Also the canary
// chains its monitor creates (ipt.Monitor: KUBE-PROXY-CANARY in mangle, nat and filter).
import type {ProxierOptions} from '../config.js'

export type BuiltinTableName = 'filter' | 'nat' | 'mangle'

/** One jump from a built-in chain into a kube-proxy chain. */
export interface BuiltinJump {
  table: 'filter' | 'nat'
  /** The built-in chain (INPUT, FORWARD, OUTPUT, PREROUTING, POSTROUTING). */
  chain: string
  /** The kube-proxy chain jumped to (created empty by EnsureChain if absent). */
  target: string
  /**
   * `-I`: inserted at position 1 when `iptables -C` does not find it. Each insert goes to the top, so jumps created
   * in the same run end up in reverse list order; jumps that already existed stay where they were.
   */
  op: '-I'
  /** Rule arguments as argv tokens (match args, `-m comment --comment C` when commented, `-j TARGET`). */
  args: string[]
}

/** A chain kube-proxy ensures exists outside the restore input. */
export interface EnsuredChain {
  table: BuiltinTableName
  chain: string
}

const NEW = ['-m', 'conntrack', '--ctstate', 'NEW']

function jump(table: 'filter' | 'nat', chain: string, target: string, comment: string, extra: string[] = []): BuiltinJump {
  return {table, chain, target, op: '-I', args: [...extra, ...(comment ? ['-m', 'comment', '--comment', comment] : []), '-j', target]}
}

/**
 * The built-in chain jumps in the order kube-proxy ensures them. The list is the same for both families (IPv6 also
 * gets the KUBE-FIREWALL jumps, to a chain that then stays empty unless something else fills it).
 */
export function builtinJumps(_options?: Pick<ProxierOptions, 'family' | 'version'>): BuiltinJump[] {
  return [
    jump('filter', 'INPUT', 'KUBE-EXTERNAL-SERVICES', 'kubernetes externally-visible service portals', NEW),
    jump('filter', 'FORWARD', 'KUBE-EXTERNAL-SERVICES', 'kubernetes externally-visible service portals', NEW),
    jump('filter', 'INPUT', 'KUBE-NODEPORTS', 'kubernetes health check service ports'),
    jump('filter', 'FORWARD', 'KUBE-SERVICES', 'kubernetes service portals', NEW),
    jump('filter', 'OUTPUT', 'KUBE-SERVICES', 'kubernetes service portals', NEW),
    jump('filter', 'FORWARD', 'KUBE-FORWARD', 'kubernetes forwarding rules'),
    jump('filter', 'INPUT', 'KUBE-PROXY-FIREWALL', 'kubernetes load balancer firewall', NEW),
    jump('filter', 'OUTPUT', 'KUBE-PROXY-FIREWALL', 'kubernetes load balancer firewall', NEW),
    jump('filter', 'FORWARD', 'KUBE-PROXY-FIREWALL', 'kubernetes load balancer firewall', NEW),
    jump('nat', 'OUTPUT', 'KUBE-SERVICES', 'kubernetes service portals'),
    jump('nat', 'PREROUTING', 'KUBE-SERVICES', 'kubernetes service portals'),
    jump('nat', 'POSTROUTING', 'KUBE-POSTROUTING', 'kubernetes postrouting rules'),
    // Duplicates of kubelet's jumps (pkg/kubelet/kubelet_network_linux.go).
    jump('filter', 'INPUT', 'KUBE-FIREWALL', ''),
    jump('filter', 'OUTPUT', 'KUBE-FIREWALL', ''),
  ]
}

/** Chains that exist because of kube-proxy even when the restore input does not declare them. */
export function ensuredChains(_options?: Pick<ProxierOptions, 'family' | 'version'>): EnsuredChain[] {
  const out: EnsuredChain[] = []
  const seen = new Set<string>()
  for (const j of builtinJumps()) {
    const k = `${j.table}/${j.target}`
    if (!seen.has(k)) {
      seen.add(k)
      out.push({table: j.table, chain: j.target})
    }
  }
  for (const table of ['mangle', 'nat', 'filter'] as const) out.push({table, chain: 'KUBE-PROXY-CANARY'})
  return out
}

/** The order of the jumps in each built-in chain after kube-proxy inserted all of them into empty chains. */
export function builtinJumpsInChainOrder(jumps: readonly BuiltinJump[] = builtinJumps()): BuiltinJump[] {
  return [...jumps].reverse()
}
