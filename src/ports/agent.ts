// What the in-cluster agent mode needs from the API: create its own objects, watch its pods by polling one list,
// read each pod's log once, and delete its namespace. Failures throw ClusterAccessError (src/ports/cluster.ts).
import type {KubeObject, Pod} from '../core/model/k8s.js'

export interface AgentApi {
  /** POSTs each object in order (Namespace first); stops at the first refusal, which it throws. */
  create(objects: readonly KubeObject[]): Promise<void>
  /** Pods in `namespace` matching the label selector (one logical list, following `continue` pages). */
  listPods(namespace: string, labelSelector: string): Promise<Pod[]>
  /** The whole log of one container. */
  podLog(namespace: string, pod: string, container: string): Promise<string>
  /** Events in `namespace` (the DaemonSet controller's FailedCreate explains pods that never appear). */
  listEvents(namespace: string): Promise<AgentEvent[]>
  /** Namespaces matching the label selector. */
  listNamespaces(labelSelector: string): Promise<KubeObject[]>
  /** Deletes a namespace and with it everything in it; false when it was already gone (404). */
  deleteNamespace(name: string): Promise<boolean>
}

export interface AgentEvent {
  reason?: string
  message?: string
  type?: string
  involvedObject?: {kind?: string; name?: string}
  lastTimestamp?: string
}
