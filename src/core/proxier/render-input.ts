// From loaded API objects to the proxier's input for one node: which Node, which kube-proxy version (resolved by
// kube-proxy-version.ts, clamped to the layouts known), which configuration. Shared by `proxy render|diff`, `trace`
// and the live checks, so every path resolves the version the same way.
import {InputProblem} from '../model/errors.js'
import type {ConfigMap, Node, Pod, ServiceCIDR} from '../model/k8s.js'
import {
  type KubeProxyVersion,
  layoutVersionFor,
  type LayoutVersion,
  NEWEST_SUPPORTED_VERSION,
  OLDEST_SUPPORTED_VERSION,
  formatFullKubeProxyVersion,
  formatKubeProxyVersion,
  proxierOptionsFromKubeProxyConfig,
  RUNNING_CONFIG_SOURCE,
  type RuntimeFacts,
  versionAtLeast,
} from './config.js'
import type {IptablesInput} from './iptables/generate.js'
import {KUBE_PROXY_CONFIGMAP_KEYS} from '../parse/kube-proxy-config.js'
import {resolveKubeProxyVersion, type VersionInputs, type VersionResolution, type VersionSource, versionClaims} from './kube-proxy-version.js'
import type {LoadedObjects} from './objects.js'

export type {VersionSource} from './kube-proxy-version.js'

/**
 * The objects plus what a node's own artifacts say about its kube-proxy version (live and bundle runs: its
 * metrics, static pod manifest, k3s/RKE2 binary). Offline objects files carry pods among `other`.
 */
export interface ProxierObjects extends LoadedObjects {
  pods?: Pod[]
  nodeVersionInputs?: Pick<VersionInputs, 'nodeName' | 'metrics' | 'staticManifest' | 'distribution'>
}

export interface RenderRequest {
  nodeName: string
  /** Explicit version (from a flag); otherwise detected from the objects. */
  version?: KubeProxyVersion
  /** The parsed KubeProxyConfiguration (kube-system/kube-proxy ConfigMap, key config.conf), if any. */
  kubeProxyConfig?: Record<string, unknown>
  /** Dotted path → source for the values of kubeProxyConfig that came from the running kube-proxy (/configz). */
  configSources?: Record<string, string>
  facts?: Omit<RuntimeFacts, 'version'>
}

export interface RenderInput {
  input: IptablesInput
  node: Node
  /** The layout rendered: the detected version, or the newest layout known when the node runs a newer one. */
  version: KubeProxyVersion
  versionSource: VersionSource
  /** How the version was found: every source, the one used, disagreements (resolution.version is the detected one). */
  resolution: VersionResolution
  /** Set when the detected version is newer than the newest layout known and `version` is that layout instead. */
  newerThanKnown?: KubeProxyVersion
  /** Human-readable notes about defaults that were assumed. */
  notes: string[]
  /** The KubeProxyConfiguration the options came from (the IPVS and nftables proxiers read their own sections). */
  kubeProxyConfig?: Record<string, unknown>
  /** Where that configuration is: `ConfigMap kube-system/kube-proxy`. */
  configSource?: string
  /** Per-field sources that differ from configSource: the values taken from the running kube-proxy (/configz). */
  configSources?: Record<string, string>
  /** The runtime facts the caller gave (the rest took their documented defaults): `nodeInterfaceAddresses`, `family`, … */
  factsGiven: string[]
  /** networking.k8s.io/v1 ServiceCIDRs from the objects (the nftables proxier drops traffic to unallocated IPs). */
  serviceCIDRs: ServiceCIDR[]
}

/**
 * The layout to render a detected version with: itself within the known range; the newest known (`clamped`, see
 * config.ts layoutVersionFor) when newer; undefined when older than the oldest. A clamped layout has no patch, which
 * counts as .0: every patch-level fix known is in a .0 release of the newest line.
 */
export function renderLayoutFor(v: KubeProxyVersion): LayoutVersion | undefined {
  if (!versionAtLeast(v, OLDEST_SUPPORTED_VERSION.major, OLDEST_SUPPORTED_VERSION.minor)) return undefined
  return layoutVersionFor(v)
}

/** The sentence the Report, the notes and rendered output use for a clamped version. */
export function newerVersionNote(detected: KubeProxyVersion, layout: KubeProxyVersion): string {
  return `kube-proxy ${formatFullKubeProxyVersion(detected)} is newer than the newest layout known (${formatKubeProxyVersion(layout)}): rendered with the ${formatKubeProxyVersion(layout)} layout`
}

/** ConfigMap names that hold kube-proxy's configuration: kubeadm's, then EKS's. */
const KUBE_PROXY_CONFIGMAPS = ['kube-proxy', 'kube-proxy-config'] as const

