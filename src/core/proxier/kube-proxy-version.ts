// Which kube-proxy version runs on a node, and how we know: every source that names a version, in order of trust,
// and the one the proxier renders with. Pure: the caller hands in the API objects and the node's collected
// artifacts (NodeFacts live, the objects files offline). Used by `check`, `proxy render|diff` and `trace` alike.
//
// Order (most direct first): the node's own kube-proxy pod (containerStatuses image, else spec image), the
// `kubernetes_build_info` metric kube-proxy serves on 127.0.0.1:10249/metrics, a static pod manifest on the node
// (GKE, kubeadm-style, RKE2), the k3s/RKE2 binary (k3s embeds kube-proxy), the kube-proxy DaemonSet's image, the
// Node's deprecated status.nodeInfo.kubeProxyVersion (KEP-4004), and only then an explicit assumption.
import type {DaemonSet, Node, Pod} from '../model/k8s.js'
import type {MetricFamily} from '../parse/prom-metrics.js'
import {formatFullKubeProxyVersion, type KubeProxyVersion, parseKubeProxyVersion, versionFromImage} from './config.js'

/** Where a version came from, most trusted first ('flag' is the user's explicit choice and beats everything). */
export const VERSION_SOURCE_KINDS = ['flag', 'pod', 'metrics', 'static-manifest', 'distribution', 'daemonset', 'node', 'default'] as const
export type VersionSource = (typeof VERSION_SOURCE_KINDS)[number]

/** One source's word on the version. */
export interface VersionClaim {
  kind: VersionSource
  version: KubeProxyVersion
  /** What was read: an image reference, `git_version="v1.37.2"`, `k3s version v1.33.4+k3s1`. */
  raw: string
  /** Where, as the Report says it: `pod kube-system/kube-proxy-x2x9k`, `DaemonSet kube-system/kube-proxy`. */
  from: string
}

/** The version the proxier uses for one node, with every claim that was found and what the reader should know. */
export interface VersionResolution {
  version: KubeProxyVersion
  kind: VersionSource
  from: string
  /** Every source that named a version, in order of trust (the chosen one first). */
  claims: VersionClaim[]
  /** Disagreements between sources, deprecated or assumed sources: said in the Report and in rendered output. */
  notes: string[]
}

/** What the resolution reads. Everything is optional: offline runs have no node artifacts. */
export interface VersionInputs {
  nodeName: string
  node?: Node
  pods?: readonly Pod[]
  daemonSets?: readonly DaemonSet[]
  /** kube-proxy's /metrics, parsed (`kube-proxy-metrics` artifact). */
  metrics?: readonly MetricFamily[]
  /** The `kube-proxy-manifest` artifact: a static pod manifest after a `# node-doctor-file: PATH` line. */
  staticManifest?: string
  /** The `kube-proxy-distribution` artifact: `k3s --version` / `rke2 --version` output. */
  distribution?: string
}

export const MANIFEST_MARKER = '# node-doctor-file: '

function isKubeProxyPod(p: Pod): boolean {
  return (
    p.metadata.namespace === 'kube-system' &&
    (p.metadata.labels?.['k8s-app'] === 'kube-proxy' ||
      p.metadata.labels?.['component'] === 'kube-proxy' ||
      p.metadata.name.startsWith('kube-proxy-') ||
      (p.spec?.containers ?? []).some((c) => c.name === 'kube-proxy'))
  )
}

/** The kube-proxy pod on the node: a running, not-terminating one wins over leftovers, then the newest. */
export function kubeProxyPodFor(pods: readonly Pod[], node: string): Pod | undefined {
  const mine = pods.filter((p) => p.spec?.nodeName === node && isKubeProxyPod(p))
  const rank = (p: Pod) => (p.metadata.deletionTimestamp ? 0 : 2) + (p.status?.phase === 'Running' ? 1 : 0)
  return mine.sort((a, b) => rank(b) - rank(a) || (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''))[0]
}

const isKubeProxyContainer = (c: {name: string; image?: string}): boolean => c.name === 'kube-proxy' || /(^|\/)kube-proxy[^/]*[:@]/.test(c.image ?? '')

/** The kube-proxy container's image in a pod spec or DaemonSet template (the only container when there is one). */
function kubeProxyImageOf(containers: ReadonlyArray<{name: string; image?: string}> | undefined): string | undefined {
  const list = containers ?? []
  return (list.find(isKubeProxyContainer) ?? (list.length === 1 ? list[0] : undefined))?.image
}

