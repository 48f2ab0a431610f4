// Over 500 lines: one block of data per layout (files, processes, network, API objects); split per layout they would share every builder here.
// The layouts the check harness (check-layouts.test.ts) builds, as data: per distribution the files at their real
// paths, the processes' command lines, the node's links, routes and iptables rules, and the API objects that
// layout's cluster has (Node objects with its providerID and kubeletVersion, kube-proxy's DaemonSet/ConfigMap or
// static pod, the CNI's DaemonSets and ConfigMaps). Each also names the kubelet file it really uses for the
// wrong-clusterDNS fault and whether Calico, flannel (k3s; RKE2's canal) or Cilium routes its pod blocks (the
// missing-route fault).
import {parse as parseYaml} from 'yaml'
import {objectsOf} from '../../../src/core/checks/proxier-snapshot.js'
import type {ConfigMap, DaemonSet, EndpointSlice, KubeObject, Node, Pod, Service} from '../../../src/core/model/k8s.js'
import type {ClusterSnapshot} from '../../../src/core/model/snapshot.js'
import {generateIptablesRestore} from '../../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../../src/core/proxier/iptables/save.js'
import {buildRenderInput} from '../../../src/core/proxier/render-input.js'
import {blockAffinity, calicoNode, clusterSnapshot, ipamBlock, ipPool, pod} from '../../support/calico-dns-builders.js'
import {readFixture} from '../../support/golden.js'
import {KUBEADM_KUBELET_CONFIG as KUBEADM_KUBELET} from '../../support/kubeadm-kubelet.js'
import type {Netns} from '../../support/netns.js'
import type {FakeProcess} from './node.js'

// ---------------------------------------------------------------------------------------------------------------
// API objects

const LONG_AGO = '2026-11-01T00:00:00Z'

function svc(namespace: string, name: string, clusterIP: string, ports: Array<{name: string; protocol: 'TCP' | 'UDP'; port: number; targetPort: number}>, selector?: Record<string, string>): Service {
  return {apiVersion: 'v1', kind: 'Service', metadata: {name, namespace}, spec: {type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports, ...(selector ? {selector} : {})}}
}

function slice(namespace: string, service: string, endpoints: Array<{ip: string; node?: string}>, ports: Array<{name: string; protocol: 'TCP' | 'UDP'; port: number}>): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {name: `${service}-x1`, namespace, labels: {'kubernetes.io/service-name': service}},
    addressType: 'IPv4',
    endpoints: endpoints.map((e) => ({addresses: [e.ip], conditions: {ready: true, serving: true, terminating: false}, ...(e.node ? {nodeName: e.node} : {})})),
    ports,
  } as EndpointSlice
}

function cm(name: string, data: Record<string, string>): ConfigMap {
  return {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name, namespace: 'kube-system'}, data}
}

function ds(name: string, containers: Array<{name: string; image: string; command?: string[]; env?: Array<{name: string; value: string}>}>, labels: Record<string, string> = {'k8s-app': name}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name, namespace: 'kube-system', labels},
    spec: {selector: {matchLabels: labels}, template: {metadata: {labels}, spec: {containers}}},
    status: {desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2},
  } as DaemonSet
}

function withImage(p: Pod, image: string, name: string): Pod {
  return {...p, spec: {...p.spec!, containers: [{name, image}]}}
}

const COREFILE = '.:53 {\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n       fallthrough in-addr.arpa ip6.arpa\n    }\n    forward . /etc/resolv.conf\n    cache 30\n}\n'

interface ClusterPlan {
  nodes: Node[]
  serviceCIDR: string
  apiServerIP: string
  dnsIP: string
  corednsIP: string
  kubeProxy?: {image: string; configMap?: {name: string; key: string; text: string}}
  daemonSets?: DaemonSet[]
  configMaps?: ConfigMap[]
  pods?: Pod[]
  calico?: ClusterSnapshot['calico']
  serverVersion: string
}

function clusterOf(p: ClusterPlan): ClusterSnapshot {
  const [a] = p.nodes
  const kubeProxyPods = p.kubeProxy
    ? p.nodes.map((n, i) => withImage(pod('kube-system', `kube-proxy-${'abcde'[i]}x7k2p`, n.metadata.name, n.status!.addresses![0]!.address, {labels: {'k8s-app': 'kube-proxy'}, hostNetwork: true, container: 'kube-proxy'}), p.kubeProxy!.image, 'kube-proxy'))
    : []
  return clusterSnapshot({
    serverVersion: p.serverVersion,
    nodes: p.nodes,
    services: [
      svc('default', 'kubernetes', p.apiServerIP, [{name: 'https', protocol: 'TCP', port: 443, targetPort: 6443}]),
      svc('kube-system', 'kube-dns', p.dnsIP, [{name: 'dns', protocol: 'UDP', port: 53, targetPort: 53}, {name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 53}], {'k8s-app': 'kube-dns'}),
    ],
    endpointSlices: [
      slice('default', 'kubernetes', [{ip: a!.status!.addresses![0]!.address}], [{name: 'https', protocol: 'TCP', port: 6443}]),
      slice('kube-system', 'kube-dns', [{ip: p.corednsIP, node: a!.metadata.name}], [{name: 'dns', protocol: 'UDP', port: 53}, {name: 'dns-tcp', protocol: 'TCP', port: 53}]),
    ],
    pods: [pod('kube-system', 'coredns-7db6d8ff4d-abcde', a!.metadata.name, p.corednsIP, {labels: {'k8s-app': 'kube-dns'}, container: 'coredns'}), ...kubeProxyPods, ...(p.pods ?? [])],
    daemonSets: [...(p.kubeProxy ? [ds('kube-proxy', [{name: 'kube-proxy', image: p.kubeProxy.image}])] : []), ...(p.daemonSets ?? [])],
    configMaps: [cm('coredns', {Corefile: COREFILE}), ...(p.kubeProxy?.configMap ? [cm(p.kubeProxy.configMap.name, {[p.kubeProxy.configMap.key]: p.kubeProxy.configMap.text})] : []), ...(p.configMaps ?? [])],
    serviceCIDRs: [{apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: {name: 'kubernetes'}, spec: {cidrs: [p.serviceCIDR]}} as ClusterSnapshot['serviceCIDRs'][number]],
    ...(p.calico ? {calico: p.calico} : {}),
  })
}

