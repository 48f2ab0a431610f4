// The dashboard's Service view, for one node and one Service port: the rule diff (the node's iptables against the
// rules kube-proxy should have programmed) and the packet trace to the Service's cluster IP through both. Pure, over
// the snapshots, with the same proxier input and diff the IPT checks use (src/core/checks/iptables/live.ts) and the
// same trace as `trace` (src/app/trace.ts).
import {liveIptablesDiff, liveProxierInput} from '../../core/checks/iptables/live.js'
import type {IptablesDifference} from '../../core/diff/iptables.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../core/model/snapshot.js'
import type {IptablesDump} from '../../core/parse/iptables-save.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import {buildServicePorts} from '../../core/proxier/service-ports.js'
import type {TracePacket, TraceRules} from '../../core/trace/iptables-trace.js'
import {traceSetup} from '../../core/trace/setup.js'
import type {TraceView} from '../../render/trace.js'
import {expectedRules, traceSourceContext, traceThrough} from '../trace.js'

/** A Service port of the node's expected rules, for the node view's Service list. */
export interface ServiceRef {
  /** kube-proxy's service-port name, `ns/name[:port]`: the `group` of the rule-diff findings. */
  name: string
  protocol: string
  clusterIP: string
  port: number
}

/** One line of a rule diff: `-` expected but absent, `+` present but not expected, `~` order, `!` broken jump. */
export interface DiffLine {
  sign: '-' | '+' | '~' | '!'
  text: string
}

export type Unavailable = {reason: string}

export interface ServiceDetail {
  service: ServiceRef
  diff: DiffLine[] | Unavailable
  trace: TraceView | Unavailable
}

interface Proxier {
  render: RenderInput
  dump: IptablesDump
  /** kube-proxy's expected rules, read from the generated ruleset's model (what the tracer walks). */
  expected: TraceRules
}

const memo = new WeakMap<ClusterSnapshot, WeakMap<NodeSnapshot, Proxier | Unavailable>>()

/** The node's proxier input and both rule sets, once per (cluster, node) snapshot pair. */
function proxierFor(cluster: ClusterSnapshot, node: NodeSnapshot): Proxier | Unavailable {
  let perNode = memo.get(cluster)
  if (!perNode) memo.set(cluster, (perNode = new WeakMap()))
  let p = perNode.get(node)
  if (!p) {
    const input = liveProxierInput(cluster, node)
    p = input.ok
      ? {render: input.render, dump: input.dump, expected: expectedRules(input.render)}
      : {reason: input.reason}
    perNode.set(node, p)
  }
  return p
}

/** The Service ports kube-proxy programs on this node, by name; a reason when the iptables proxier does not apply. */
export function nodeServices(cluster: ClusterSnapshot, node: NodeSnapshot): ServiceRef[] | Unavailable {
  const p = proxierFor(cluster, node)
  if ('reason' in p) return p
  const o = p.render.input.options
  return buildServicePorts(p.render.input.services, {family: o.family, version: o.version, featureGates: o.featureGates})
    .map((sp) => ({name: sp.name, protocol: sp.protocol, clusterIP: sp.clusterIP, port: sp.port}))
    .sort((a, b) => a.name.localeCompare(b.name) || a.protocol.localeCompare(b.protocol))
}

/** The differences as diff lines, `table -A CHAIN rule`. */
export function diffLines(differences: readonly IptablesDifference[]): DiffLine[] {
  const rule = (table: string, chain: string, body: string): string => `${table} -A ${chain} ${body}`
  return differences.flatMap((d): DiffLine[] => {
    switch (d.kind) {
      case 'missing-chain':
        return [{sign: '-', text: `${d.table} :${d.chain} (chain missing)`}, ...d.expectedRules.map((r): DiffLine => ({sign: '-', text: rule(d.table, d.chain, r)}))]
      case 'stale-chain':
        return [{sign: '+', text: `${d.table} :${d.chain} (stale chain)`}, ...d.actualRules.map((r): DiffLine => ({sign: '+', text: rule(d.table, d.chain, r)}))]
      case 'missing-rule':
      case 'missing-builtin-jump':
        return [{sign: '-', text: rule(d.table, d.chain, d.rule)}]
      case 'extra-rule':
        return [{sign: '+', text: rule(d.table, d.chain, d.rule)}]
      case 'wrong-probability':
        return [
          {sign: '-', text: rule(d.table, d.chain, d.expected)},
          {sign: '+', text: rule(d.table, d.chain, d.actual)},
        ]
      case 'misordered':
        return [{sign: '~', text: `${d.table} ${d.chain}: ${d.detail}`}]
      case 'undefined-jump':
        return [{sign: '!', text: `${rule(d.table, d.chain, d.rule)}  (${d.target} does not exist)`}]
    }
  })
}

/**
 * The rule diff and the trace for one Service port on one node. The diff holds the differences grouped under the
 * Service port plus the missing jumps from built-in chains (those break every Service). The trace follows a new
 * connection from a pod on the node to the cluster IP, through the node's rules and through the expected ones.
 */
export function serviceDetail(cluster: ClusterSnapshot, node: NodeSnapshot, service: ServiceRef): ServiceDetail {
  const diff = liveIptablesDiff({cluster, node})
  const p = proxierFor(cluster, node)
  return {
    service,
    diff: diff.ok ? diffLines(diff.outcome.differences.filter((d) => d.kind === 'missing-builtin-jump' || d.group === service.name)) : {reason: diff.reason},
    trace: 'reason' in p ? p : traceService(p, cluster, node, service),
  }
}

/** From a running pod on the node (its real address and veth, as `trace` picks one), else from the node itself. */
function traceService(p: Proxier, cluster: ClusterSnapshot, node: NodeSnapshot, service: ServiceRef): TraceView | Unavailable {
  const nodeName = node.node
  const target = {protocol: service.protocol.toLowerCase() as TracePacket['protocol'], dst: service.clusterIP, dport: service.port}
  const setup = traceSetup(p.render, undefined, target, undefined, traceSourceContext(cluster, node))
  if ('error' in setup) return {reason: setup.error}
  return {...traceThrough(p.render, p.dump, p.expected, setup, `${nodeName}:iptables-save`), node: nodeName}
}
