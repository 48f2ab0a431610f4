// The kube-proxy version the expected rules are rendered for, said as findings where it is not simply known:
// newer than the newest layout node-doctor reproduces (rendered with that layout), or not found at all (assumed).
// Both are info: nothing is wrong on the node, but every rule difference on it is judged against that layout.
import type {NodeFacts} from '../../facts/node-facts.js'
import {formatFullKubeProxyVersion} from '../../proxier/config.js'
import type {VersionResolution} from '../../proxier/kube-proxy-version.js'
import {newerVersionNote, renderLayoutFor} from '../../proxier/render-input.js'
import type {Finding} from '../../model/report.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf, toFindings} from '../types.js'

const VERSION_LOOKS_AT =
  "The kube-proxy version, in this order: the node's kube-proxy pod (containerStatuses image, else spec image), " +
  '`kubernetes_build_info{git_version}` from kube-proxy\'s 127.0.0.1:10249/metrics, a static pod manifest on the node ' +
  '(/etc/kubernetes/manifests/kube-proxy.manifest or kube-proxy.yaml, RKE2\'s /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml), ' +
  '`k3s --version` / `rke2 --version`, the kube-proxy DaemonSet\'s image, the Node\'s deprecated status.nodeInfo.kubeProxyVersion.'

export const PROXY_VERSION_NEWER: CheckSpec = {
  id: 'PROXY-011',
  area: 'proxy-mode',
  severity: 'info',
  title: 'kube-proxy is newer than the newest layout node-doctor knows: its rules are rendered with that layout',
  looksAt: VERSION_LOOKS_AT,
  why:
    'node-doctor reproduces the rules of each kube-proxy release it knows exactly. For a newer release (a pre-release, ' +
    'or a release newer than this node-doctor) it renders the newest layout it knows instead of refusing: kube-proxy ' +
    'changes its rules rarely between releases, but a change the newer release made shows up as rule differences ' +
    '(IPT/IPVS/NFT findings) that are not faults on the node. The assumptions line under the node says which layout was used.',
  remedy:
    'Nothing to fix on the node. Read rule differences on it with the layout in mind, and upgrade node-doctor to one ' +
    'that knows this kube-proxy release. `proxy render --kube-proxy-version vX.Y` renders another layout to compare.',
  requires: [],
}

export const PROXY_VERSION_ASSUMED: CheckSpec = {
  id: 'PROXY-012',
  area: 'proxy-mode',
  severity: 'info',
  title: "kube-proxy's version could not be read: the expected rules assume a version",
  looksAt: VERSION_LOOKS_AT,
  why:
    'Rule layouts differ between kube-proxy releases, so the expected rules depend on the version. When no pod, metric, ' +
    'manifest, binary or DaemonSet names it, node-doctor assumes the newest layout it knows; the Node\'s ' +
    'status.nodeInfo.kubeProxyVersion is a weak hint only: the kubelet no longer sets it (KEP-4004) and it held the ' +
    "kubelet's version, not kube-proxy's. Rule differences on the node may come from the wrong layout.",
  remedy:
    "Let node-doctor read the version: allow listing pods in kube-system (the kube-proxy pod's image), or collect the " +
    "node's kube-proxy metrics (curl 127.0.0.1:10249/metrics on the node, needs the node transport), or pass " +
    '--kube-proxy-version to `proxy render|diff` and `trace`.',
  requires: [],
}

function evidence(r: VersionResolution): string[] {
  return [...r.claims.map((c) => `${c.from}: ${c.raw}`), ...r.notes]
}

/** Whether anything says kube-proxy is on the node at all (without it there is no version to miss). */
function kubeProxyPresent(facts: NodeFacts): boolean {
  const p = facts.proxy
  return p.pod !== undefined || p.running !== undefined || facts.kubeProxyConfig.daemonSet !== undefined || facts.kubeProxyConfig.resolution.claims.length > 0
}

export function checkVersionNewer(ctx: CheckContext): CheckOutcome {
  const r = factsOf(ctx).kubeProxyConfig.resolution
  if (r.kind === 'default') return {status: 'skipped', reason: "kube-proxy's version is unknown (PROXY-012)"}
  const layout = renderLayoutFor(r.version)
  if (!layout?.clamped) return {status: 'passed'}
  const draft: FindingDraft = {
    message: `${newerVersionNote(r.version, layout.layout)} (version from ${r.from})`,
    subject: {kind: 'process', name: 'kube-proxy'},
    evidence: evidence(r),
  }
  return {status: 'failed', findings: [draft]}
}

export function checkVersionAssumed(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  if (!kubeProxyPresent(facts)) return {status: 'skipped', reason: 'no kube-proxy pod, DaemonSet or running kube-proxy found for the node'}
  const r = facts.kubeProxyConfig.resolution
  if (r.kind === 'default') {
    return {
      status: 'failed',
      findings: [{message: `no source named kube-proxy's version; its expected rules assume ${formatFullKubeProxyVersion(r.version)} (the newest layout known)`, subject: {kind: 'process', name: 'kube-proxy'}, evidence: evidence(r)}],
    }
  }
  if (r.kind === 'node') {
    return {
      status: 'failed',
      findings: [
        {
          message: `kube-proxy's version ${formatFullKubeProxyVersion(r.version)} comes only from the Node's deprecated status.nodeInfo.kubeProxyVersion (the kubelet's version, where set); its expected rules use it as a hint`,
          subject: {kind: 'process', name: 'kube-proxy'},
          evidence: evidence(r),
        },
      ],
    }
  }
  return {status: 'passed'}
}

/** PROXY-011/012 as findings for a render input's version (the `proxy diff` Reports, which run no checks). */
export function versionFindings(r: VersionResolution, node: string): Finding[] {
  const out: Finding[] = []
  const layout = renderLayoutFor(r.version)
  if (layout?.clamped && r.kind !== 'default') {
    out.push(...toFindings(PROXY_VERSION_NEWER, node, [{message: `${newerVersionNote(r.version, layout.layout)} (version from ${r.from})`, subject: {kind: 'process', name: 'kube-proxy'}, evidence: evidence(r)}]))
  }
  if (r.kind === 'default' || r.kind === 'node') {
    const message =
      r.kind === 'default'
        ? `no source named kube-proxy's version; the expected rules assume ${formatFullKubeProxyVersion(r.version)} (the newest layout known)`
        : `kube-proxy's version ${formatFullKubeProxyVersion(r.version)} comes only from the Node's deprecated status.nodeInfo.kubeProxyVersion; used as a hint`
    out.push(...toFindings(PROXY_VERSION_ASSUMED, node, [{message, subject: {kind: 'process', name: 'kube-proxy'}, evidence: evidence(r)}]))
  }
  return out
}