function plainNode(name: string, ip: string, podCIDR: string | undefined, info: {kubeletVersion: string; osImage: string; providerID?: string; labels?: Record<string, string>}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name, labels: {'kubernetes.io/hostname': name, ...info.labels}, creationTimestamp: LONG_AGO},
    spec: {...(podCIDR ? {podCIDR, podCIDRs: [podCIDR]} : {}), ...(info.providerID ? {providerID: info.providerID} : {})},
    status: {
      addresses: [{type: 'InternalIP', address: ip}, {type: 'Hostname', address: name}],
      conditions: [{type: 'Ready', status: 'True'}],
      nodeInfo: {kubeletVersion: info.kubeletVersion, osImage: info.osImage, containerRuntimeVersion: 'containerd://2.0.5', kernelVersion: '6.8.0-51-generic'},
    },
  } as Node
}

function withNodeInfo(n: Node, kubeletVersion: string, osImage: string): Node {
  return {...n, status: {...n.status!, nodeInfo: {kubeletVersion, osImage, containerRuntimeVersion: 'containerd://2.0.5', kernelVersion: '6.8.0-51-generic'}}} as Node
}

// ---------------------------------------------------------------------------------------------------------------
// Node network state

const mac = (n: number) => `02:00:00:00:01:${n.toString(16).padStart(2, '0')}`

/** eth0 with the node address, a default route, forwarding on (as on every Kubernetes node). */
function uplink(ns: Netns, address: string): void {
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  ns.exec(['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'])
  ip('link', 'add', 'eth0', 'address', mac(1), 'type', 'veth', 'peer', 'name', 'eth0-peer', 'address', mac(2))
  ip('link', 'set', 'eth0', 'up')
  ip('link', 'set', 'eth0-peer', 'up')
  ip('addr', 'add', `${address}/24`, 'dev', 'eth0')
  ip('route', 'add', 'default', 'via', address.replace(/\.\d+$/, '.1'), 'dev', 'eth0', 'proto', 'dhcp', 'src', address, 'metric', '100')
}

/** The VtepMACs the k3s nodes' flannel.1 devices have (and their lease annotations say). */
const K3S_VTEP: Record<string, string> = {'k3s-1': 'aa:bb:cc:00:00:01', 'k3s-2': 'aa:bb:cc:00:00:02'}

/** The lease annotations flanneld (k3s's embedded one too) writes on its Node (flannel pkg/subnet/kube). */
function flannelLease(n: Node, vtepMac: string): Node {
  const ip = n.status!.addresses!.find((a) => a.type === 'InternalIP')!.address
  const annotations = {
    'flannel.alpha.coreos.com/backend-data': JSON.stringify({VNI: 1, VtepMAC: vtepMac}),
    'flannel.alpha.coreos.com/backend-type': 'vxlan',
    'flannel.alpha.coreos.com/kube-subnet-manager': 'true',
    'flannel.alpha.coreos.com/public-ip': ip,
  }
  return {...n, metadata: {...n.metadata, annotations: {...n.metadata.annotations, ...annotations}}} as Node
}

/**
 * flannel VXLAN as k3s runs it: flannel.1 (its VtepMAC) with this node's .0, cni0 with .1, and per other node a
 * route to its subnet via its .0 onlink, the neighbour entry for that .0 and the FDB entry to its public IP. Under
 * canal (`bridge: false`) there is no cni0: Calico's CNI plugin puts the pods on cali* veths.
 */
function flannelNetwork(ns: Netns, own: string, others: string[], vtep?: {own: string; others: Array<{mac: string; ip: string}>}, bridge = true): void {
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  ip('link', 'add', 'flannel.1', 'address', vtep?.own ?? mac(3), 'type', 'vxlan', 'id', '1', 'dstport', '8472', 'dev', 'eth0', 'nolearning')
  ip('addr', 'add', `${own.replace(/\.\d+\/\d+$/, '.0')}/32`, 'dev', 'flannel.1')
  ip('link', 'set', 'flannel.1', 'up')
  if (bridge) {
    ip('link', 'add', 'cni0', 'address', mac(4), 'type', 'bridge')
    ip('addr', 'add', own.replace(/\.\d+\/(\d+)$/, '.1/$1'), 'dev', 'cni0')
    ip('link', 'set', 'cni0', 'up')
  }
  others.forEach((o, i) => {
    const gw = o.replace(/\.\d+\/\d+$/, '.0')
    ip('route', 'add', o, 'via', gw, 'dev', 'flannel.1', 'onlink')
    const peer = vtep?.others[i]
    if (!peer) return
    ip('neigh', 'replace', gw, 'lladdr', peer.mac, 'dev', 'flannel.1', 'nud', 'permanent')
    ns.exec(['bridge', 'fdb', 'append', peer.mac, 'dev', 'flannel.1', 'dst', peer.ip, 'self', 'permanent'])
  })
}

/** kube-proxy's rules for the node, rendered by the embedded proxier from the cluster (what a synced kube-proxy wrote). */
function kubeProxyRules(cluster: ClusterSnapshot, node: string, config: Record<string, unknown> | undefined): string {
  const render = buildRenderInput(objectsOf(cluster), {nodeName: node, ...(config ? {kubeProxyConfig: config} : {}), facts: {nfacct: false, family: 'ipv4'}})
  return serializeSave(generateIptablesRestore(render.input).ruleset)
}

/** The kubelet's own chains (it creates them in the backend it uses: kubelet's iptables util chains). */
const KUBELET_CHAINS = `*mangle
:KUBE-IPTABLES-HINT - [0:0]
:KUBE-KUBELET-CANARY - [0:0]
COMMIT
*nat
:KUBE-KUBELET-CANARY - [0:0]
COMMIT
*filter
:KUBE-FIREWALL - [0:0]
:KUBE-KUBELET-CANARY - [0:0]
-A INPUT -j KUBE-FIREWALL
-A OUTPUT -j KUBE-FIREWALL
-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
COMMIT
`

