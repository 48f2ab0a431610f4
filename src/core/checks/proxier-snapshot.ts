// What the iptables, IPVS and nftables diffs share when they run over snapshots: the cluster's objects in the
// proxier's shape, the kube-proxy configuration from the ConfigMap, the mode kube-proxy actually runs, one diff per
// node for all of an area's checks, and a check's outcome from it.
import {parse as parseYaml} from 'yaml'
import type {Finding} from '../model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'
import {artifactText} from '../model/snapshot.js'
import type {LoadedObjects} from '../proxier/objects.js'
import {kubeProxyConfigText} from '../proxier/render-input.js'
import type {CheckContext, CheckOutcome} from './types.js'

export function objectsOf(cluster: ClusterSnapshot): LoadedObjects {
  const {services, endpointSlices, nodes, configMaps, serviceCIDRs, daemonSets} = cluster
  return {services, endpointSlices, nodes, configMaps, serviceCIDRs, daemonSets, other: []}
}

/**
 * The KubeProxyConfiguration mapping from the kube-proxy ConfigMap (undefined when there is none, or it is not a
 * mapping); a reason instead when it is not YAML at all (the proxy-mode checks report that one).
 */
export function kubeProxyConfigOf(objects: LoadedObjects): {ok: true; config?: Record<string, unknown>} | {ok: false; reason: string} {
  const text = kubeProxyConfigText(objects)
  if (text === undefined) return {ok: true}
  let parsed: unknown
  try {
    parsed = parseYaml(text)
  } catch {
    return {ok: false, reason: 'the kube-system/kube-proxy ConfigMap does not hold valid YAML (see the proxy-mode checks)'}
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? {ok: true, config: parsed as Record<string, unknown>} : {ok: true}
}

/** The node's running mode (its /proxyMode answer), else the configured one, else kube-proxy's default (iptables). */
export function effectiveProxyMode(node: NodeSnapshot, config: Record<string, unknown> | undefined): string {
  const running = artifactText(node, 'proxy-mode')?.trim()
  const configured = typeof config?.mode === 'string' && config.mode !== '' ? config.mode : 'iptables'
  return running && /^(iptables|ipvs|nftables)$/.test(running) ? running : configured
}

/**
 * One diff per (cluster, node) snapshot pair, however many checks read it: the IPT, IPVS and NFT checks each take
 * their own ids from the same diff.
 */
export function memoPerNode<T>(compute: (cluster: ClusterSnapshot, node: NodeSnapshot) => T): (ctx: CheckContext) => T {
  const memo = new WeakMap<ClusterSnapshot, WeakMap<NodeSnapshot, T>>()
  return (ctx) => {
    let perNode = memo.get(ctx.cluster)
    if (!perNode) memo.set(ctx.cluster, (perNode = new WeakMap()))
    if (!perNode.has(ctx.node)) perNode.set(ctx.node, compute(ctx.cluster, ctx.node))
    return perNode.get(ctx.node)!
  }
}

/**
 * A check's outcome for one id from a shared diff: skipped with the diff's reason, passed, or failed with that id's
 * findings (their own remedy kept when `keepRemedy`, else the catalog's applies).
 */
export function outcomeForId(d: {ok: true; outcome: {findings: Finding[]}} | {ok: false; reason: string}, id: string, keepRemedy = false): CheckOutcome {
  if (!d.ok) return {status: 'skipped', reason: d.reason}
  const findings = d.outcome.findings.filter((f) => f.id === id)
  if (findings.length === 0) return {status: 'passed'}
  return {
    status: 'failed',
    findings: findings.map((f) => ({
      message: f.message,
      subject: f.subject,
      evidence: f.evidence,
      severity: f.severity,
      ...(keepRemedy ? {remedy: f.remedy} : {}),
      ...(f.group ? {group: f.group} : {}),
    })),
  }
}
