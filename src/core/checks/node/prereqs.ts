// NODE-001..003: forwarding prerequisites of the node, from its sysctls, links, loaded modules and filter FORWARD chain.
// Each rule says "cannot tell" (skipped, with the reason) when an input it needs is absent: no false alarms.
import {factKey} from '../../facts/node-facts.js'
import type {IptablesDump, IptablesTable} from '../../iptables/save.js'
import {nodePortAddressesFor} from '../../proxier/iptables/generate.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import {hasKernelModule} from '../../parse/kernel-modules.js'
import type {LinkTable, NetInterface} from '../../parse/links.js'
import {parseSysctl, type Sysctls, sysctlValue} from '../../parse/sysctl.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {liveProxierInput} from '../iptables/live.js'

export interface NodeFamilies {
  ipv4: boolean
  ipv6: boolean
  /** Where the answer came from, for skip reasons and messages. */
  source: string
}

/**
 * The address families the node carries, from its Node object's InternalIP/ExternalIP addresses and podCIDRs. A Node
 * that says nothing (or is not in the snapshot) is taken as IPv4 only: the common case, and the one that needs ip_forward.
 */
export function nodeFamilies(cluster: ClusterSnapshot, node: string): NodeFamilies {
  const n = cluster.nodes.find((x) => x.metadata.name === node)
  const values = [
    ...(n?.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => a.address),
    ...(n?.spec?.podCIDRs ?? (n?.spec?.podCIDR ? [n.spec.podCIDR] : [])),
  ]
  if (values.length === 0) return {ipv4: true, ipv6: false, source: n ? 'the Node has no addresses or podCIDRs: IPv4 assumed' : 'the Node object was not read: IPv4 assumed'}
  const ipv6 = values.some((v) => v.includes(':'))
  const ipv4 = values.some((v) => !v.includes(':'))
  return {ipv4, ipv6, source: `from the Node's addresses and podCIDRs (${values.join(', ')})`}
}

const SYSCTLS = factKey<Sysctls>('node prerequisites: parsed sysctls')

type SysctlsRead = {ok: true; value: Sysctls} | {ok: false; reason: string}

function readSysctls(ctx: CheckContext): SysctlsRead {
  const facts = factsOf(ctx)
  const text = facts.text('sysctls')
  if (text === undefined) return {ok: false, reason: 'missing input: sysctls'}
  return {ok: true, value: facts.derive(SYSCTLS, () => parseSysctl(text, {source: 'sysctls'}))}
}

const sysctlSubject = (key: string) => ({kind: 'sysctl', name: key})

// ---- NODE-001 ----