/** k3s's own chains beside kube-proxy's: flannel's masquerading/forwarding and the network-policy controller (kube-router's). */
const K3S_FOREIGN_CHAINS = `*nat
:FLANNEL-POSTRTG - [0:0]
-A POSTROUTING -m comment --comment "flanneld masq" -j FLANNEL-POSTRTG
-A FLANNEL-POSTRTG -m mark --mark 0x4000/0x4000 -m comment --comment "flanneld masq" -j RETURN
-A FLANNEL-POSTRTG -s 10.42.0.0/24 -d 10.42.0.0/16 -m comment --comment "flanneld masq" -j RETURN
-A FLANNEL-POSTRTG -s 10.42.0.0/16 ! -d 224.0.0.0/4 -m comment --comment "flanneld masq" -j MASQUERADE --random-fully
COMMIT
*filter
:FLANNEL-FWD - [0:0]
:KUBE-ROUTER-FORWARD - [0:0]
:KUBE-ROUTER-INPUT - [0:0]
:KUBE-ROUTER-OUTPUT - [0:0]
:KUBE-NWPLCY-DEFAULT - [0:0]
:KUBE-POD-FW-3K7NLGKO6MRC4ZLQ - [0:0]
-I INPUT 1 -m comment --comment "kube-router netpol - 4IA2OSFRMVNDXBVV" -j KUBE-ROUTER-INPUT
-I FORWARD 1 -m comment --comment "kube-router netpol - TEMCG2JMHZYE7H7T" -j KUBE-ROUTER-FORWARD
-I OUTPUT 1 -m comment --comment "kube-router netpol - VEAAIY32XVBHCSCY" -j KUBE-ROUTER-OUTPUT
-A FORWARD -m comment --comment "flanneld forward" -j FLANNEL-FWD
-A FLANNEL-FWD -s 10.42.0.0/16 -m comment --comment "flanneld forward" -j ACCEPT
-A FLANNEL-FWD -d 10.42.0.0/16 -m comment --comment "flanneld forward" -j ACCEPT
-A KUBE-NWPLCY-DEFAULT -m comment --comment "rule to mark traffic matching a network policy" -j MARK --set-xmark 0x10000/0x10000
-A KUBE-ROUTER-FORWARD -d 10.42.0.5/32 -m comment --comment "rule to jump traffic destined to POD name:coredns-7db6d8ff4d-abcde namespace: kube-system to chain KUBE-POD-FW-3K7NLGKO6MRC4ZLQ" -j KUBE-POD-FW-3K7NLGKO6MRC4ZLQ
-A KUBE-POD-FW-3K7NLGKO6MRC4ZLQ -m conntrack --ctstate RELATED,ESTABLISHED -m comment --comment "rule for stateful firewall for pod" -j ACCEPT
COMMIT
`

// ---------------------------------------------------------------------------------------------------------------
// The layouts

export interface Layout {
  name: string
  /** The node built here; the cluster has a second node `other` that is only an API object. */
  node: string
  files: Record<string, string>
  processes: FakeProcess[]
  /** Links, addresses, routes, sysctls; `pods` is a second namespace for pod veth peers. */
  network(ns: Netns, pods: Netns): void
  cluster(): ClusterSnapshot
  /** iptables-save texts restored into the node in order, the later ones with --noflush (kube-proxy's rules, the CNI's, the kubelet's). */
  rules(cluster: ClusterSnapshot): string[]
  /** The mode a fake kube-proxy answers on 127.0.0.1:10249/proxyMode; none where no kube-proxy runs. */
  kubeProxyMode?: string
  summary: string
  owner: string
  /** The kubelet config file (or drop-in) the layout really uses, relative to /, and its clusterDNS line. */
  dnsFile: string
  dnsLine: string
  /** kube-proxy's rules left behind after the move to another Services owner (fixture path): SVC-001 must name them. */
  leftovers?: string
  /** Whether Calico routes pod blocks here (the missing-route fault applies). */
  calicoRoutes?: {remove: string[]}
  /** flannel VXLAN routes to other nodes' podCIDRs here (the missing-route fault applies: RT-009). */
  flannelRoutes?: {remove: string[]}
  /** Checks (any profile) that stay quiet when the kubelet's command line cannot be read (RKE2: the --read-only-port=0 rke2 passes). */
  quietWithoutKubeletCmdline?: string[]
  /** A routed pod veth whose MTU must fit the tunnel (canal: cali* behind flannel.1): raised to `mtu`, NODE-012 names it. */
  podMtuFault?: {link: string; mtu: number}
  /** Cilium tunnel routes to other nodes' pod CIDRs here (the missing-route fault applies: RT-013). */
  ciliumRoutes?: {remove: string[]}
  /** Where this layout configures kube-proxy's mode outside a ConfigMap: text appended to that file sets nftables (PROXY-003 while iptables runs), and the restart the remedy names. */
  modeFault?: {file: string; append: string; restart: RegExp}
}

const KUBE_PROXY_CONF = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.244.0.0/16\nmode: iptables\n'
const CONTAINERD_SYSTEMD = 'version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n'

