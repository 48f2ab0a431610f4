// What the app needs from the Kubernetes API: a read side (ClusterReader) and a deliberately tiny write side
// (ClusterWriter). Implementations return plain JSON shaped like core/model/k8s.ts (`kubectl get -o json` items,
// each with kind/apiVersion) and throw ClusterAccessError for anything the API refused or could not answer.
import type {ConfigMap, DaemonSet, EndpointSlice, KubeObject, Node, Pod, Service, ServiceCIDR} from '../core/model/k8s.js'
import {AccessError} from '../errors.js'

/** The Kubernetes authorization attributes of one API request (what `kubectl auth can-i` takes). */
export interface ApiRequest {
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'
  /** Plural resource, e.g. `services`; empty for non-resource paths such as `/version`. */
  resource: string
  /** API group; '' for the core group. */
  group: string
  subresource?: string
  namespace?: string
  name?: string
  /** Non-resource URL (e.g. `/version`), when `resource` is empty. */
  path?: string
}

/**
 * `kubectl auth can-i` style description of a request: `list services`, `list daemonsets.apps -n kube-system`,
 * `get nodes/proxy node-1`, `get configmaps kube-proxy -n kube-system`, `get /version`.
 */
export function describeRequest(r: ApiRequest): string {
  if (r.resource === '') return `${r.verb} ${r.path ?? '/'}`
  let s = `${r.verb} ${r.resource}${r.group ? `.${r.group}` : ''}${r.subresource ? `/${r.subresource}` : ''}`
  if (r.name) s += ` ${r.name}`
  if (r.namespace) s += ` -n ${r.namespace}`
  return s
}

/**
 * Why a cluster request failed.
 * - `unreachable`: connection refused, DNS, reset; `tls`: certificate not trusted; `timeout`: --request-timeout hit.
 * - `unauthorized`: 401, the credentials were rejected; `credentials`: they could not even be obtained (exec plugin).
 * - `status`: the server answered with a Status (403, 404, 409, 5xx): the request itself was refused.
 */
export type ClusterErrorKind = 'unreachable' | 'tls' | 'timeout' | 'unauthorized' | 'credentials' | 'status'

/** The metav1.Status the server returned, when it did. */
export interface ApiStatus {
  code: number
  /** metav1.StatusReason: `Forbidden`, `NotFound`, `Conflict`, `ServiceUnavailable`, ... */
  reason?: string
  message: string
}

/** A failed cluster request. Exit 4 if it reaches the top; readClusterSnapshot turns `status`/`timeout` into CollectionErrors. */
export class ClusterAccessError extends AccessError {
  readonly kind: ClusterErrorKind
  readonly server: string
  readonly request?: ApiRequest
  readonly status?: ApiStatus

  constructor(
    kind: ClusterErrorKind,
    message: string,
    details: {server: string; request?: ApiRequest; status?: ApiStatus; hint?: string; cause?: unknown},
  ) {
    super(message, details.hint, details.cause)
    this.kind = kind
    this.server = details.server
    if (details.request) this.request = details.request
    if (details.status) this.status = details.status
  }

  /** True for a 403: the request was understood and refused by authorization. */
  get forbidden(): boolean {
    return this.kind === 'status' && this.status?.code === 403
  }
}

/** The server's /version answer. */
export interface ServerVersion {
  major: string
  minor: string
  gitVersion: string
  platform?: string
}

export type CalicoResource = 'ippools' | 'blockaffinities' | 'ipamblocks' | 'felixconfigurations'

export interface PodQuery {
  /** Absent: all namespaces. */
  namespace?: string
  /** Only pods scheduled on this node (fieldSelector spec.nodeName). */
  nodeName?: string
  labelSelector?: string
}

/**
 * Read access to the API. Every method issues one logical request (lists follow `continue` pages) and may run
 * concurrently with the others. Lists keep the server's order. Failures throw ClusterAccessError.
 */
