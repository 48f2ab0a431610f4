// Pure pieces of `fix kube-proxy` and `fix calico-node`: which pod on which node is restarted and which findings
// justify it, the permissions the run needs, when a node counts as repaired, and the before/after Report.
// No I/O here: pod-restart.ts drives these through the ports.
import {isKubeProxyPod, kubeProxyPodOn} from '../../core/checks/proxy-mode/facts.js'
import {isCalicoNodePod} from '../../core/checks/routes/calico.js'
import type {Pod} from '../../core/model/k8s.js'
import {type Area, buildReport, type Finding, type Report, type ReportMetadata, severityAtLeast} from '../../core/model/report.js'
import type {ClusterSnapshot} from '../../core/model/snapshot.js'
import type {ResolvedLayout} from '../../core/layout/resolve.js'
import type {AccessQuery} from '../../ports/cluster.js'

/** A DaemonSet-managed node agent that `fix` restarts by deleting its pod. */
export interface RestartTarget {
  /** `kube-proxy`, `calico-node`: in messages and the audit record. */
  component: string
  /** The audit action, e.g. `fix kube-proxy`. */
  action: string
  /** Namespaces the pod may live in (calico-node: kube-system for manifests, calico-system for the operator). */
  namespaces: readonly string[]
  /** Finding ids a restart can repair; any of them on a node justifies restarting its pod. */
  justifiedBy: readonly string[]
  /** Areas re-collected and re-checked to verify the repair. */
  areas: readonly Area[]
  /** Cluster-wide reads the verification's re-collection needs (besides pods in the pod's namespace). */
  verificationReads: readonly AccessQuery[]
  /** The pod of this component on `node` in the snapshot, if any. */
  podOn(cluster: ClusterSnapshot, node: string): Pod | undefined
  isPod(pod: Pod): boolean
  /** Why deleting the pod would not restart the component on a node of this layout, and what to run instead. */
  refusal?(layout: RestartLayout, pod: Pod | undefined): RestartRefusal | undefined
}

/** What the plan needs of a node's resolved layout (core/layout, the same one the checks use). */
export interface RestartLayout {
  distribution: ResolvedLayout['distribution']
  kubeProxy: Pick<ResolvedLayout['kubeProxy'], 'where' | 'detail'>
  /** `server` or `agent` for a k3s node whose process the discovery saw. */
  k3sRole?: string
}

/** A node where the restart is refused: why, and the exact command to run on the node instead. */
export interface RestartRefusal {
  reason: string
  remedy: string
}

/** RKE2 ships crictl in its data dir with a config naming its containerd socket (docs.rke2.io reference/cli_tools). */
const RKE2_CRICTL = 'CRI_CONFIG_FILE=/var/lib/rancher/rke2/agent/etc/crictl.yaml /var/lib/rancher/rke2/bin/crictl'

/**
 * kube-proxy by layout: a DaemonSet pod is restarted by deleting it (undefined: no refusal). A static pod's mirror
 * pod is only the API's view of a pod the kubelet runs from a manifest: deleting it does not stop the container
 * (the kubelet recreates the mirror), so the container is stopped on the node and the kubelet starts it again.
 * k3s embeds kube-proxy in its own process: the only restart is k3s's, which is never done for the user.
 * NOTE: `fix kube-proxy` runs nothing on the node (it restarts through the API only), so both are remedies to run.
 * Facts: k3s's install script names the unit `k3s` for a server and `k3s-agent` for an agent and writes
 * KillMode=process, so a restart leaves the pods' containers running (k3s-io/k3s install.sh). That GKE's COS nodes
 * have `crictl` on the PATH is unverified.
 */
