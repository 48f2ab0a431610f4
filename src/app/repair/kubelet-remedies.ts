// `fix kubelet --from-finding ID`: the catalog remedies that are safe to automate, computed from snapshots (pure).
// Only remedies whose right value is a fact the snapshots hold qualify: clusterDNS is the kube-dns Service's
// ClusterIP, cgroupDriver is what containerd uses. Anything that needs a judgement (security settings, eviction
// thresholds) stays a --set the operator chooses.
import {findCheck} from '../../core/checks/registry.js'
import {effectiveConfig, kubeletView, valueAt} from '../../core/checks/kubelet/view.js'
import type {CheckContext} from '../../core/checks/types.js'
import {artifactText} from '../../core/model/snapshot.js'
import {parseContainerdConfig} from '../../core/parse/containerd-config.js'
import {UsageError} from '../../errors.js'
import {kubeletEdit, type KubeletEdit} from './kubelet-edit.js'

import {AUTOMATED_KUBELET_REMEDIES} from './kubelet-remedy-ids.js'

export {AUTOMATED_KUBELET_REMEDIES}

export type RemedyResult =
  | {kind: 'edits'; edits: KubeletEdit[]; why: string[]; notes: string[]}
  /** The check passes on this node: nothing to change. */
  | {kind: 'nothing'; reason: string}

/**
 * The edits that fix finding `id` on `ctx.node`. Throws UsageError for ids that cannot be automated and for
 * checks that could not be evaluated (skipped), naming the reason.
 */
export function kubeletRemedy(id: string, ctx: CheckContext): RemedyResult {
  const wanted = id.toUpperCase()
  const list = Object.entries(AUTOMATED_KUBELET_REMEDIES).map(([k, v]) => `${k} (${v})`).join('; ')
  const check = findCheck(wanted)
  if (!check) throw new UsageError(`--from-finding ${id}: no such check`, `Remedies that can be applied automatically: ${list}.`)
  if (!(wanted in AUTOMATED_KUBELET_REMEDIES)) {
    throw new UsageError(
      `--from-finding ${wanted}: this remedy is not applied automatically (it needs a decision: see \`kubectl node-doctor explain ${wanted}\`)`,
      `Use --set FIELD=VALUE for it. Remedies that can be applied automatically: ${list}.`,
    )
  }
  const outcome = check.run(ctx)
  if (outcome.status === 'skipped') throw new UsageError(`--from-finding ${wanted}: the check could not be evaluated on ${ctx.node.node}: ${outcome.reason}`)
  if (outcome.status === 'passed') return {kind: 'nothing', reason: `${wanted} does not fire on ${ctx.node.node}: nothing to change`}
  const why = outcome.findings.map((f) => `${wanted}: ${f.message}`)
  return wanted === 'KUBELET-015' ? cgroupDriverRemedy(ctx, why) : clusterDnsRemedy(ctx, why)
}

function cgroupDriverRemedy(ctx: CheckContext, why: string[]): RemedyResult {
  // The check fired, so the containerd config parsed.
  const cd = parseContainerdConfig(artifactText(ctx.node, 'containerd-config') ?? '', {source: '/etc/containerd/config.toml'})
  return {
    kind: 'edits',
    edits: [kubeletEdit('cgroupDriver', cd.cgroupDriver.value)],
    why,
    notes: ['Changing the cgroup driver restarts every pod sandbox on the node: drain it first (kubectl drain NODE --ignore-daemonsets).'],
  }
}

function clusterDnsRemedy(ctx: CheckContext, why: string[]): RemedyResult {
  const svc = ctx.cluster.services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns')
  const ips = [...new Set([...(svc?.spec?.clusterIPs ?? []), ...(svc?.spec?.clusterIP ? [svc.spec.clusterIP] : [])])].filter((ip) => ip !== 'None' && ip !== '')
  if (ips.length === 0) throw new UsageError('--from-finding KUBELET-016: Service kube-system/kube-dns has no ClusterIP to point clusterDNS at')
  const nodeLocal = ctx.cluster.daemonSets.some((d) => /node-local-dns|nodelocaldns/.test(d.metadata.name) || d.metadata.labels?.['k8s-app'] === 'node-local-dns')
  const eff = effectiveConfig(kubeletView(ctx))
  const current = eff.ok ? valueAt(eff.value.cfg, 'clusterDNS') : undefined
  const list = Array.isArray(current) ? current.filter((x): x is string => typeof x === 'string') : []
  const kept = list.filter((ip) => ips.includes(ip) || (nodeLocal && ip.startsWith('169.254.')))
  return {kind: 'edits', edits: [kubeletEdit('clusterDNS', kept.length > 0 ? kept : ips)], why, notes: ['Pods keep the DNS server they were created with: recreate the pods on this node afterwards.']}
}
