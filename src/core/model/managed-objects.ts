// What marks the objects node-doctor creates in a cluster (the --via pod debug pods, the --in-cluster agent runs),
// and where the debug pods go by default. One definition for the pod transport, the agent manifests, the flags'
// defaults and `cleanup` (whose help states them without loading any transport).

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by'
export const MANAGED_BY_VALUE = 'node-doctor'
/** Which run created the object: one id per process, shared by the pods of all its nodes and its agent objects. */
export const RUN_LABEL = 'node-doctor.io/run'
/** Selects every pod node-doctor ever created (what `cleanup` deletes). */
export const DEBUG_POD_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`
/**
 * NOTE: busybox brings nsenter, sh and sleep in about 2 MB. This is the copy Kubernetes' own e2e tests use: it
 * is on registry.k8s.io (no Docker Hub anonymous pull limit, mirrored by most providers). Air-gapped clusters
 * pass --pod-image with any image that has nsenter, sh and sleep.
 */
export const DEFAULT_POD_IMAGE = 'registry.k8s.io/e2e-test-images/busybox:1.36.1-1'
/**
 * NOTE: where debug pods go when the run cannot create a namespace of its own (namespaces/create forbidden), and
 * what `cleanup` looks in by default for pods of such runs: kube-system already runs kube-proxy and the CNI agents
 * as privileged host-namespace pods and is the namespace admission configurations exempt, while `default` is often
 * labelled baseline or restricted.
 */
export const DEFAULT_POD_NAMESPACE = 'kube-system'

export const COMPONENT_LABEL = 'app.kubernetes.io/component'
export const COMPONENT_DEBUG = 'debug-pods'
/**
 * Without --pod-namespace a --via pod run creates `node-doctor-debug-<run>`, labelled for privileged Pod Security
 * (enforce, warn and audit, so neither a cluster default nor a warning gets in the way), and deletes it at the end.
 */
export function debugNamespaceName(runId: string): string {
  return `node-doctor-debug-${runId}`
}
/** Every namespace a --via pod run created (what `cleanup` deletes). */
export const DEBUG_NAMESPACE_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${COMPONENT_LABEL}=${COMPONENT_DEBUG}`

/** The Namespace of a --via pod run, exactly as it is POSTed. */
export function debugNamespaceManifest(runId: string): {apiVersion: 'v1'; kind: 'Namespace'; metadata: {name: string; labels: Record<string, string>}} {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: debugNamespaceName(runId),
      labels: {
        [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
        [COMPONENT_LABEL]: COMPONENT_DEBUG,
        [RUN_LABEL]: runId,
        'pod-security.kubernetes.io/enforce': 'privileged',
        'pod-security.kubernetes.io/warn': 'privileged',
        'pod-security.kubernetes.io/audit': 'privileged',
      },
    },
  }
}