function kubeadm(): Layout {
  const nodes = [withNodeInfo(calicoNode('node-a', '192.168.0.11', {vtep: '10.244.1.0', podCIDR: '10.244.1.0/24'}), 'v1.34.2', 'Ubuntu 24.04.1 LTS'), withNodeInfo(calicoNode('node-b', '192.168.0.12', {vtep: '10.244.2.0', podCIDR: '10.244.2.0/24'}), 'v1.34.2', 'Ubuntu 24.04.1 LTS')]
  return {
    name: 'kubeadm',
    node: 'node-a',
    files: {
      'var/lib/kubelet/config.yaml': KUBEADM_KUBELET,
      'var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10"\n',
      'etc/containerd/config.toml': CONTAINERD_SYSTEMD,
      'etc/cni/net.d/10-calico.conflist': '{\n  "name": "k8s-pod-network",\n  "cniVersion": "0.3.1",\n  "plugins": [\n    {"type": "calico", "datastore_type": "kubernetes", "ipam": {"type": "calico-ipam"}},\n    {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}}\n  ]\n}\n',
    },
    processes: [
      {name: 'kubelet', argv0: '/usr/bin/kubelet', args: ['--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf', '--kubeconfig=/etc/kubernetes/kubelet.conf', '--config=/var/lib/kubelet/config.yaml', '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock']},
      {name: 'kube-proxy', argv0: '/usr/local/bin/kube-proxy', args: ['--config=/var/lib/kube-proxy/config.conf', '--hostname-override=node-a']},
      {name: 'calico-node', argv0: 'calico-node', args: ['-felix']},
    ],
    network(ns) {
      uplink(ns, '192.168.0.11')
      const ip = (...a: string[]) => ns.exec(['ip', ...a])
      ip('link', 'add', 'vxlan.calico', 'address', mac(5), 'type', 'vxlan', 'id', '4096', 'dstport', '4789', 'dev', 'eth0')
      ip('link', 'set', 'vxlan.calico', 'mtu', '1450', 'up')
      ip('addr', 'add', '10.244.1.0/32', 'dev', 'vxlan.calico')
      ip('route', 'add', 'blackhole', '10.244.1.0/26', 'proto', '80')
      ip('route', 'add', '10.244.2.0/26', 'via', '10.244.2.0', 'dev', 'vxlan.calico', 'proto', '80', 'onlink')
    },
    cluster: () =>
      clusterOf({
        nodes,
        serverVersion: 'v1.34.2',
        serviceCIDR: '10.96.0.0/12',
        apiServerIP: '10.96.0.1',
        dnsIP: '10.96.0.10',
        corednsIP: '192.168.0.11',
        kubeProxy: {image: 'registry.k8s.io/kube-proxy:v1.34.2', configMap: {name: 'kube-proxy', key: 'config.conf', text: KUBE_PROXY_CONF}},
        daemonSets: [ds('calico-node', [{name: 'calico-node', image: 'quay.io/calico/node:v3.30.3'}])],
        configMaps: [cm('kubeadm-config', {ClusterConfiguration: 'kind: ClusterConfiguration\n'}), cm('kubelet-config', {kubelet: KUBEADM_KUBELET.replace('resolvConf: /run/systemd/resolve/resolv.conf\n', '')})],
        pods: nodes.map((n) => pod('kube-system', `calico-node-${n.metadata.name.slice(5)}xyz`, n.metadata.name, n.status!.addresses![0]!.address, {labels: {'k8s-app': 'calico-node'}, hostNetwork: true, container: 'calico-node'})),
        calico: {
          ipPools: [ipPool('default-ipv4-ippool', '10.244.0.0/16', {vxlanMode: 'Always'})],
          blockAffinities: [blockAffinity('node-a', '10.244.1.0/26'), blockAffinity('node-b', '10.244.2.0/26')],
          ipamBlocks: [ipamBlock('10.244.1.0/26', 'node-a'), ipamBlock('10.244.2.0/26', 'node-b')],
        },
      }),
    rules: (c) => [kubeProxyRules(c, 'node-a', parseYaml(KUBE_PROXY_CONF) as Record<string, unknown>), KUBELET_CHAINS],
    kubeProxyMode: 'iptables',
    summary: 'kubeadm v1.34.2 · kube-proxy DaemonSet, iptables · calico vxlan',
    owner: 'kube-proxy',
    dnsFile: 'var/lib/kubelet/config.yaml',
    dnsLine: '- 10.96.0.10',
    calicoRoutes: {remove: ['10.244.2.0/26']},
  }
}

/** 00-k3s-defaults.conf as k3s v1.33 writes it (k3s-io/k3s pkg/daemons/agent defaultKubeletConfig, marshalled with sorted keys). */
const K3S_DEFAULTS = `apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 2m0s
    enabled: true
  x509:
    clientCAFile: /var/lib/rancher/k3s/agent/client-ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 5m0s
    cacheUnauthorizedTTL: 30s
cgroupDriver: systemd
clusterDNS:
- 10.43.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: unix:///run/k3s/containerd/containerd.sock
cpuManagerReconcilePeriod: 10s
evictionHard:
  imagefs.available: 5%
  nodefs.available: 5%
evictionMinimumReclaim:
  imagefs.available: 10%
  nodefs.available: 10%
evictionPressureTransitionPeriod: 5m0s
failSwapOn: false
fileCheckFrequency: 20s
healthzBindAddress: 127.0.0.1
httpCheckFrequency: 20s
imageMinimumGCAge: 2m0s
kind: KubeletConfiguration
logging:
  flushFrequency: 5s
  format: text
nodeStatusReportFrequency: 5m0s
nodeStatusUpdateFrequency: 10s
runtimeRequestTimeout: 2m0s
serializeImagePulls: false
staticPodPath: /var/lib/rancher/k3s/agent/pod-manifests
streamingConnectionIdleTimeout: 4h0m0s
syncFrequency: 1m0s
tlsCertFile: /var/lib/rancher/k3s/agent/serving-kubelet.crt
tlsPrivateKeyFile: /var/lib/rancher/k3s/agent/serving-kubelet.key
volumeStatsAggPeriod: 1m0s
`
const FLANNEL_CONFLIST = '{\n  "name":"cbr0",\n  "cniVersion":"1.0.0",\n  "plugins":[\n    {"type":"flannel","delegate":{"hairpinMode":true,"forceAddress":true,"isDefaultGateway":true}},\n    {"type":"portmap","capabilities":{"portMappings":true}},\n    {"type":"bandwidth","capabilities":{"bandwidth":true}}\n  ]\n}\n'

