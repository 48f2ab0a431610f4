// A live Calico cluster on the calico-dns-builders IP plan (live-cluster.ts startNetnsCluster): the API server holds a
// ClusterSnapshot's objects (Nodes with their plan addresses, pods, Services, EndpointSlices, IPPool, BlockAffinities,
// IPAMBlocks); every node is a network namespace with its own sshd, reached through the ssh config's HostName.
// A node is either a clean plan node (calicoPlanNode: Calico's IPIP routes as BIRD programs them) or whatever the
// test's setup builds (a route scenario's setupCalicoNode). Optionally kube-proxy's real iptables rules are loaded
// into every node, its endpoints run there, and it is deployed as kubeadm's DaemonSet that `fix kube-proxy` restarts.
import type {EndpointSlice, KubeObject} from '../../src/core/model/k8s.js'
import type {ClusterSnapshot} from '../../src/core/model/snapshot.js'
import {NODES, type NodeName} from './calico-dns-builders.js'
import {podRoute} from './calico-netns.js'
import type {FakeApiServerOptions} from './fake-apiserver.js'
import {withKubeProxyDaemonSet} from './fake-kube-proxy.js'
import {CONTAINERD_SYSTEMD, HEALTHY, kubeadmKubeletConfig, kubeletWorld, NODE, PACKAGED_EXTRA_ARGS, toYaml} from './kubelet-cases.js'
import {kubeProxyConfigMap, kubeProxyDaemonSet, kubeProxyRestore, type LiveCluster, type LiveNodeSpec, startNetnsCluster} from './live-cluster.js'
import type {Netns as PodsNetns} from './netns.js'
import type {NodeHost} from './node-host.js'

/** Every object of the snapshot the API server serves. */
export function snapshotObjects(c: ClusterSnapshot): KubeObject[] {
  return [...c.nodes, ...c.pods, ...c.services, ...c.endpointSlices, ...c.configMaps, ...c.daemonSets, ...c.calico.ipPools, ...c.calico.blockAffinities, ...c.calico.ipamBlocks] as KubeObject[]
}

/** kube-dns's slices with the Service's real ports (calico-dns-builders' endpointSlice gives every slice `p`). */
export function withDnsPorts(c: ClusterSnapshot): ClusterSnapshot {
  const ports: EndpointSlice['ports'] = [
    {name: 'dns', protocol: 'UDP', port: 53},
    {name: 'dns-tcp', protocol: 'TCP', port: 53},
  ]
  return {...c, endpointSlices: c.endpointSlices.map((s) => (s.metadata.name.startsWith('kube-dns') ? {...s, ports} : s))}
}

/**
 * A clean Calico (IPIP) node of the plan as calico-node programs it: eth0 at its address (default route via the
 * subnet's .1), tunl0 (a veth stand-in: no ipip links here) at its tunnel address, one cali veth per workload with
 * the pod's /32, the blackhole for its own block, and a route over tunl0 to each peer's block.
 */
export function calicoPlanNode(name: NodeName, workloads: Record<string, string>, peers: readonly NodeName[]): LiveNodeSpec {
  const self = NODES[name]
  return {
    name,
    setup(ns: PodsNetns, {pods}) {
      const ip = (...a: string[]) => ns.exec(['ip', ...a])
      ip('link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-peer')
      ip('link', 'set', 'eth0', 'up')
      ip('link', 'set', 'eth0-peer', 'up')
      ip('addr', 'add', `${self.ip}/24`, 'dev', 'eth0')
      ip('link', 'add', 'tunl0', 'type', 'veth', 'peer', 'name', 'tunl0-peer')
      ip('link', 'set', 'tunl0', 'mtu', '1480', 'up')
      ip('link', 'set', 'tunl0-peer', 'up')
      ip('addr', 'add', `${self.tunnel}/32`, 'dev', 'tunl0')
      let n = 1
      for (const [dev, addr] of Object.entries(workloads)) {
        // Calico gives IPIP pods the tunnel's MTU (Felix determinePodMTU): 1480, as tunl0.
        ip('link', 'add', dev, 'mtu', '1480', 'type', 'veth', 'peer', 'name', `eth${n}`, 'mtu', '1480', 'netns', pods().name)
        ip('link', 'set', dev, 'up')
        pods().exec(['ip', 'link', 'set', `eth${n++}`, 'up'])
        ip('route', 'add', ...podRoute(addr, dev))
      }
      ip('route', 'add', 'default', 'via', self.ip.replace(/\.\d+$/, '.1'), 'dev', 'eth0', 'src', self.ip)
      ip('route', 'add', 'blackhole', self.block, 'proto', 'bird')
      for (const peer of peers) ip('route', 'add', NODES[peer].block, 'via', NODES[peer].ip, 'dev', 'tunl0', 'proto', 'bird', 'onlink')
    },
  }
}

