// The subset of Kubernetes API objects node-doctor reads, as plain JSON shapes (what `kubectl get -o json` prints).
// Our own types, not @kubernetes/client-node's: fixtures stay small, snapshots round-trip as JSON, and the pure core
// does not depend on the client library.

export interface ObjectMeta {
  name: string
  namespace?: string
  uid?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
  creationTimestamp?: string
  deletionTimestamp?: string
  resourceVersion?: string
  ownerReferences?: Array<{kind: string; name: string; uid?: string; controller?: boolean}>
}

export interface KubeObject {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
}

export interface ServicePortSpec {
  name?: string
  protocol?: 'TCP' | 'UDP' | 'SCTP'
  port: number
  targetPort?: number | string
  nodePort?: number
  appProtocol?: string
}

export interface Service extends KubeObject {
  spec: {
    type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName'
    clusterIP?: string
    clusterIPs?: string[]
    ipFamilies?: Array<'IPv4' | 'IPv6'>
    ipFamilyPolicy?: string
    ports?: ServicePortSpec[]
    selector?: Record<string, string>
    externalIPs?: string[]
    externalName?: string
    externalTrafficPolicy?: 'Cluster' | 'Local'
    internalTrafficPolicy?: 'Cluster' | 'Local'
    healthCheckNodePort?: number
    loadBalancerIP?: string
    loadBalancerSourceRanges?: string[]
    sessionAffinity?: 'None' | 'ClientIP'
    sessionAffinityConfig?: {clientIP?: {timeoutSeconds?: number}}
    trafficDistribution?: string
    allocateLoadBalancerNodePorts?: boolean
    publishNotReadyAddresses?: boolean
  }
  status?: {
    loadBalancer?: {ingress?: Array<{ip?: string; hostname?: string; ipMode?: 'VIP' | 'Proxy'}>}
  }
}

export interface EndpointSlice extends KubeObject {
  addressType: 'IPv4' | 'IPv6' | 'FQDN'
  endpoints?: Array<{
    addresses: string[]
    conditions?: {ready?: boolean | null; serving?: boolean | null; terminating?: boolean | null}
    hostname?: string
    nodeName?: string
    zone?: string
    hints?: {forZones?: Array<{name: string}>; forNodes?: Array<{name: string}>}
    targetRef?: {kind?: string; name?: string; namespace?: string; uid?: string}
  }>
  ports?: Array<{name?: string | null; protocol?: 'TCP' | 'UDP' | 'SCTP'; port?: number | null; appProtocol?: string}>
}

export interface NodeAddress {
  type: 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS' | string
  address: string
}

export interface Node extends KubeObject {
  spec?: {podCIDR?: string; podCIDRs?: string[]; providerID?: string; unschedulable?: boolean; taints?: unknown[]}
  status?: {
    addresses?: NodeAddress[]
    conditions?: Array<{type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string}>
    nodeInfo?: {
      kubeletVersion?: string
      kubeProxyVersion?: string
      containerRuntimeVersion?: string
      kernelVersion?: string
      osImage?: string
      architecture?: string
    }
  }
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>
}

export interface Container {
  name: string
  image?: string
  command?: string[]
  args?: string[]
  env?: Array<{name: string; value?: string; valueFrom?: {configMapKeyRef?: {name: string; key: string; optional?: boolean}}}>
}

export interface Pod extends KubeObject {
  spec?: {nodeName?: string; containers?: Container[]; initContainers?: Container[]; hostNetwork?: boolean}
  status?: {
    phase?: string
    podIP?: string
    podIPs?: Array<{ip: string}>
    hostIP?: string
    conditions?: Array<{type: string; status: string}>
    containerStatuses?: Array<{
      name: string
      ready: boolean
      restartCount: number
      image?: string
      state?: Record<string, {reason?: string; message?: string; startedAt?: string} | undefined>
      lastState?: Record<string, {reason?: string; exitCode?: number; finishedAt?: string} | undefined>
    }>
  }
}

export interface DaemonSet extends KubeObject {
  spec?: {selector?: {matchLabels?: Record<string, string>}; template?: {spec?: {containers?: Container[]}}}
  status?: {desiredNumberScheduled?: number; numberReady?: number; updatedNumberScheduled?: number}
}

/** networking.k8s.io/v1 ServiceCIDR (used by the nftables proxier to drop traffic to unallocated ClusterIPs). */
export interface ServiceCIDR extends KubeObject {
  spec?: {cidrs?: string[]}
}

/** A `kubectl get -o json` List. */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string
  kind: string
  items: T[]
  metadata?: {resourceVersion?: string; continue?: string}
}

/** The key node-doctor uses for namespaced objects: `namespace/name`. */
export function objectKey(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name
}
