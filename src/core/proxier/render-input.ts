// From loaded API objects to the proxier's input for one node: which Node, which kube-proxy version, which
// configuration. Shared by `proxy render` and the tests so both take the same path.
import {InputProblem} from '../model/errors.js'
import type {ConfigMap, DaemonSet, Node, ServiceCIDR} from '../model/k8s.js'
import {
  isSupportedVersion,
  type KubeProxyVersion,
  NEWEST_SUPPORTED_VERSION,
  OLDEST_SUPPORTED_VERSION,
  formatKubeProxyVersion,
  parseKubeProxyVersion,
  proxierOptionsFromKubeProxyConfig,
  type RuntimeFacts,
  versionFromImage,
} from './config.js'
import type {IptablesInput} from './iptables/generate.js'
import {KUBE_PROXY_CONFIGMAP_KEYS} from '../parse/kube-proxy-config.js'
import type {LoadedObjects} from './objects.js'

/** Where the kube-proxy version came from. */
export type VersionSource = 'flag' | 'daemonset' | 'node' | 'default'

export interface RenderRequest {
  nodeName: string
  /** Explicit version (from a flag); otherwise detected from the objects. */
  version?: KubeProxyVersion
  /** The parsed KubeProxyConfiguration (kube-system/kube-proxy ConfigMap, key config.conf), if any. */
  kubeProxyConfig?: Record<string, unknown>
  facts?: Omit<RuntimeFacts, 'version'>
}

export interface RenderInput {
  input: IptablesInput
  node: Node
  version: KubeProxyVersion
  versionSource: VersionSource
  /** Human-readable notes about defaults that were assumed. */
  notes: string[]
  /** The KubeProxyConfiguration the options came from (the IPVS and nftables proxiers read their own sections). */
  kubeProxyConfig?: Record<string, unknown>
  /** networking.k8s.io/v1 ServiceCIDRs from the objects (the nftables proxier drops traffic to unallocated IPs). */
  serviceCIDRs: ServiceCIDR[]
}

/** ConfigMap names that hold kube-proxy's configuration: kubeadm's, then EKS's. */
const KUBE_PROXY_CONFIGMAPS = ['kube-proxy', 'kube-proxy-config'] as const

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

function kubeProxyImages(ds: DaemonSet): string[] {
  const containers = ds.spec?.template?.spec?.containers ?? []
  return containers.filter((c) => c.name === 'kube-proxy' || /(^|\/)kube-proxy[:@]/.test(c.image ?? '')).map((c) => c.image ?? '')
}

/** The version in the kube-proxy DaemonSet's image tag (kube-system/kube-proxy first, then any kube-proxy DaemonSet). */
export function kubeProxyVersionFromObjects(objects: Pick<LoadedObjects, 'daemonSets'>): KubeProxyVersion | undefined {
  const sets = [...objects.daemonSets].sort((a, b) => Number(b.metadata.name === 'kube-proxy' && b.metadata.namespace === 'kube-system') - Number(a.metadata.name === 'kube-proxy' && a.metadata.namespace === 'kube-system'))
  for (const ds of sets) {
    for (const image of kubeProxyImages(ds)) {
      const v = versionFromImage(image)
      if (v) return v
    }
  }
  return undefined
}

/**
 * Resolves the node, the version and the ProxierOptions. Throws InputProblem for an unknown node (listing the known
 * ones) or an unsupported version; the configuration's own errors are ParseErrors from config.ts.
 */
export function buildRenderInput(objects: LoadedObjects, req: RenderRequest): RenderInput {
  const node = objects.nodes.find((n) => n.metadata.name === req.nodeName)
  if (!node) {
    const known = objects.nodes.map((n) => n.metadata.name).sort()
    throw new InputProblem(
      `node "${req.nodeName}" is not in the objects`,
      known.length > 0 ? `Known nodes: ${known.join(', ')}.` : 'The objects hold no Node; add `kubectl get node NAME -o yaml` output.',
    )
  }
  const notes: string[] = []
  let version = req.version
  let versionSource: VersionSource = 'flag'
  if (!version) {
    version = kubeProxyVersionFromObjects(objects)
    versionSource = 'daemonset'
  }
  if (!version) {
    const fromNode = node.status?.nodeInfo?.kubeProxyVersion
    version = fromNode ? parseKubeProxyVersion(fromNode) : undefined
    versionSource = 'node'
  }
  if (!version) {
    version = NEWEST_SUPPORTED_VERSION
    versionSource = 'default'
    notes.push(`no kube-proxy DaemonSet image or node kubeProxyVersion found; assuming ${formatKubeProxyVersion(version)}`)
  }
  if (!isSupportedVersion(version)) {
    throw new InputProblem(
      `kube-proxy ${formatKubeProxyVersion(version)} is not supported`,
      `Supported: ${formatKubeProxyVersion(OLDEST_SUPPORTED_VERSION)} to ${formatKubeProxyVersion(NEWEST_SUPPORTED_VERSION)}.`,
    )
  }
  if (!req.kubeProxyConfig) notes.push('no kube-system/kube-proxy ConfigMap (config.conf) found; using kube-proxy defaults')
  const options = proxierOptionsFromKubeProxyConfig(req.kubeProxyConfig, node, {...req.facts, version})
  const out: RenderInput = {input: {services: objects.services, endpointSlices: objects.endpointSlices, options}, node, version, versionSource, notes, serviceCIDRs: objects.serviceCIDRs}
  if (req.kubeProxyConfig) out.kubeProxyConfig = req.kubeProxyConfig
  return out
}