/**
 * A kubeadm node's kubelet as kubelet-cases' healthy world has it: config.yaml and kubeadm-flags.env as kubeadm
 * writes them, containerd on the systemd cgroup driver, the packaged (empty) /etc/sysconfig/kubelet, and the kubelet
 * running with kubeadm's flags.
 */
export function kubeadmKubeletHost(name: NodeName): NodeHost {
  const nodeIp = `--node-ip=${NODES[name].ip}`
  return {
    files: {
      'var/lib/kubelet/config.yaml': toYaml(kubeadmKubeletConfig()),
      'var/lib/kubelet/kubeadm-flags.env': `KUBELET_KUBEADM_ARGS="${nodeIp}"\n`,
      'etc/containerd/config.toml': CONTAINERD_SYSTEMD,
      [PACKAGED_EXTRA_ARGS.path.slice(1)]: PACKAGED_EXTRA_ARGS.text,
    },
    processes: [{name: 'kubelet', argv0: '/usr/bin/kubelet', args: ['--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf', '--kubeconfig=/etc/kubernetes/kubelet.conf', '--config=/var/lib/kubelet/config.yaml', nodeIp]}],
  }
}

/** The /configz body of the kubelet (at `kubeletVersion`) kubeadmKubeletHost runs: its files through the kubelet's defaulting and flags. */
export function kubeadmConfigz(kubeletVersion: string): unknown {
  return JSON.parse(kubeletWorld({...HEALTHY, kubeletVersion}).cluster.configz[NODE]!)
}

export interface LiveCalicoClusterOptions {
  cluster: ClusterSnapshot
  /** One spec per node, in order (calicoPlanNode, or a setup of the test's own). */
  nodes: readonly LiveNodeSpec[]
  /**
   * `rules`: kube-proxy's ConfigMap and DaemonSet join the snapshot, the rules kube-proxy (iptables mode) writes on
   * each node are loaded there, and its /healthz and /proxyMode endpoints run in each node. `daemonset`: that, and
   * kube-proxy runs as kubeadm's DaemonSet with a Ready pod per node, a DaemonSet controller, and a kubelet that
   * reloads the node's rules when it starts a replacement pod (so `fix kube-proxy` can restart it).
   */
  kubeProxy?: 'rules' | 'daemonset'
  api?: Omit<FakeApiServerOptions, 'objects'>
  tempPrefix?: string
}

export async function startLiveCalicoCluster(options: LiveCalicoClusterOptions): Promise<LiveCluster> {
  const {kubeProxy} = options
  const c: ClusterSnapshot = kubeProxy ? {...options.cluster, configMaps: [...options.cluster.configMaps, kubeProxyConfigMap()], daemonSets: [...options.cluster.daemonSets, kubeProxyDaemonSet()]} : options.cluster
  /** node → the rules kube-proxy programmed there, which a restarted kube-proxy restores. */
  const rules = new Map<string, string>()
  const namespaces = new Map<string, PodsNetns>()
  const nodes: LiveNodeSpec[] = options.nodes.map((spec) => ({
    ...spec,
    setup(node, context) {
      spec.setup?.(node, context)
      namespaces.set(spec.name, node)
      if (!kubeProxy) return
      const objects = {services: c.services, endpointSlices: c.endpointSlices, nodes: c.nodes, configMaps: c.configMaps, serviceCIDRs: [], daemonSets: c.daemonSets, other: []}
      rules.set(spec.name, kubeProxyRestore(objects, spec.name))
      node.exec(['iptables-restore'], rules.get(spec.name))
    },
  }))
  const daemonSet = kubeProxy === 'daemonset'
  const live = await startNetnsCluster({
    nodes,
    sshHostName: true,
    fakeKubeProxy: kubeProxy !== undefined,
    tempPrefix: options.tempPrefix,
    objects: () => (daemonSet ? withKubeProxyDaemonSet(snapshotObjects(c), nodes.map((n) => n.name)) : snapshotObjects(c)),
    api: daemonSet
      ? {
          daemonSetController: {delayMs: 20},
          kubelet: {startDelayMs: 200, onRunning: (_pod, node) => void namespaces.get(node.metadata.name)!.exec(['iptables-restore'], rules.get(node.metadata.name)!)},
          ...options.api,
        }
      : options.api,
  })
  if (daemonSet) {
    // The controller adopts the seeded pods: wait, so that a repair finds them owned.
    const proxyPods = () => live.api.objects().filter((o) => o.kind === 'Pod' && o.metadata.labels?.['k8s-app'] === 'kube-proxy')
    for (let i = 0; i < 100 && !proxyPods().every((p) => p.metadata.ownerReferences?.length); i++) await new Promise((r) => setTimeout(r, 20))
  }
  return live
}