function k3s(): Layout {
  const info = {kubeletVersion: 'v1.33.4+k3s1', osImage: 'Debian GNU/Linux 12 (bookworm)'}
  const nodes = [
    flannelLease(plainNode('k3s-1', '192.168.0.11', '10.42.0.0/24', {...info, providerID: 'k3s://k3s-1', labels: {'node-role.kubernetes.io/control-plane': 'true'}}), K3S_VTEP['k3s-1']!),
    flannelLease(plainNode('k3s-2', '192.168.0.12', '10.42.1.0/24', {...info, providerID: 'k3s://k3s-2'}), K3S_VTEP['k3s-2']!),
  ]
  return {
    name: 'k3s',
    node: 'k3s-1',
    files: {
      'etc/rancher/k3s/config.yaml': "write-kubeconfig-mode: '0644'\nkubelet-arg:\n  - max-pods=150\nkube-proxy-arg:\n  - metrics-bind-address=127.0.0.1:10249\n",
      'var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf': K3S_DEFAULTS,
      'var/lib/rancher/k3s/agent/etc/containerd/config.toml': 'version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n',
      'var/lib/rancher/k3s/agent/etc/cni/net.d/10-flannel.conflist': FLANNEL_CONFLIST,
      'var/lib/rancher/k3s/data/current/bin/aux/.keep': '',
    },
    processes: [
      {name: 'k3s', argv0: '/usr/local/bin/k3s', args: ['server']},
      {name: 'containerd', argv0: 'containerd', args: ['-c', '/var/lib/rancher/k3s/agent/etc/containerd/config.toml', '-a', '/run/k3s/containerd/containerd.sock']},
    ],
    network(ns) {
      uplink(ns, '192.168.0.11')
      flannelNetwork(ns, '10.42.0.0/24', ['10.42.1.0/24'], {own: K3S_VTEP['k3s-1']!, others: [{mac: K3S_VTEP['k3s-2']!, ip: '192.168.0.12'}]})
    },
    cluster: () =>
      clusterOf({
        nodes,
        serverVersion: 'v1.33.4+k3s1',
        serviceCIDR: '10.43.0.0/16',
        apiServerIP: '10.43.0.1',
        dnsIP: '10.43.0.10',
        corednsIP: '10.42.0.5',
      }),
    // k3s's kube-proxy runs with --cluster-cidr=10.42.0.0/16 and --proxy-mode=iptables (k3s agent kubeProxyArgs).
    rules: (c) => [kubeProxyRules(c, 'k3s-1', {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', mode: 'iptables', clusterCIDR: '10.42.0.0/16'}), KUBELET_CHAINS, K3S_FOREIGN_CHAINS],
    kubeProxyMode: 'iptables',
    summary: 'k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan',
    flannelRoutes: {remove: ['10.42.1.0/24']},
    modeFault: {file: 'etc/rancher/k3s/config.yaml', append: '  - proxy-mode=nftables\n', restart: /systemctl restart k3s/},
    owner: 'kube-proxy',
    dnsFile: 'var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf',
    dnsLine: '- 10.43.0.10',
  }
}

/** A pod veth on the node (the peer in the pods namespace) and its /32 route, as ptp-style CNIs (GKE, VPC CNI, Calico) have them. */
function podVeth(ns: Netns, pods: Netns, name: string, podIP: string, n: number, mtu?: number): void {
  const withMtu = mtu === undefined ? [] : ['mtu', String(mtu)]
  ns.exec(['ip', 'link', 'add', name, 'address', mac(32 + n), ...withMtu, 'type', 'veth', 'peer', 'name', `pod${n}`, ...withMtu, 'netns', pods.name])
  ns.exec(['ip', 'link', 'set', name, 'up'])
  pods.exec(['ip', 'link', 'set', `pod${n}`, 'up'])
  ns.exec(['ip', 'route', 'add', `${podIP}/32`, 'dev', name, 'scope', 'link'])
}

/** The VtepMACs the RKE2 nodes' flannel.1 devices have (and the lease annotations canal's flanneld writes say). */
const RKE2_VTEP: Record<string, string> = {'rke2-1': 'aa:bb:cc:00:01:01', 'rke2-2': 'aa:bb:cc:00:01:02'}

function rke2(): Layout {
  const info = {kubeletVersion: 'v1.33.4+rke2r1', osImage: 'SUSE Linux Enterprise Server 15 SP6'}
  const nodes = [
    flannelLease(plainNode('rke2-1', '192.168.0.11', '10.42.0.0/24', info), RKE2_VTEP['rke2-1']!),
    flannelLease(plainNode('rke2-2', '192.168.0.12', '10.42.1.0/24', info), RKE2_VTEP['rke2-2']!),
  ]
  const rke2Defaults = K3S_DEFAULTS.replaceAll('/var/lib/rancher/k3s/', '/var/lib/rancher/rke2/')
  const kubeProxyFlags = ['--cluster-cidr=10.42.0.0/16', '--conntrack-max-per-core=0', '--conntrack-tcp-timeout-close-wait=0s', '--conntrack-tcp-timeout-established=0s', '--healthz-bind-address=127.0.0.1', '--hostname-override=rke2-1', '--kubeconfig=/var/lib/rancher/rke2/agent/kubeproxy.kubeconfig', '--proxy-mode=iptables']
  const image = 'index.docker.io/rancher/hardened-kubernetes:v1.33.4-rke2r1-build20250813'
  const manifest = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\n  labels:\n    component: kube-proxy\n    tier: control-plane\nspec:\n  hostNetwork: true\n  containers:\n  - name: kube-proxy\n    image: ${image}\n    command:\n    - kube-proxy\n${kubeProxyFlags.map((f) => `    - ${f}\n`).join('')}`
  const mirror: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: 'kube-proxy-rke2-1', namespace: 'kube-system', labels: {component: 'kube-proxy', tier: 'control-plane'}, creationTimestamp: LONG_AGO},
    spec: {nodeName: 'rke2-1', hostNetwork: true, containers: [{name: 'kube-proxy', image, command: ['kube-proxy', ...kubeProxyFlags]}]},
    status: {phase: 'Running', podIP: '192.168.0.11', conditions: [{type: 'Ready', status: 'True'}], containerStatuses: [{name: 'kube-proxy', ready: true, restartCount: 0, state: {running: {startedAt: LONG_AGO}}}]},
  } as Pod
  return {
    name: 'RKE2',
    node: 'rke2-1',
    files: {
      'etc/rancher/rke2/config.yaml': 'cni: canal\nkubelet-arg:\n  - max-pods=150\n',
      'var/lib/rancher/rke2/agent/etc/kubelet.conf.d/00-rke2-defaults.conf': rke2Defaults,
      'var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml': manifest,
      'var/lib/rancher/rke2/agent/etc/containerd/config.toml': 'version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n',
      // rke2-canal's cni_network_config: "mtu" is veth_mtu, the chart's calico.vethuMTU 1450 (rancher/rke2-charts packages/rke2-canal).
      'etc/cni/net.d/10-canal.conflist': '{\n  "name": "k8s-pod-network",\n  "cniVersion": "0.3.1",\n  "plugins": [\n    {"type": "calico", "mtu": 1450, "ipam": {"type": "host-local", "subnet": "usePodCidr"}},\n    {"type": "portmap", "capabilities": {"portMappings": true}}\n  ]\n}\n',
      // What canal's kube-flannel (--kube-subnet-mgr) writes: flannel.1's MTU, eth0's 1500 minus 50.
      'run/flannel/subnet.env': 'FLANNEL_NETWORK=10.42.0.0/16\nFLANNEL_SUBNET=10.42.0.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n',
    },
    processes: [
      {name: 'rke2', argv0: '/usr/local/bin/rke2', args: ['agent']},
      // RKE2 runs the kubelet as its own process (rancher/rke2 pkg/podexecutor Kubelet): its three arguments, then k3s's
      // agent arguments with kubelet-arg merged in, sorted by name (k3s-io/k3s pkg/util GetArgs; kubeletArgsAndConfig
      // passes --config-dir and --read-only-port=0). NOTE: --cloud-provider/--node-ip depend on the CCM setting, left out.
      {name: 'kubelet', argv0: 'kubelet', args: ['--volume-plugin-dir=/var/lib/kubelet/volumeplugins', '--file-check-frequency=5s', '--sync-frequency=30s', '--config-dir=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d', '--hostname-override=rke2-1', '--kubeconfig=/var/lib/rancher/rke2/agent/kubelet.kubeconfig', '--max-pods=150', '--node-labels=', '--read-only-port=0']},
      {name: 'kube-proxy', argv0: 'kube-proxy', args: [...kubeProxyFlags]},
      {name: 'calico-node', argv0: 'calico-node', args: ['-felix']},
      // rke2-canal's kube-flannel arguments (rancher/rke2-charts packages/rke2-canal values.yaml flannel.args).
      {name: 'flanneld', argv0: '/opt/bin/flanneld', args: ['--ip-masq', '--kube-subnet-mgr', '--iptables-forward-rules=false', '--ip-blackhole-route']},
    ],
    network(ns, pods) {
      uplink(ns, '192.168.0.11')
      // canal: flannel VXLAN between nodes (flannel.1 with its VtepMAC, the route, neighbour and FDB entry per other
      // node), Calico's pod veths at canal's veth_mtu 1450 instead of cni0.
      flannelNetwork(ns, '10.42.0.0/24', ['10.42.1.0/24'], {own: RKE2_VTEP['rke2-1']!, others: [{mac: RKE2_VTEP['rke2-2']!, ip: '192.168.0.12'}]}, false)
      // --ip-blackhole-route: flanneld drops what is for this node's podCIDR but no pod here (Calico's /32s are more specific).
      ns.exec(['ip', 'route', 'add', 'blackhole', '10.42.0.0/24'])
      podVeth(ns, pods, 'cali5d0e7a9b1c2', '10.42.0.5', 1, 1450)
    },
    cluster: () =>
      clusterOf({
        nodes,
        serverVersion: 'v1.33.4+rke2r1',
        serviceCIDR: '10.43.0.0/16',
        apiServerIP: '10.43.0.1',
        dnsIP: '10.43.0.10',
        corednsIP: '10.42.0.5',
        daemonSets: [ds('rke2-canal', [{name: 'calico-node', image: 'rancher/hardened-calico:v3.30.3-build20250813'}, {name: 'kube-flannel', image: 'rancher/hardened-flannel:v0.27.1-build20250813'}])],
        pods: [mirror],
      }),
    rules: (c) => [kubeProxyRules(c, 'rke2-1', {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', mode: 'iptables', clusterCIDR: '10.42.0.0/16'}), KUBELET_CHAINS],
    kubeProxyMode: 'iptables',
    summary: 'RKE2 v1.33.4+rke2r1 · kube-proxy static pod, iptables · canal vxlan',
    flannelRoutes: {remove: ['10.42.1.0/24']},
    podMtuFault: {link: 'cali5d0e7a9b1c2', mtu: 1500},
    quietWithoutKubeletCmdline: ['KUBELET-007'],
    owner: 'kube-proxy',
    modeFault: {file: 'etc/rancher/rke2/config.yaml', append: 'kube-proxy-arg:\n  - proxy-mode=nftables\n', restart: /systemctl restart rke2-server/},
    dnsFile: 'var/lib/rancher/rke2/agent/etc/kubelet.conf.d/00-rke2-defaults.conf',
    dnsLine: '- 10.43.0.10',
  }
}

/** /etc/kubernetes/kubelet/config.json as nodeadm writes it (JSON; the drop-in adds the node's settings). */
const EKS_KUBELET = JSON.stringify(
  {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: '0.0.0.0',
    authentication: {anonymous: {enabled: false}, webhook: {cacheTTL: '2m0s', enabled: true}, x509: {clientCAFile: '/etc/kubernetes/pki/ca.crt'}},
    authorization: {mode: 'Webhook', webhook: {cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s'}},
    cgroupDriver: 'systemd',
    cgroupRoot: '/',
    clusterDNS: ['10.100.0.10'],
    clusterDomain: 'cluster.local',
    containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
    evictionHard: {'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%'},
    featureGates: {RotateKubeletServerCertificate: true},
    hairpinMode: 'hairpin-veth',
    protectKernelDefaults: true,
    readOnlyPort: 0,
    serializeImagePulls: false,
    serverTLSBootstrap: true,
    tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
  },
  null,
  4,
) + '\n'

function eksAl2023(): Layout {
  const info = {kubeletVersion: 'v1.33.5-eks-113cf36', osImage: 'Amazon Linux 2023.6.20241212'}
  const nodes = [
    plainNode('ip-10-0-12-34.ec2.internal', '10.0.12.34', undefined, {...info, providerID: 'aws:///us-east-1a/i-0abc1234def567890', labels: {'eks.amazonaws.com/nodegroup': 'ng-1'}}),
    plainNode('ip-10-0-12-56.ec2.internal', '10.0.12.56', undefined, {...info, providerID: 'aws:///us-east-1a/i-0def1234abc567890', labels: {'eks.amazonaws.com/nodegroup': 'ng-1'}}),
  ]
  const node = nodes[0]!.metadata.name
  const kpConfig = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclientConnection:\n  kubeconfig: /var/lib/kube-proxy/kubeconfig\nclusterCIDR: ""\nmode: iptables\n'
  return {
    name: 'EKS AL2023',
    node,
    files: {
      'etc/kubernetes/kubelet/config.json': EKS_KUBELET,
      'etc/kubernetes/kubelet/config.json.d/00-nodeadm.conf': JSON.stringify({apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', maxPods: 29, providerID: 'aws:///us-east-1a/i-0abc1234def567890'}, null, 4) + '\n',
      'usr/bin/nodeadm': '',
      'etc/containerd/config.toml': CONTAINERD_SYSTEMD,
      'etc/cni/net.d/10-aws.conflist': '{\n  "cniVersion": "0.4.0",\n  "name": "aws-cni",\n  "plugins": [\n    {"name": "aws-cni", "type": "aws-cni", "vethPrefix": "eni", "mtu": "9001"},\n    {"type": "egress-cni", "name": "egress-cni"},\n    {"type": "portmap", "capabilities": {"portMappings": true}, "snat": true}\n  ]\n}\n',
    },
    processes: [
      {name: 'kubelet', argv0: '/usr/bin/kubelet', args: ['--config', '/etc/kubernetes/kubelet/config.json', '--config-dir', '/etc/kubernetes/kubelet/config.json.d', '--kubeconfig', '/var/lib/kubelet/kubeconfig', '--image-credential-provider-bin-dir', '/etc/eks/image-credential-provider', '--image-credential-provider-config', '/etc/eks/image-credential-provider/config.json', '--node-ip=10.0.12.34', '--cloud-provider=external', `--hostname-override=${node}`]},
      {name: 'kube-proxy', argv0: 'kube-proxy', args: ['--v=2', '--config=/var/lib/kube-proxy-config/config', `--hostname-override=${node}`]},
      {name: 'aws-k8s-agent', argv0: './aws-k8s-agent', args: []},
    ],
    network(ns, pods) {
      uplink(ns, '10.0.12.34')
      podVeth(ns, pods, 'eni1f2e3d4c5b6', '10.0.12.50', 1)
    },
    cluster: () =>
      clusterOf({
        nodes,
        serverVersion: 'v1.33.5-eks-3025e55',
        serviceCIDR: '10.100.0.0/16',
        apiServerIP: '10.100.0.1',
        dnsIP: '10.100.0.10',
        corednsIP: '10.0.12.50',
        kubeProxy: {image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.33.5-eksbuild.2', configMap: {name: 'kube-proxy-config', key: 'config', text: kpConfig}},
        daemonSets: [ds('aws-node', [{name: 'aws-node', image: '602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.20.4-eksbuild.1'}])],
      }),
    rules: (c) => [kubeProxyRules(c, node, parseYaml(kpConfig) as Record<string, unknown>), KUBELET_CHAINS],
    kubeProxyMode: 'iptables',
    summary: 'EKS (AL2023) v1.33.5-eks-113cf36 · kube-proxy DaemonSet, iptables · aws-vpc-cni eni',
    owner: 'kube-proxy',
    dnsFile: 'etc/kubernetes/kubelet/config.json',
    dnsLine: '"10.100.0.10"',
  }
}

/** /home/kubernetes/kubelet-config.yaml as GKE writes it on COS (the parts the checks read). */
const GKE_KUBELET = `apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: /etc/srv/kubernetes/pki/ca-certificates.crt
authorization:
  mode: Webhook
cgroupRoot: /
clusterDNS:
- 34.118.224.10
clusterDomain: cluster.local
enableDebuggingHandlers: true
evictionHard:
  memory.available: 100Mi
  nodefs.available: 10%
  nodefs.inodesFree: 5%
  pid.available: 10%
featureGates:
  RotateKubeletServerCertificate: true
kind: KubeletConfiguration
kubeReserved:
  cpu: 1060m
  ephemeral-storage: 41Gi
  memory: 1019Mi
readOnlyPort: 10255
serverTLSBootstrap: true
staticPodPath: /etc/kubernetes/manifests
`

function gke(): Layout {
  const info = {kubeletVersion: 'v1.33.5-gke.1000', osImage: 'Container-Optimized OS from Google'}
  const labels = {'cloud.google.com/gke-nodepool': 'default-pool', 'cloud.google.com/gke-os-distribution': 'cos'}
  const nodes = [
    plainNode('gke-c1-default-pool-1a2b3c4d-x1y2', '10.128.0.11', '10.8.1.0/24', {...info, providerID: 'gce://proj-1/us-central1-a/gke-c1-default-pool-1a2b3c4d-x1y2', labels}),
    plainNode('gke-c1-default-pool-1a2b3c4d-z3w4', '10.128.0.12', '10.8.2.0/24', {...info, providerID: 'gce://proj-1/us-central1-a/gke-c1-default-pool-1a2b3c4d-z3w4', labels}),
  ]
  const node = nodes[0]!.metadata.name
  const kubeProxyFlags = ['--master=https://34.30.1.2', '--kubeconfig=/var/lib/kube-proxy/kubeconfig', '--cluster-cidr=10.8.0.0/14', '--oom-score-adj=-998', '--v=2', '--iptables-sync-period=1m', '--iptables-min-sync-period=10s', '--ipvs-sync-period=1m', '--ipvs-min-sync-period=10s', '--detect-local-mode=NodeCIDR']
  const image = 'gke.gcr.io/kube-proxy-amd64:v1.33.5-gke.1000'
  const manifest = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\n  labels:\n    component: kube-proxy\n    tier: node\nspec:\n  hostNetwork: true\n  containers:\n  - name: kube-proxy\n    image: ${image}\n    command:\n    - /bin/sh\n    - -c\n    - exec kube-proxy ${kubeProxyFlags.join(' ')} 1>>/var/log/kube-proxy.log 2>&1\n`
  const mirror: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: `kube-proxy-${node}`, namespace: 'kube-system', labels: {component: 'kube-proxy', tier: 'node'}, creationTimestamp: LONG_AGO},
    spec: {nodeName: node, hostNetwork: true, containers: [{name: 'kube-proxy', image, command: ['/bin/sh', '-c', `exec kube-proxy ${kubeProxyFlags.join(' ')} 1>>/var/log/kube-proxy.log 2>&1`]}]},
    status: {phase: 'Running', podIP: '10.128.0.11', conditions: [{type: 'Ready', status: 'True'}], containerStatuses: [{name: 'kube-proxy', ready: true, restartCount: 0, state: {running: {startedAt: LONG_AGO}}}]},
  } as Pod
  return {
    name: 'GKE-like (COS)',
    node,
    files: {
      'home/kubernetes/kubelet-config.yaml': GKE_KUBELET,
      'home/kubernetes/bin/.keep': '',
      'etc/kubernetes/manifests/kube-proxy.manifest': manifest,
      'etc/containerd/config.toml': CONTAINERD_SYSTEMD,
      'etc/cni/net.d/10-gke-ptp.conflist': '{\n  "name": "gke-pod-network",\n  "cniVersion": "0.3.1",\n  "plugins": [\n    {"type": "ptp", "mtu": 1460, "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.8.1.0/24"}]]}},\n    {"type": "portmap", "capabilities": {"portMappings": true}}\n  ]\n}\n',
    },
    processes: [
      {name: 'kubelet', argv0: '/home/kubernetes/bin/kubelet', args: ['--v=2', '--cert-dir=/var/lib/kubelet/pki/', '--kubeconfig=/var/lib/kubelet/kubeconfig', '--container-runtime-endpoint=unix:///run/containerd/containerd.sock', '--config', '/home/kubernetes/kubelet-config.yaml']},
      {name: 'kube-proxy', argv0: 'kube-proxy', args: [...kubeProxyFlags]},
    ],
    network(ns, pods) {
      uplink(ns, '10.128.0.11')
      podVeth(ns, pods, 'gke1a2b3c4d5e6', '10.8.1.5', 1)
    },
    cluster: () =>
      clusterOf({
        nodes,
        serverVersion: 'v1.33.5-gke.1000',
        serviceCIDR: '34.118.224.0/20',
        apiServerIP: '34.118.224.1',
        dnsIP: '34.118.224.10',
        corednsIP: '10.8.1.5',
        pods: [mirror],
      }),
    rules: (c) => [kubeProxyRules(c, node, {apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', clusterCIDR: '10.8.0.0/14', detectLocalMode: 'NodeCIDR'}), KUBELET_CHAINS],
    kubeProxyMode: 'iptables',
    summary: 'GKE (COS) v1.33.5-gke.1000 · kube-proxy static pod, iptables · gke ptp',
    owner: 'kube-proxy',
    dnsFile: 'home/kubernetes/kubelet-config.yaml',
    dnsLine: '- 34.118.224.10',
  }
}

function ciliumNode(name: string, ip: string, podCIDR: string, router: string): KubeObject {
  return {
    apiVersion: 'cilium.io/v2',
    kind: 'CiliumNode',
    metadata: {name},
    spec: {
      addresses: [
        {type: 'InternalIP', ip},
        {type: 'CiliumInternalIP', ip: router},
      ],
      ipam: {podCIDRs: [podCIDR]},
    },
  } as KubeObject
}

function ciliumKpr(): Layout {
  const nodes = [withNodeInfo(calicoNode('node-1', '192.168.0.11', {podCIDR: '10.0.1.0/24'}), 'v1.34.2', 'Ubuntu 24.04.1 LTS'), withNodeInfo(calicoNode('node-2', '192.168.0.12', {podCIDR: '10.0.2.0/24'}), 'v1.34.2', 'Ubuntu 24.04.1 LTS')]
  for (const n of nodes) delete n.metadata.annotations
  return {
    name: 'Cilium kube-proxy replacement',
    node: 'node-1',
    files: {
      'var/lib/kubelet/config.yaml': KUBEADM_KUBELET,
      'var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10"\n',
      'etc/containerd/config.toml': CONTAINERD_SYSTEMD,
      'etc/cni/net.d/05-cilium.conflist': '{\n  "cniVersion": "0.3.1",\n  "name": "cilium",\n  "plugins": [\n    {\n       "type": "cilium-cni",\n       "enable-debug": false,\n       "log-file": "/var/run/cilium/cilium-cni.log"\n    }\n  ]\n}\n',
    },
    processes: [
      {name: 'kubelet', argv0: '/usr/bin/kubelet', args: ['--kubeconfig=/etc/kubernetes/kubelet.conf', '--config=/var/lib/kubelet/config.yaml']},
      {name: 'cilium-agent', argv0: 'cilium-agent', args: ['--config-dir=/tmp/cilium/config-map']},
    ],
    network(ns) {
      uplink(ns, '192.168.0.11')
      const ip = (...a: string[]) => ns.exec(['ip', ...a])
      ip('link', 'add', 'cilium_host', 'address', mac(6), 'type', 'veth', 'peer', 'name', 'cilium_net', 'address', mac(7))
      ip('link', 'set', 'cilium_host', 'up')
      ip('link', 'set', 'cilium_net', 'up')
      ip('addr', 'add', '10.0.1.141/32', 'dev', 'cilium_host')
      ip('link', 'add', 'cilium_vxlan', 'type', 'vxlan', 'external', 'dstport', '8472')
      ip('link', 'set', 'cilium_vxlan', 'up')
      ip('route', 'add', '10.0.1.0/24', 'via', '10.0.1.141', 'dev', 'cilium_host', 'src', '10.0.1.141', 'mtu', '1450')
      ip('route', 'add', '10.0.2.0/24', 'via', '10.0.1.141', 'dev', 'cilium_host', 'src', '10.0.1.141', 'mtu', '1450')
    },
    cluster: () => ({
      ...clusterOf({
        nodes,
        serverVersion: 'v1.34.2',
        serviceCIDR: '10.96.0.0/12',
        apiServerIP: '10.96.0.1',
        dnsIP: '10.96.0.10',
        corednsIP: '10.0.1.5',
        daemonSets: [ds('cilium', [{name: 'cilium-agent', image: 'quay.io/cilium/cilium:v1.18.4'}])],
        configMaps: [
          cm('cilium-config', {'kube-proxy-replacement': 'true', 'routing-mode': 'tunnel', 'tunnel-protocol': 'vxlan', 'cluster-pool-ipv4-cidr': '10.0.0.0/8'}),
          cm('kubeadm-config', {ClusterConfiguration: 'kind: ClusterConfiguration\n'}),
          cm('kubelet-config', {kubelet: KUBEADM_KUBELET.replace('resolvConf: /run/systemd/resolve/resolv.conf\n', '')}),
        ],
      }),
      // The agents' CiliumNodes (cluster-pool IPAM): the pod CIDRs the routes on cilium_host above are for.
      ciliumNodes: [ciliumNode('node-1', '192.168.0.11', '10.0.1.0/24', '10.0.1.141'), ciliumNode('node-2', '192.168.0.12', '10.0.2.0/24', '10.0.2.17')],
    }),
    rules: () => [readFixture('layouts/iptables/cilium-clean.txt')],
    ciliumRoutes: {remove: ['10.0.2.0/24']},
    summary: 'kubeadm v1.34.2 · Services by Cilium (kube-proxy replacement) · cilium vxlan',
    owner: 'cilium',
    dnsFile: 'var/lib/kubelet/config.yaml',
    dnsLine: '- 10.96.0.10',
    leftovers: 'layouts/iptables/cilium-kube-proxy-leftovers.txt',
  }
}

export const LAYOUTS: Array<() => Layout> = [kubeadm, k3s, rke2, eksAl2023, gke, ciliumKpr]
