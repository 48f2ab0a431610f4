// ClusterReader/ClusterWriter over the Kubernetes REST API: one method per resource, each a path, a request
// description (for errors and RBAC hints) and the kind to stamp on list items. The transport (credentials, TLS,
// timeouts, paging, error mapping) is KubeTransport in transport.ts.
import {limits} from '../../core/limits/limits.js'
import type {ConfigMap, DaemonSet, EndpointSlice, KubeObject, Node, Pod, Service, ServiceCIDR} from '../../core/model/k8s.js'
import type {
  AccessQuery,
  AccessReview,
  ApiRequest,
  CalicoResource,
  ClusterReader,
  ClusterWriter,
  NodeEvent,
  PodQuery,
  ServerVersion,
} from '../../ports/cluster.js'
import {KubeTransport, parseJSON} from './transport.js'

// moved to transport.ts; re-exported for callers outside transports/kube
export {clusterErrorFor, type KubeClientOptions, type RequestFailure, type RequestTarget} from './transport.js'

export class KubeClusterClient extends KubeTransport implements ClusterReader, ClusterWriter {
  async serverVersion(): Promise<ServerVersion> {
    const v = await this.getJSON<Partial<ServerVersion>>({verb: 'get', resource: '', group: '', path: '/version'}, '/version')
    const out: ServerVersion = {major: v.major ?? '', minor: v.minor ?? '', gitVersion: v.gitVersion ?? ''}
    if (v.platform !== undefined) out.platform = v.platform
    return out
  }

  listNodes(options: {labelSelector?: string} = {}): Promise<Node[]> {
    return this.list<Node>({verb: 'list', resource: 'nodes', group: ''}, '/api/v1/nodes', 'v1', 'Node', {labelSelector: options.labelSelector})
  }

  async getNode(name: string): Promise<Node | undefined> {
    return this.getOptional<Node>({verb: 'get', resource: 'nodes', group: '', name}, `/api/v1/nodes/${enc(name)}`, 'v1', 'Node')
  }

  listServices(namespace?: string): Promise<Service[]> {
    return this.list<Service>(
      withNs({verb: 'list', resource: 'services', group: ''}, namespace),
      `/api/v1/${nsPath(namespace)}services`,
      'v1',
      'Service',
    )
  }

  listEndpointSlices(namespace?: string): Promise<EndpointSlice[]> {
    return this.list<EndpointSlice>(
      withNs({verb: 'list', resource: 'endpointslices', group: 'discovery.k8s.io'}, namespace),
      `/apis/discovery.k8s.io/v1/${nsPath(namespace)}endpointslices`,
      'discovery.k8s.io/v1',
      'EndpointSlice',
    )
  }

  listPods(query: PodQuery = {}): Promise<Pod[]> {
    return this.list<Pod>(withNs({verb: 'list', resource: 'pods', group: ''}, query.namespace), `/api/v1/${nsPath(query.namespace)}pods`, 'v1', 'Pod', {
      labelSelector: query.labelSelector,
      fieldSelector: query.nodeName === undefined ? undefined : `spec.nodeName=${query.nodeName}`,
    })
  }

