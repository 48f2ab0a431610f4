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
 * NOTE: kube-system, because Pod Security admission must admit a privileged, host-namespace pod: kube-system
 * already runs kube-proxy and the CNI agents as such pods and is the namespace admission configurations exempt,
 * while `default` is often labelled baseline or restricted. Creating pods there takes the rights a root shell on
 * the node implies anyway.
 */
export const DEFAULT_POD_NAMESPACE = 'kube-system'