export interface ClusterReader {
  serverVersion(): Promise<ServerVersion>
  listNodes(options?: {labelSelector?: string}): Promise<Node[]>
  /** undefined when the node does not exist (404). */
  getNode(name: string): Promise<Node | undefined>
  /** Absent namespace: all namespaces. */
  listServices(namespace?: string): Promise<Service[]>
  /** discovery.k8s.io/v1; absent namespace: all namespaces. */
  listEndpointSlices(namespace?: string): Promise<EndpointSlice[]>
  listPods(query?: PodQuery): Promise<Pod[]>
  /** apps/v1; absent namespace: all namespaces (GET /apis/apps/v1/daemonsets). */
  listDaemonSets(namespace?: string): Promise<DaemonSet[]>
  /** undefined when the ConfigMap does not exist (404). */
  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined>
  /** networking.k8s.io/v1 (GA in 1.33); a 404 ClusterAccessError when the API is not served (older clusters). */
  listServiceCIDRs(): Promise<ServiceCIDR[]>
  /** crd.projectcalico.org/v1; [] when the CRD is not installed. */
  listCalico(resource: CalicoResource): Promise<KubeObject[]>
  /** cilium.io/v2 CiliumNodes; [] when the CRD is not installed. */
  listCiliumNodes(): Promise<KubeObject[]>
  /** Raw body of the kubelet's /configz through the API server proxy (needs `get nodes/proxy`). */
  getNodeConfigz(node: string): Promise<string>
  /** The last `tailLines` lines of a container's log (default container when absent and the pod has one). */
  podLogTail(namespace: string, pod: string, options: {tailLines: number; container?: string}): Promise<string>
}

/** authorization.k8s.io/v1 ResourceAttributes. */
export interface AccessQuery {
  verb: string
  resource: string
  group?: string
  subresource?: string
  namespace?: string
  name?: string
}

export interface AccessReview {
  allowed: boolean
  /** Present when an authorizer explicitly denied (as opposed to "no rule allows"). */
  denied?: boolean
  reason?: string
}

/** The only writes node-doctor performs. Nothing else may be added without a repair needing it. */
export interface ClusterWriter {
  /**
   * Deletes one pod (its controller recreates it). With `uid`, the server refuses (409) if the name now belongs to a
   * different pod, so a repair never deletes a pod it did not look at. Resolves once the API accepted the deletion.
   */
  deletePod(namespace: string, name: string, options?: {uid?: string; gracePeriodSeconds?: number}): Promise<void>
  /** SelfSubjectAccessReview: may the current user do this? */
  canI(query: AccessQuery): Promise<AccessReview>
  /**
   * Records a repair as a core/v1 Event on the Node (namespace `default`, involvedObject kind Node), as kubectl
   * describe node shows. Optional: writers without it simply record nothing. A refusal throws ClusterAccessError
   * (`forbidden` for a 403); callers treat any failure as a warning, never as a failed repair.
   */
  recordNodeEvent?(event: NodeEvent): Promise<void>
  /**
   * Replaces a ConfigMap (PUT) with `metadata.resourceVersion` as the precondition: the server refuses with 409
   * Conflict when someone changed it since it was read, so an edit never overwrites a change it did not see.
   * Resolves with the ConfigMap as stored. Optional: only `fix kube-proxy-mode` needs it.
   */
  updateConfigMap?(configMap: ConfigMap): Promise<ConfigMap>
}

/** A repair summarised for `kubectl describe node`. */
export interface NodeEvent {
  node: string
  /** The Node's uid when known (kubelet uses the node name otherwise). */
  nodeUid?: string
  type: 'Normal' | 'Warning'
  /** CamelCase reason, e.g. `NodeDoctorRepair`, `NodeDoctorRollback`. */
  reason: string
  /** What was done, e.g. `fix kubelet`. */
  action: string
  message: string
  /** When it happened (RFC 3339 with seconds is what core/v1 timestamps hold). */
  time: Date
}

// --- debug pods (`--via pod`, `cleanup`) ---

/**
 * What the debug-pod transport and `cleanup` need: pods node-doctor creates for itself (labelled
 * app.kubernetes.io/managed-by=node-doctor), read back, listed by that label and deleted. Failures throw
 * ClusterAccessError, like every other cluster call.
 */
export interface DebugPodApi extends Pick<ClusterReader, 'listPods'>, Pick<ClusterWriter, 'deletePod'> {
  /** POST the manifest; resolves with the pod as stored (name, uid, status as the server set them). */
  createPod(namespace: string, manifest: KubeObject): Promise<Pod>
  /** undefined when the pod does not exist (404). */
  getPod(namespace: string, name: string): Promise<Pod | undefined>
}
