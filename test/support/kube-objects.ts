// A small kubeadm-like cluster as API objects, for the fake API server.
// IP plan (kube-proxy test style): pods 10.0.0.0/8, services 172.30.0.0/16, nodes 192.168.0.0/24.
// Nodes: node-a (192.168.0.11, pods 10.0.1.0/24) and node-b (192.168.0.12, pods 10.0.2.0/24).
import type {KubeObject} from '../../src/core/model/k8s.js'

const meta = (name: string, namespace?: string, labels?: Record<string, string>) => ({
  name,
  ...(namespace ? {namespace} : {}),
  ...(labels ? {labels} : {}),
  creationTimestamp: '2025-01-01T00:00:00Z',
})

export function node(name: string, ip: string, podCIDR: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: meta(name, undefined, {'kubernetes.io/hostname': name}),
    spec: {podCIDR, podCIDRs: [podCIDR]},
    status: {
      addresses: [
        {type: 'InternalIP', address: ip},
        {type: 'Hostname', address: name},
      ],
      conditions: [{type: 'Ready', status: 'True'}],
      nodeInfo: {kubeletVersion: 'v1.33.1', kubeProxyVersion: 'v1.33.1', kernelVersion: '6.8.0'},
    },
  } as KubeObject
}

export function pod(namespace: string, name: string, nodeName: string, ip: string, labels: Record<string, string> = {}, containers = ['main']): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta(name, namespace, labels),
    spec: {nodeName, containers: containers.map((c) => ({name: c, image: `registry.k8s.io/${c}:v1`}))},
    status: {phase: 'Running', podIP: ip, podIPs: [{ip}]},
  } as KubeObject
}

export function service(namespace: string, name: string, clusterIP: string, port: number, selector: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(name, namespace),
    spec: {type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports: [{name: 'p', protocol: 'TCP', port, targetPort: port}], selector},
  } as KubeObject
}

export function endpointSlice(namespace: string, service: string, endpoints: Array<{ip: string; nodeName: string}>, port: number): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: meta(`${service}-abcde`, namespace, {'kubernetes.io/service-name': service}),
    addressType: 'IPv4',
    endpoints: endpoints.map((e) => ({addresses: [e.ip], conditions: {ready: true, serving: true, terminating: false}, nodeName: e.nodeName})),
    ports: [{name: 'p', protocol: 'TCP', port}],
  } as KubeObject
}

export const KUBE_PROXY_CONFIG = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'

/** The whole sample cluster; `calico` adds one IPPool (which also makes the fake serve the Calico CRDs). */
export function sampleCluster(options: {calico?: boolean} = {}): KubeObject[] {
  const objs: KubeObject[] = [
    node('node-a', '192.168.0.11', '10.0.1.0/24'),
    node('node-b', '192.168.0.12', '10.0.2.0/24'),
    pod('kube-system', 'kube-proxy-aaaaa', 'node-a', '192.168.0.11', {'k8s-app': 'kube-proxy'}, ['kube-proxy']),
    pod('kube-system', 'kube-proxy-bbbbb', 'node-b', '192.168.0.12', {'k8s-app': 'kube-proxy'}, ['kube-proxy']),
    pod('kube-system', 'coredns-1', 'node-a', '10.0.1.5', {'k8s-app': 'kube-dns'}),
    pod('shop', 'web-1', 'node-a', '10.0.1.10', {app: 'web'}),
    pod('shop', 'web-2', 'node-b', '10.0.2.10', {app: 'web'}),
    service('default', 'kubernetes', '172.30.0.1', 443, {}),
    service('kube-system', 'kube-dns', '172.30.0.10', 53, {'k8s-app': 'kube-dns'}),
    service('shop', 'web', '172.30.1.1', 80, {app: 'web'}),
    endpointSlice('kube-system', 'kube-dns', [{ip: '10.0.1.5', nodeName: 'node-a'}], 53),
    endpointSlice('shop', 'web', [
      {ip: '10.0.1.10', nodeName: 'node-a'},
      {ip: '10.0.2.10', nodeName: 'node-b'},
    ], 80),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta('kube-proxy', 'kube-system', {'k8s-app': 'kube-proxy'}),
      spec: {selector: {matchLabels: {'k8s-app': 'kube-proxy'}}, template: {metadata: {labels: {'k8s-app': 'kube-proxy'}}, spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.1'}]}}},
      status: {desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2},
    } as KubeObject,
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('kube-proxy', 'kube-system'), data: {'config.conf': KUBE_PROXY_CONFIG}} as KubeObject,
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('kubelet-config', 'kube-system'), data: {kubelet: 'kind: KubeletConfiguration\n'}} as KubeObject,
    {apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: meta('kubernetes'), spec: {cidrs: ['172.30.0.0/16']}} as KubeObject,
  ]
  if (options.calico) {
    objs.push({
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'IPPool',
      metadata: meta('default-ipv4-ippool'),
      spec: {cidr: '10.0.0.0/8', ipipMode: 'Always', natOutgoing: true, blockSize: 24},
    } as KubeObject)
  }
  return objs
}