export function kubeProxyRestartRefusal(layout: RestartLayout, pod: Pod | undefined): RestartRefusal | undefined {
  const where = layout.kubeProxy.where
  if (where === 'embedded') {
    const unit = layout.k3sRole === 'agent' ? '`systemctl restart k3s-agent`' : layout.k3sRole === 'server' ? '`systemctl restart k3s`' : '`systemctl restart k3s` on a server, `systemctl restart k3s-agent` on an agent'
    const role = layout.k3sRole === 'server' || layout.k3sRole === 'agent' ? `k3s ${layout.k3sRole}` : 'k3s'
    return {
      reason: `kube-proxy is embedded in the ${role} process on this node (${layout.kubeProxy.detail}): there is no kube-proxy pod to delete`,
      remedy:
        `restart k3s on the node: ${unit}. This restarts the whole k3s process (its kubelet, kube-proxy and flannel` +
        `${layout.k3sRole === 'agent' ? '' : ', and on a server the control plane'}); running pods keep running (the k3s unit's KillMode=process leaves their containers alone). node-doctor never restarts k3s itself`,
    }
  }
  if (where === 'static-pod') {
    const crictl = layout.distribution === 'rke2' ? RKE2_CRICTL : 'crictl'
    const stop = layout.distribution === 'rke2' ? `${RKE2_CRICTL} stop $(${RKE2_CRICTL} ps --name kube-proxy -q)` : 'crictl stop $(crictl ps --name kube-proxy -q)'
    return {
      reason: `kube-proxy runs as a static pod on this node (${layout.kubeProxy.detail}): deleting its mirror pod${pod ? ` ${pod.metadata.namespace ?? 'kube-system'}/${pod.metadata.name}` : ''} does not restart the container`,
      remedy: `stop the kube-proxy container on the node and the kubelet starts it again from its manifest: \`${stop}\`${crictl === 'crictl' ? '' : ` (RKE2's own crictl and its config)`}`,
    }
  }
  return undefined
}

const COMMON_READS: readonly AccessQuery[] = [
  {verb: 'list', resource: 'nodes'},
  {verb: 'list', resource: 'services'},
  {verb: 'list', resource: 'endpointslices', group: 'discovery.k8s.io'},
]

export const KUBE_PROXY_TARGET: RestartTarget = {
  component: 'kube-proxy',
  action: 'fix kube-proxy',
  namespaces: ['kube-system'],
  // Rule drift (IPT-*), and a kube-proxy that runs another mode or configuration than configured (PROXY-003/013), is not ready, or is stuck.
  // NOTE: PROXY-001/002 (unusable configured mode), PROXY-005 (leftovers) and PROXY-010 (two backends) are not
  // fixed by a restart, so they do not justify one.
  justifiedBy: ['IPT-001', 'IPT-002', 'IPT-003', 'IPT-004', 'IPT-005', 'IPT-006', 'IPT-007', 'IPT-008', 'PROXY-003', 'PROXY-006', 'PROXY-007', 'PROXY-008', 'PROXY-009', 'PROXY-013'],
  areas: ['iptables', 'proxy-mode'],
  verificationReads: [...COMMON_READS, {verb: 'get', resource: 'configmaps', namespace: 'kube-system', name: 'kube-proxy'}, {verb: 'list', resource: 'daemonsets', group: 'apps', namespace: 'kube-system'}],
  podOn: kubeProxyPodOn,
  isPod: isKubeProxyPod,
  refusal: kubeProxyRestartRefusal,
}

export const CALICO_NODE_TARGET: RestartTarget = {
  component: 'calico-node',
  action: 'fix calico-node',
  namespaces: ['kube-system', 'calico-system'],
  justifiedBy: ['RT-001', 'RT-002', 'RT-003', 'RT-004', 'RT-005', 'RT-006', 'RT-007', 'RT-008'],
  areas: ['routes'],
  verificationReads: [
    ...COMMON_READS,
    {verb: 'list', resource: 'ippools', group: 'crd.projectcalico.org'},
    {verb: 'list', resource: 'blockaffinities', group: 'crd.projectcalico.org'},
    {verb: 'list', resource: 'ipamblocks', group: 'crd.projectcalico.org'},
  ],
  podOn: (cluster, node) => {
    const pods = cluster.pods.filter((p) => p.spec?.nodeName === node && isCalicoNodePod(p) && CALICO_NODE_TARGET.namespaces.includes(p.metadata.namespace ?? ''))
    return pods.sort((a, b) => Number(Boolean(a.metadata.deletionTimestamp)) - Number(Boolean(b.metadata.deletionTimestamp)))[0]
  },
  isPod: isCalicoNodePod,
}

export interface PodRef {
  namespace: string
  name: string
  uid: string
}

/** One node's part of the plan: restart `pod` because of `findings`, or `skip` with the reason. */
export interface NodeRestartPlan {
  node: string
  pod?: PodRef
  findings: Finding[]
  /** Why nothing is done on this node; absent when the pod is restarted. */
  skip?: string
  /** Set when the node needs the restart but its layout does not allow it through the pod (skip says why too). */
  refused?: RestartRefusal
}

export interface RestartPlan {
  target: RestartTarget
  nodes: NodeRestartPlan[]
  /** Every permission the run needs, checked before anything changes. */
  permissions: AccessQuery[]
}

/** The findings on `node` that justify restarting the target's pod (warnings and errors only). */
export function justifyingFindings(target: RestartTarget, report: Pick<Report, 'findings'>, node: string): Finding[] {
  return report.findings.filter((f) => f.node === node && target.justifiedBy.includes(f.id) && severityAtLeast(f.severity, 'warning'))
}

/**
 * Plans the restarts. A node without justifying findings is skipped ("nothing to fix") unless `force`; a node
 * without the pod, or whose pod has no uid to make the delete precise, is skipped with that reason.
 */
export function planPodRestarts(
  target: RestartTarget,
  cluster: ClusterSnapshot,
  before: Report,
  nodes: readonly string[],
  options: {force?: boolean; layouts?: ReadonlyMap<string, RestartLayout>} = {},
): RestartPlan {
  const planned = nodes.map((node): NodeRestartPlan => {
    const findings = justifyingFindings(target, before, node)
    const pod = target.podOn(cluster, node)
    const lost = before.collectionErrors.find((e) => e.node === node && e.fatal)
    if (lost) return {node, findings, skip: `the node could not be collected (${lost.message})`}
    if (findings.length === 0 && !options.force) return {node, findings, skip: 'nothing to fix'}
    const layout = options.layouts?.get(node)
    const refused = layout && target.refusal ? target.refusal(layout, pod) : undefined
    if (refused) return {node, findings, skip: `refused: ${refused.reason}`, refused}
    if (!pod) return {node, findings, skip: `no ${target.component} pod on the node (in ${target.namespaces.join(' or ')})`}
    if (pod.metadata.uid === undefined) return {node, findings, skip: `the ${target.component} pod ${pod.metadata.name} has no uid`}
    return {node, findings, pod: {namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid}}
  })
  return {target, nodes: planned, permissions: restartPermissions(target, planned)}
}

/** delete/get/list pods in each namespace a pod is deleted from, plus the reads the verification repeats. */
export function restartPermissions(target: RestartTarget, nodes: readonly NodeRestartPlan[]): AccessQuery[] {
  const namespaces = [...new Set(nodes.flatMap((n) => (n.pod ? [n.pod.namespace] : [])))].sort()
  const out: AccessQuery[] = []
  for (const namespace of namespaces) {
    out.push({verb: 'delete', resource: 'pods', namespace}, {verb: 'get', resource: 'pods', namespace}, {verb: 'list', resource: 'pods', namespace})
  }
  if (namespaces.length > 0) out.push(...target.verificationReads)
  return out
}

/** `delete pods -n kube-system`, `list endpointslices.discovery.k8s.io`: as `kubectl auth can-i` takes it. */
export function describeAccess(q: AccessQuery): string {
  let s = `${q.verb} ${q.resource}${q.group ? `.${q.group}` : ''}${q.subresource ? `/${q.subresource}` : ''}`
  if (q.name) s += ` ${q.name}`
  if (q.namespace) s += ` -n ${q.namespace}`
  return s
}

/** The plan as the user reads it before confirming. */
export function formatRestartPlan(plan: RestartPlan): string {
  const lines: string[] = [`Plan: restart ${plan.target.component} (delete its pod; its DaemonSet recreates it on the same node)`]
  for (const n of plan.nodes) {
    if (n.refused) {
      lines.push(`  ${n.node}: not restarted: ${n.refused.reason}`, `    instead, ${n.refused.remedy}`)
      for (const f of n.findings) lines.push(`    because ${f.id} ${f.severity}: ${f.message}`)
      continue
    }
    if (!n.pod) {
      lines.push(`  ${n.node}: skip (${n.skip})`)
      continue
    }
    lines.push(`  ${n.node}: delete pod ${n.pod.namespace}/${n.pod.name} (uid ${n.pod.uid})`)
    if (n.findings.length === 0) lines.push('    no finding justifies it (--force)')
    for (const f of n.findings) lines.push(`    because ${f.id} ${f.severity}: ${f.message}`)
  }
  return lines.join('\n') + '\n'
}

/** Nodes in the order they are repaired, in batches of at most `maxUnavailable`. */
export function restartBatches<T>(items: readonly T[], maxUnavailable: number): T[][] {
  const size = Math.max(1, Math.floor(maxUnavailable))
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** A pod the DaemonSet created in place of `old` on `node`, Ready; undefined while there is none. */
export function readyReplacement(target: RestartTarget, pods: readonly Pod[], node: string, oldUid: string): Pod | undefined {
  return pods.find((p) => target.isPod(p) && p.spec?.nodeName === node && p.metadata.uid !== oldUid && !p.metadata.deletionTimestamp && isPodReady(p))
}

export function isPodReady(p: Pod): boolean {
  return p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
}

/** Whether a node is repaired: none of the findings that justified the restart (by id) remain, nor any new ones. */
export function converged(target: RestartTarget, after: Pick<Report, 'findings' | 'collectionErrors'>, node: string): boolean {
  return justifyingFindings(target, after, node).length === 0 && !after.collectionErrors.some((e) => e.node === node && e.fatal)
}

export const BEFORE_SUFFIX = ' (before)'
/** Marks a Report whose nodes are states of the same nodes (renderers must not fold them as if they were several). */
export const STATES_ANNOTATION = 'node-doctor/states'
/** `(now)` sorts after `(before)`, so every renderer lists a node's old state first. */
export const AFTER_SUFFIX = ' (now)'

/**
 * One Report holding both states side by side: every restarted node appears as `NODE (before)` and `NODE (now)`, so the
 * existing renderers show the two one under the other. Nodes that were not touched appear once, as they were.
 */
export function beforeAfterReport(before: Report, after: ReadonlyMap<string, Report>, metadata: ReportMetadata): Report {
  const rename = (name: string | undefined, suffix: string) => (name !== undefined && after.has(name) ? name + suffix : name)
  const nodes: Array<{name: string; durationMs?: number}> = []
  const findings: Finding[] = []
  const results: Report['results'] = []
  const collectionErrors: Report['collectionErrors'] = []
  const take = (r: Report, only: (node: string | undefined) => boolean, suffix: string) => {
    for (const n of r.nodes) if (only(n.name)) nodes.push({name: rename(n.name, suffix)!})
    for (const f of r.findings) if (only(f.node)) findings.push({...f, node: rename(f.node, suffix)!})
    for (const x of r.results) if (only(x.node)) results.push({...x, node: rename(x.node, suffix)!})
    for (const e of r.collectionErrors) {
      if (!only(e.node)) continue
      const renamed = rename(e.node, suffix)
      collectionErrors.push(renamed === undefined ? {...e} : {...e, node: renamed})
    }
  }
  take(before, () => true, BEFORE_SUFFIX)
  for (const [node, r] of after) take(r, (n) => n === node, AFTER_SUFFIX)
  const annotated: ReportMetadata = {...metadata, annotations: {...metadata.annotations, [STATES_ANNOTATION]: 'before-after'}}
  const both = buildReport({metadata: annotated, nodes, findings, results, collectionErrors})
  // The summary is the cluster as it is now, each node once: the `(before)` states are history, kept in nodes/findings.
  const isBefore = (n: string | undefined) => n !== undefined && n.endsWith(BEFORE_SUFFIX)
  const now = buildReport({
    metadata: annotated,
    nodes: nodes.filter((n) => !isBefore(n.name)),
    findings: findings.filter((f) => !isBefore(f.node)),
    results: results.filter((x) => !isBefore(x.node)),
    collectionErrors: collectionErrors.filter((e) => !isBefore(e.node)),
  })
  return {...both, summary: now.summary}
}
