// Snapshots: the seam between collection and analysis. `collect` writes them to a bundle, `analyze` reads them back,
// and every check is a pure function of a ClusterSnapshot and a NodeSnapshot.
import type {CollectionError} from './report.js'
import type {ConfigMap, DaemonSet, EndpointSlice, KubeObject, Node, Pod, Service, ServiceCIDR} from './k8s.js'

export const SNAPSHOT_API_VERSION = 'node-doctor.io/v1alpha1'

/** API objects, read once per run. */
export interface ClusterSnapshot {
  apiVersion: typeof SNAPSHOT_API_VERSION
  kind: 'ClusterSnapshot'
  collectedAt: string
  context?: string
  server?: string
  serverVersion?: string
  nodes: Node[]
  services: Service[]
  endpointSlices: EndpointSlice[]
  /** kube-system pods (kube-proxy, calico-node, coredns) and any other pods read for endpoint checks. */
  pods: Pod[]
  /**
   * DaemonSets of every namespace (CNIs keep theirs in kube-flannel, calico-system...), or of the namespaces CNIs use
   * when the cluster-wide list is forbidden (noted in `unavailable`). Bundles written before hold kube-system's only.
   */
  daemonSets: DaemonSet[]
  configMaps: ConfigMap[]
  serviceCIDRs: ServiceCIDR[]
  /**
   * Resources that could not be read for a reason that is a fact about the cluster or the credentials, not a failure
   * (the API is not served, 404; RBAC refuses it, 403), each with a note saying what that leaves unknown. Absent when
   * there is none (and in bundles written before it existed).
   */
  unavailable?: UnavailableResource[]
  /**
   * crd.projectcalico.org/v1 objects when present: IPPool, BlockAffinity, IPAMBlock; FelixConfiguration (`default`,
   * `node.NAME`) only when the cluster has some (absent in older bundles too: the MTU checks then say so).
   */
  calico: {ipPools: KubeObject[]; blockAffinities: KubeObject[]; ipamBlocks: KubeObject[]; felixConfigurations?: KubeObject[]}
  /**
   * cilium.io/v2 CiliumNodes (each node's pod CIDRs and addresses as Cilium's agents see them), read when the cluster
   * shows Cilium (ConfigMap kube-system/cilium-config or DaemonSet kube-system/cilium). Absent when not read (no Cilium,
   * refused: see `unavailable`, or a bundle written before it existed); [] when the CRD is not installed.
   */
  ciliumNodes?: KubeObject[]
  /** Raw /api/v1/nodes/NAME/proxy/configz bodies by node name. */
  configz: Record<string, string>
  /** Tail of each kube-proxy pod's log by pod name. */
  kubeProxyLogs: Record<string, string>
  errors: CollectionError[]
}

/** A resource the API server does not serve or will not let this user read (ClusterSnapshot.unavailable). */
export interface UnavailableResource {
  /** Plural resource, as collection errors name it: `servicecidrs`. */
  resource: string
  why: 'not-served' | 'forbidden'
  /** What this means for the run, for people. */
  note: string
}

/** One raw artifact from a node: a command's output or a file's content. */
export interface Artifact {
  /** Stable artifact id from the collection plan, e.g. `iptables-save`, `ip-route`, `kubelet-config`. */
  id: string
  /** The exact command run, or the file path read. */
  source: string
  /** Present when the command ran; a non-zero code with output may still be usable. */
  exitCode?: number
  content: string
  stderr?: string
  /** Why it could not be collected (tool missing, file absent, timeout). */
  error?: string
  durationMs?: number
}

/**
 * Raw files and command outputs from one node, via some transport. NOTE: the node's layout (distribution, kubelet
 * config, kube-proxy, CNI, Services owner) is not a field: core/layout derives it from the `layout` artifact and the
 * ClusterSnapshot, so bundles keep it without a format change and older bundles resolve from the API alone.
 */
export interface NodeSnapshot {
  apiVersion: typeof SNAPSHOT_API_VERSION
  kind: 'NodeSnapshot'
  node: string
  collectedAt: string
  transport: 'ssh' | 'pod' | 'local' | 'bundle' | 'files'
  artifacts: Record<string, Artifact>
  errors: CollectionError[]
  durationMs?: number
}

/** The content of an artifact that was collected without error, or undefined. */
export function artifactText(snapshot: NodeSnapshot, id: string): string | undefined {
  const a = snapshot.artifacts[id]
  if (!a || a.error !== undefined) return undefined
  return a.content
}

export function emptyClusterSnapshot(collectedAt: string): ClusterSnapshot {
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'ClusterSnapshot',
    collectedAt,
    nodes: [],
    services: [],
    endpointSlices: [],
    pods: [],
    daemonSets: [],
    configMaps: [],
    serviceCIDRs: [],
    calico: {ipPools: [], blockAffinities: [], ipamBlocks: []},
    configz: {},
    kubeProxyLogs: {},
    errors: [],
  }
}