  listDaemonSets(namespace?: string): Promise<DaemonSet[]> {
    return this.list<DaemonSet>(
      withNs({verb: 'list', resource: 'daemonsets', group: 'apps'}, namespace),
      `/apis/apps/v1/${nsPath(namespace)}daemonsets`,
      'apps/v1',
      'DaemonSet',
    )
  }

  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return this.getOptional<ConfigMap>(
      {verb: 'get', resource: 'configmaps', group: '', namespace, name},
      `/api/v1/namespaces/${enc(namespace)}/configmaps/${enc(name)}`,
      'v1',
      'ConfigMap',
    )
  }

  async listServiceCIDRs(): Promise<ServiceCIDR[]> {
    // Not listIfServed: a 404 (the API is not served) is told apart from an empty list; readClusterSnapshot notes it.
    return this.list<ServiceCIDR>(
      {verb: 'list', resource: 'servicecidrs', group: 'networking.k8s.io'},
      '/apis/networking.k8s.io/v1/servicecidrs',
      'networking.k8s.io/v1',
      'ServiceCIDR',
    )
  }

  async listCalico(resource: CalicoResource): Promise<KubeObject[]> {
    const kind = {ippools: 'IPPool', blockaffinities: 'BlockAffinity', ipamblocks: 'IPAMBlock', felixconfigurations: 'FelixConfiguration'}[resource]
    return this.listIfServed<KubeObject>(
      {verb: 'list', resource, group: 'crd.projectcalico.org'},
      `/apis/crd.projectcalico.org/v1/${resource}`,
      'crd.projectcalico.org/v1',
      kind,
    )
  }

  async listCiliumNodes(): Promise<KubeObject[]> {
    return this.listIfServed<KubeObject>({verb: 'list', resource: 'ciliumnodes', group: 'cilium.io'}, '/apis/cilium.io/v2/ciliumnodes', 'cilium.io/v2', 'CiliumNode')
  }

  getNodeConfigz(node: string): Promise<string> {
    return this.call({verb: 'get', resource: 'nodes', group: '', subresource: 'proxy', name: node}, {path: `/api/v1/nodes/${enc(node)}/proxy/configz`})
  }

  podLogTail(namespace: string, pod: string, options: {tailLines: number; container?: string}): Promise<string> {
    return this.call(
      {verb: 'get', resource: 'pods', group: '', subresource: 'log', namespace, name: pod},
      {
        path: `/api/v1/namespaces/${enc(namespace)}/pods/${enc(pod)}/log`,
        // limitBytes: a log of long lines is bounded by the server too, not only by its line count.
        query: {tailLines: String(options.tailLines), container: options.container, limitBytes: String(limits().podLogBytes)},
        accept: 'text/plain, */*',
      },
    )
  }

  async deletePod(namespace: string, name: string, options: {uid?: string; gracePeriodSeconds?: number} = {}): Promise<void> {
    const body: Record<string, unknown> = {apiVersion: 'v1', kind: 'DeleteOptions'}
    if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds
    if (options.uid !== undefined) body.preconditions = {uid: options.uid}
    await this.call(
      {verb: 'delete', resource: 'pods', group: '', namespace, name},
      {method: 'DELETE', path: `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}`, body},
    )
  }

  // --- DebugPodApi (debug-pod transport and `cleanup`): listPods and deletePod above, plus these two ---

  async createPod(namespace: string, manifest: KubeObject): Promise<Pod> {
    const text = await this.call(
      {verb: 'create', resource: 'pods', group: '', namespace},
      {method: 'POST', path: `/api/v1/namespaces/${enc(namespace)}/pods`, body: manifest},
    )
    return {apiVersion: 'v1', kind: 'Pod', ...(parseJSON(text, this.target.server) as Pod)}
  }

  getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return this.getOptional<Pod>({verb: 'get', resource: 'pods', group: '', namespace, name}, `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}`, 'v1', 'Pod')
  }

  // --- end DebugPodApi ---

  async recordNodeEvent(e: NodeEvent): Promise<void> {
    const at = e.time.toISOString().replace(/\.\d+Z$/, 'Z')
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {generateName: `${e.node}.node-doctor.`, namespace: 'default'},
      involvedObject: {apiVersion: 'v1', kind: 'Node', name: e.node, uid: e.nodeUid ?? e.node},
      type: e.type,
      reason: e.reason,
      action: e.action,
      message: e.message,
      source: {component: 'node-doctor'},
      reportingComponent: 'node-doctor',
      reportingInstance: 'kubectl-node_doctor',
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    }
    await this.call({verb: 'create', resource: 'events', group: '', namespace: 'default'}, {method: 'POST', path: '/api/v1/namespaces/default/events', body})
  }

  async updateConfigMap(cm: ConfigMap): Promise<ConfigMap> {
    const namespace = cm.metadata.namespace ?? 'default'
    const name = cm.metadata.name
    if (cm.metadata.resourceVersion === undefined) throw new Error(`updateConfigMap ${namespace}/${name}: metadata.resourceVersion is required as the precondition`)
    const stored = await this.requestJSON<ConfigMap>(
      {verb: 'update', resource: 'configmaps', group: '', namespace, name},
      {method: 'PUT', path: `/api/v1/namespaces/${enc(namespace)}/configmaps/${enc(name)}`, body: {...cm, apiVersion: 'v1', kind: 'ConfigMap'}},
    )
    return {...stored, apiVersion: 'v1', kind: 'ConfigMap'}
  }

  async canI(query: AccessQuery): Promise<AccessReview> {
    const attrs: Record<string, string> = {verb: query.verb, resource: query.resource, group: query.group ?? ''}
    for (const k of ['subresource', 'namespace', 'name'] as const) if (query[k]) attrs[k] = query[k]!
    const text = await this.call(
      {verb: 'create', resource: 'selfsubjectaccessreviews', group: 'authorization.k8s.io'},
      {
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: {apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {resourceAttributes: attrs}},
      },
    )
    const status = (parseJSON(text, this.target.server) as {status?: {allowed?: boolean; denied?: boolean; reason?: string}}).status ?? {}
    const review: AccessReview = {allowed: status.allowed === true}
    if (status.denied !== undefined) review.denied = status.denied
    if (status.reason) review.reason = status.reason
    return review
  }
}

function withNs(req: ApiRequest, namespace: string | undefined): ApiRequest {
  return namespace === undefined ? req : {...req, namespace}
}

function nsPath(namespace: string | undefined): string {
  return namespace === undefined ? '' : `namespaces/${enc(namespace)}/`
}

function enc(s: string): string {
  return encodeURIComponent(s)
}