function podClaim(pod: Pod): VersionClaim | undefined {
  const from = `pod ${pod.metadata.namespace ?? 'kube-system'}/${pod.metadata.name}`
  // The status names the image the container runs; the spec's may have been edited since it started.
  const statuses = pod.status?.containerStatuses ?? []
  const status = (statuses.find(isKubeProxyContainer) ?? (statuses.length === 1 ? statuses[0] : undefined))?.image
  for (const image of [status, kubeProxyImageOf(pod.spec?.containers)]) {
    const v = image ? versionFromImage(image) : undefined
    if (v && image) return {kind: 'pod', version: v, raw: image, from}
  }
  return undefined
}

/** `kubernetes_build_info{git_version="v1.37.2",…} 1` (snake_case labels; very old releases used camelCase). */
export function versionFromBuildInfo(metrics: readonly MetricFamily[]): {version: KubeProxyVersion; raw: string} | undefined {
  const family = metrics.find((m) => m.name === 'kubernetes_build_info')
  for (const s of family?.samples ?? []) {
    const text = s.labels['git_version'] ?? s.labels['gitVersion']
    const v = text === undefined ? undefined : parseKubeProxyVersion(text)
    if (v && text !== undefined) return {version: v, raw: `kubernetes_build_info git_version="${text}"`}
  }
  return undefined
}

/**
 * The kube-proxy image in a static pod manifest (`kube-proxy-manifest` artifact): the path from the marker line,
 * the first `image:` naming kube-proxy, else the first image with a version tag (RKE2's kube-proxy runs from
 * `rancher/hardened-kubernetes:v1.31.6-rke2r1-build…`). NOTE: read line by line, not as YAML: only the image matters.
 */
export function versionFromStaticManifest(text: string): {version: KubeProxyVersion; raw: string; path: string} | undefined {
  const marker = text.split(/\r?\n/).find((l) => l.startsWith(MANIFEST_MARKER))
  const path = marker ? marker.slice(MANIFEST_MARKER.length).trim() : 'static pod manifest'
  const images = [...text.matchAll(/^\s*(?:-\s+)?image:\s*["']?([^\s"'#]+)["']?/gm)].map((m) => m[1]!)
  const ordered = [...images.filter((i) => /kube-proxy/.test(i)), ...images.filter((i) => !/kube-proxy/.test(i))]
  for (const image of ordered) {
    const v = versionFromImage(image)
    if (v) return {version: v, raw: image, path}
  }
  return undefined
}

/** `k3s version v1.33.4+k3s1 (abc123)` / `rke2 version v1.31.6+rke2r1 (…)`: the first such line. */
export function versionFromDistribution(text: string): {version: KubeProxyVersion; raw: string; binary: string} | undefined {
  const m = /^(k3s|rke2) version (v\S+)/m.exec(text)
  if (!m) return undefined
  const v = parseKubeProxyVersion(m[2]!)
  return v ? {version: v, raw: m[0], binary: m[1]!} : undefined
}

function daemonSetClaim(sets: readonly DaemonSet[]): VersionClaim | undefined {
  const ranked = sets
    .filter((d) => d.metadata.name === 'kube-proxy' || (d.spec?.template?.spec?.containers ?? []).some(isKubeProxyContainer))
    .sort((a, b) => Number(b.metadata.namespace === 'kube-system' && b.metadata.name === 'kube-proxy') - Number(a.metadata.namespace === 'kube-system' && a.metadata.name === 'kube-proxy'))
  for (const ds of ranked) {
    const image = kubeProxyImageOf(ds.spec?.template?.spec?.containers)
    const v = image ? versionFromImage(image) : undefined
    if (v && image) return {kind: 'daemonset', version: v, raw: image, from: `DaemonSet ${ds.metadata.namespace ?? 'kube-system'}/${ds.metadata.name}`}
  }
  return undefined
}