/** `ConfigMap kube-system/NAME` of the ConfigMap kubeProxyConfigText reads, when one holds a configuration. */
export function kubeProxyConfigMapName(objects: Pick<LoadedObjects, 'configMaps'>): string | undefined {
  for (const name of KUBE_PROXY_CONFIGMAPS) {
    const cm = objects.configMaps.find((c: ConfigMap) => c.metadata.namespace === 'kube-system' && c.metadata.name === name)
    if (cm?.data && KUBE_PROXY_CONFIGMAP_KEYS.some((k) => cm.data![k] !== undefined)) return `ConfigMap kube-system/${name}`
  }
  return undefined
}

/**
 * The KubeProxyConfiguration text from kube-system's kube-proxy ConfigMap (kubeadm: `kube-proxy`/`config.conf`;
 * EKS: `kube-proxy-config`/`config`; other distributions' keys as the config parser knows them).
 */
export function kubeProxyConfigText(objects: Pick<LoadedObjects, 'configMaps'>): string | undefined {
  for (const name of KUBE_PROXY_CONFIGMAPS) {
    const cm = objects.configMaps.find((c: ConfigMap) => c.metadata.namespace === 'kube-system' && c.metadata.name === name)
    if (!cm?.data) continue
    for (const key of KUBE_PROXY_CONFIGMAP_KEYS) if (cm.data[key] !== undefined) return cm.data[key]
  }
  return undefined
}

/** The version in the kube-proxy DaemonSet's image tag (kube-system/kube-proxy first, then any kube-proxy DaemonSet). */
export function kubeProxyVersionFromObjects(objects: Pick<LoadedObjects, 'daemonSets'>): KubeProxyVersion | undefined {
  return versionClaims({nodeName: '', daemonSets: objects.daemonSets})[0]?.version
}

function podsOf(objects: ProxierObjects): Pod[] {
  return objects.pods ?? objects.other.filter((o): o is Pod => o.kind === 'Pod')
}

/** The version resolution for a node from the objects (and the node's own inputs when they are for this node). */
export function resolveVersionForObjects(objects: ProxierObjects, node: Node, explicit?: KubeProxyVersion): VersionResolution {
  const own = objects.nodeVersionInputs?.nodeName === node.metadata.name ? objects.nodeVersionInputs : undefined
  const inputs: VersionInputs = {nodeName: node.metadata.name, node, pods: podsOf(objects), daemonSets: objects.daemonSets, ...own}
  return resolveKubeProxyVersion(inputs, NEWEST_SUPPORTED_VERSION, explicit)
}

/**
 * Resolves the node, the version and the ProxierOptions. A version newer than the newest layout known renders with
 * that layout (`newerThanKnown`, and a note). Throws InputProblem for an unknown node (listing the known ones) or a
 * version older than the oldest layout (its rules would differ in ways not reproduced: a diff would be false alarms);
 * the configuration's own errors are ParseErrors from config.ts.
 */
export function buildRenderInput(objects: ProxierObjects, req: RenderRequest): RenderInput {
  const node = objects.nodes.find((n) => n.metadata.name === req.nodeName)
  if (!node) {
    const known = objects.nodes.map((n) => n.metadata.name).sort()
    throw new InputProblem(
      `node "${req.nodeName}" is not in the objects`,
      known.length > 0 ? `Known nodes: ${known.join(', ')}.` : 'The objects hold no Node; add `kubectl get node NAME -o yaml` output.',
    )
  }
  const resolution = resolveVersionForObjects(objects, node, req.version)
  const notes: string[] = [...resolution.notes]
  const layout = renderLayoutFor(resolution.version)
  if (!layout) {
    throw new InputProblem(
      `kube-proxy ${formatFullKubeProxyVersion(resolution.version)} (from ${resolution.from}) is older than the oldest layout known (${formatKubeProxyVersion(OLDEST_SUPPORTED_VERSION)})`,
      `Layouts known: ${formatKubeProxyVersion(OLDEST_SUPPORTED_VERSION)} to ${formatKubeProxyVersion(NEWEST_SUPPORTED_VERSION)}, and anything newer with the newest. Older rules differ in ways not reproduced, so they are not guessed.`,
    )
  }
  const version = layout.layout
  if (layout.clamped) notes.push(newerVersionNote(resolution.version, version))
  if (!req.kubeProxyConfig) notes.push('no kube-system/kube-proxy ConfigMap (config.conf) found; using kube-proxy defaults')
  const options = proxierOptionsFromKubeProxyConfig(req.kubeProxyConfig, node, {...req.facts, version})
  const out: RenderInput = {
    input: {services: objects.services, endpointSlices: objects.endpointSlices, options},
    node,
    version,
    versionSource: resolution.kind,
    resolution,
    notes,
    factsGiven: Object.entries(req.facts ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [k])),
    serviceCIDRs: objects.serviceCIDRs,
  }
  if (layout.clamped) out.newerThanKnown = resolution.version
  if (req.kubeProxyConfig) {
    out.kubeProxyConfig = req.kubeProxyConfig
    out.configSource = kubeProxyConfigMapName(objects) ?? (req.configSources ? RUNNING_CONFIG_SOURCE : 'the kube-proxy configuration')
    if (req.configSources && Object.keys(req.configSources).length > 0) out.configSources = req.configSources
  }
  return out
}