export function checkIpForward(ctx: CheckContext): CheckOutcome {
  const s = readSysctls(ctx)
  if (!s.ok) return {status: 'skipped', reason: s.reason}
  const fam = nodeFamilies(ctx.cluster, ctx.node.node)
  const wanted: Array<{key: string; family: string}> = []
  if (fam.ipv4) wanted.push({key: 'net.ipv4.ip_forward', family: 'IPv4'})
  if (fam.ipv6) wanted.push({key: 'net.ipv6.conf.all.forwarding', family: 'IPv6'})
  const findings: FindingDraft[] = []
  const unknown: string[] = []
  for (const w of wanted) {
    const v = sysctlValue(s.value, w.key)
    if (v === undefined) unknown.push(w.key)
    else if (v === '0') {
      const dual = fam.ipv4 && fam.ipv6 ? ' (a dual-stack node)' : ''
      findings.push({
        message: `${w.key} = 0${dual}: the node does not forward ${w.family} packets, so pods cannot reach Services or pods on other nodes. Components set it at start: something reset it`,
        subject: sysctlSubject(w.key),
        evidence: [`${w.key} = ${v}`, `families ${fam.source}`],
      })
    }
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (unknown.length > 0) return {status: 'skipped', reason: `cannot tell: the sysctls output has no ${unknown.join(', ')}`}
  return {status: 'passed'}
}

// ---- NODE-002 ----

/** Bridges with at least one veth port (a bridge CNI: cni0, cbr0, docker0, ...), with their ports. */
export function podBridges(links: LinkTable): Array<{bridge: NetInterface; ports: NetInterface[]}> {
  return links.interfaces
    .filter((i) => i.kind === 'bridge')
    .map((bridge) => ({bridge, ports: links.interfaces.filter((p) => p.master === bridge.name && p.kind === 'veth')}))
    .filter((b) => b.ports.length > 0)
}

export function checkBridgeNetfilter(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const links = facts.links('ip-link')
  if (links === undefined) return {status: 'skipped', reason: 'missing input: ip-link'}
  if (!links.ok) return {status: 'skipped', reason: `the link listing could not be parsed: ${links.error.message}`}
  const bridges = podBridges(links.value)
  if (bridges.length === 0) return {status: 'skipped', reason: 'not applicable: no bridge with veth ports on the node (a routed CNI such as Calico or Cilium does not need br_netfilter)'}
  const s = readSysctls(ctx)
  if (!s.ok) return {status: 'skipped', reason: s.reason}
  const fam = nodeFamilies(ctx.cluster, ctx.node.node)
  const bridgeEvidence = bridges.map((b) => `bridge ${b.bridge.name} with veth ports ${b.ports.map((p) => p.name).slice(0, 5).join(', ')}${b.ports.length > 5 ? ', ...' : ''}`)
  const keys = ['net.bridge.bridge-nf-call-iptables', ...(fam.ipv6 ? ['net.bridge.bridge-nf-call-ip6tables'] : [])]
  const findings: FindingDraft[] = []
  const absent: string[] = []
  for (const key of keys) {
    const v = sysctlValue(s.value, key)
    if (v === undefined) absent.push(key)
    else if (v === '0') {
      findings.push({
        message: `${key} = 0 on a node whose pods sit on a bridge (${bridges.map((b) => b.bridge.name).join(', ')}): bridged pod traffic bypasses ${key.endsWith('ip6tables') ? 'ip6tables' : 'iptables'} and kube-proxy's Service rules`,
        subject: sysctlSubject(key),
        evidence: [`${key} = ${v}`, ...bridgeEvidence],
      })
    }
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (absent.length > 0) {
    // The net.bridge keys exist only while br_netfilter is loaded (or built in, when they exist too): their absence
    // plus a module list without it says "not loaded".
    const modules = facts.kernelModules()
    if (modules === undefined) return {status: 'skipped', reason: `cannot tell: the sysctls output has no ${absent.join(', ')} and the loaded modules were not collected`}
    if (!modules.ok) return {status: 'skipped', reason: `cannot tell: the sysctls output has no ${absent.join(', ')} and the module list could not be parsed`}
    if (hasKernelModule(modules.value, 'br_netfilter')) return {status: 'skipped', reason: `cannot tell: br_netfilter is loaded but the sysctls output has no ${absent.join(', ')}`}
    return {
      status: 'failed',
      findings: [
        {
          message: `br_netfilter is not loaded on a node whose pods sit on a bridge (${bridges.map((b) => b.bridge.name).join(', ')}): bridged pod traffic bypasses iptables and kube-proxy's Service rules`,
          subject: {kind: 'module', name: 'br_netfilter'},
          evidence: ['br_netfilter is not in /proc/modules', `the sysctls output has no ${absent.join(', ')}`, ...bridgeEvidence],
        },
      ],
    }
  }
  return {status: 'passed'}
}

// ---- NODE-003 ----

/** Chains that accept pod traffic when FORWARD jumps to them (kube-proxy's and the CNIs' own). */
export const POD_FORWARD_CHAINS: readonly string[] = ['KUBE-FORWARD', 'cali-FORWARD', 'CILIUM_FORWARD', 'FLANNEL-FWD', 'KUBE-ROUTER-FORWARD']

/**
 * Whether any rule reachable from FORWARD accepts: an ACCEPT target, or a jump/goto to a known pod-traffic chain.
 * Returns the rule that proves it, or undefined. Unparseable rules are skipped (reported through `unreadable`).
 */
export function forwardAcceptPath(filter: IptablesTable): {via?: string; unreadable: number} {
  const seen = new Set<string>()
  let unreadable = 0
  const walk = (name: string): string | undefined => {
    if (seen.has(name)) return undefined
    seen.add(name)
    const chain = filter.chain(name)
    if (!chain) return undefined
    for (const r of chain.rules) {
      let target: string | undefined
      try {
        target = r.parsed.target?.name
      } catch {
        unreadable++
        continue
      }
      if (target === undefined) continue
      if (target === 'ACCEPT' || POD_FORWARD_CHAINS.includes(target)) return r.text
      if (filter.chain(target) && !filter.chain(target)!.builtin) {
        const via = walk(target)
        if (via !== undefined) return via
      }
    }
    return undefined
  }
  const via = walk('FORWARD')
  return via === undefined ? {unreadable} : {via, unreadable}
}

export function checkForwardDrop(ctx: CheckContext): CheckOutcome {
  const parsed = factsOf(ctx).iptablesSave()
  if (parsed === undefined) return {status: 'skipped', reason: 'missing input: iptables-save'}
  if (!parsed.ok) return {status: 'skipped', reason: `iptables-save could not be parsed: ${parsed.error.message}`}
  const dump: IptablesDump = parsed.value
  const filter = dump.tables.find((t) => t.name === 'filter')
  const forward = filter?.chain('FORWARD')
  // No filter table (nothing loaded it) or no FORWARD chain: the hook has no iptables chain, so nothing drops here.
  if (!filter || !forward) return {status: 'passed'}
  if (forward.policy !== 'DROP') return {status: 'passed'}
  const path = forwardAcceptPath(filter)
  if (path.via !== undefined) return {status: 'passed'}
  if (path.unreadable > 0) return {status: 'skipped', reason: `cannot tell: ${path.unreadable} rule(s) reachable from FORWARD could not be parsed`}
  return {
    status: 'failed',
    findings: [
      {
        message:
          forward.ruleCount === 0
            ? 'The filter FORWARD chain has policy DROP and no rules: the node drops every packet it forwards, pod and Service traffic included'
            : 'The filter FORWARD chain has policy DROP and no rule reachable from it accepts (no ACCEPT, no jump to KUBE-FORWARD or a CNI chain): the node drops pod and Service traffic it forwards',
        subject: {kind: 'chain', name: 'FORWARD', in: 'filter'},
        evidence: [`:FORWARD DROP`, ...forward.rules.slice(0, 10).map((r) => r.text)],
      },
    ],
  }
}

// ---- NODE-004 ----

export function checkRouteLocalnet(ctx: CheckContext): CheckOutcome {
  const s = readSysctls(ctx)
  if (!s.ok) return {status: 'skipped', reason: s.reason}
  const nodePorts = ctx.cluster.services.filter((svc) => (svc.spec.type === 'NodePort' || svc.spec.type === 'LoadBalancer') && (svc.spec.ports ?? []).some((p) => !!p.nodePort))
  if (nodePorts.length === 0) return {status: 'skipped', reason: 'not applicable: no Service has a nodePort'}
  const input = liveProxierInput(ctx.cluster, ctx.node, factsOf(ctx))
  if (!input.ok) return {status: 'skipped', reason: input.reason}
  const o = input.render.input.options
  if (!o.localhostNodePorts) return {status: 'skipped', reason: 'not applicable: iptables.localhostNodePorts is false'}
  if (!nodePortAddressesFor('ipv4', o.nodePortAddresses).containsIPv4Loopback) {
    return {status: 'skipped', reason: `not applicable: nodePortAddresses (${o.nodePortAddresses.join(', ')}) do not include 127.0.0.1`}
  }
  const key = 'net.ipv4.conf.all.route_localnet'
  const v = sysctlValue(s.value, key)
  if (v === undefined) return {status: 'skipped', reason: `cannot tell: the sysctls output has no ${key}`}
  if (v !== '0') return {status: 'passed'}
  return {
    status: 'failed',
    findings: [
      {
        message: `${key} = 0 although kube-proxy (iptables mode, localhostNodePorts) sets it to 1 at start: something reset it, and NodePorts on 127.0.0.1 time out from this node`,
        subject: sysctlSubject(key),
        evidence: [`${key} = ${v}`, `localhostNodePorts: true; nodePortAddresses: ${o.nodePortAddresses.length === 0 ? 'all (default)' : o.nodePortAddresses.join(', ')}`, `${nodePorts.length} Service(s) with a nodePort`],
      },
    ],
  }
}