/** Every claim the inputs hold, most trusted first. */
export function versionClaims(inputs: VersionInputs): VersionClaim[] {
  const claims: VersionClaim[] = []
  const pod = kubeProxyPodFor(inputs.pods ?? [], inputs.nodeName)
  const fromPod = pod ? podClaim(pod) : undefined
  if (fromPod) claims.push(fromPod)
  const fromMetrics = inputs.metrics ? versionFromBuildInfo(inputs.metrics) : undefined
  if (fromMetrics) claims.push({kind: 'metrics', ...fromMetrics, from: 'kube-proxy metrics (127.0.0.1:10249/metrics)'})
  const fromManifest = inputs.staticManifest ? versionFromStaticManifest(inputs.staticManifest) : undefined
  if (fromManifest) claims.push({kind: 'static-manifest', version: fromManifest.version, raw: fromManifest.raw, from: `static pod manifest ${fromManifest.path}`})
  const fromBinary = inputs.distribution ? versionFromDistribution(inputs.distribution) : undefined
  if (fromBinary) claims.push({kind: 'distribution', version: fromBinary.version, raw: fromBinary.raw, from: `\`${fromBinary.binary} --version\` on the node`})
  const fromDs = daemonSetClaim(inputs.daemonSets ?? [])
  if (fromDs) claims.push(fromDs)
  const nodeText = inputs.node?.status?.nodeInfo?.kubeProxyVersion
  const fromNode = nodeText ? parseKubeProxyVersion(nodeText) : undefined
  if (fromNode && nodeText) claims.push({kind: 'node', version: fromNode, raw: nodeText, from: `Node ${inputs.nodeName} status.nodeInfo.kubeProxyVersion`})
  return claims
}

/** Same release (major.minor, and the patch where both name one); suffixes such as `+k3s1` do not count. */
export function sameVersion(a: KubeProxyVersion, b: KubeProxyVersion): boolean {
  return a.major === b.major && a.minor === b.minor && (a.patch === undefined || b.patch === undefined || a.patch === b.patch)
}

const NODE_INFO_NOTE =
  "status.nodeInfo.kubeProxyVersion is deprecated (KEP-4004): the kubelet no longer sets it, and where it did it held the kubelet's version, not kube-proxy's"

/**
 * The version for one node: an explicit one (the --kube-proxy-version flag) wins; else the first claim; else
 * `assumed`, said in a note. Notes name a DaemonSet that disagrees with the node's own kube-proxy (a rollout in
 * progress) and any other disagreement, so the Report says which one was used and why.
 */
export function resolveKubeProxyVersion(inputs: VersionInputs, assumed: KubeProxyVersion, explicit?: KubeProxyVersion): VersionResolution {
  const claims = versionClaims(inputs)
  const full = formatFullKubeProxyVersion
  if (explicit) {
    const notes: string[] = []
    const first = claims[0]
    if (first && !sameVersion(first.version, explicit)) notes.push(`--kube-proxy-version ${full(explicit)} given; the ${first.from} says ${full(first.version)}`)
    return {version: explicit, kind: 'flag', from: '--kube-proxy-version', claims, notes}
  }
  const chosen = claims[0]
  if (!chosen) {
    return {
      version: assumed,
      kind: 'default',
      from: 'assumed',
      claims,
      notes: [`no source named kube-proxy's version (its pod's image, its metrics, a static pod manifest, a k3s/RKE2 binary, the DaemonSet); assuming ${full(assumed)}, the newest layout known`],
    }
  }
  const notes: string[] = []
  for (const c of claims.slice(1)) {
    if (sameVersion(c.version, chosen.version)) continue
    if (c.kind === 'daemonset' && (chosen.kind === 'pod' || chosen.kind === 'metrics' || chosen.kind === 'static-manifest')) {
      notes.push(`the ${c.from} has image ${c.raw} but this node's kube-proxy runs ${full(chosen.version)} (${chosen.from}): a rollout in progress, or the pod was not restarted; rendering for the version that runs`)
    } else if (c.kind !== 'node') {
      notes.push(`the ${c.from} says ${full(c.version)} (${c.raw}); using ${full(chosen.version)} from the ${chosen.from}`)
    }
  }
  if (chosen.kind === 'node') notes.push(`${full(chosen.version)} comes only from the Node's ${NODE_INFO_NOTE}; used as a last hint`)
  return {version: chosen.version, kind: chosen.kind, from: chosen.from, claims, notes}
}

/** `v1.37.2 (from pod kube-system/kube-proxy-x2x9k)`, or `v1.37 (assumed)`. */
export function describeResolution(r: VersionResolution): string {
  return `${formatFullKubeProxyVersion(r.version)} (${r.kind === 'default' ? 'assumed' : `from ${r.from}`})`
}
