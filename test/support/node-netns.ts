// What every scenario node built in a network namespace shares (test/support/calico-netns.ts, cni-netns.ts and the
// Cilium fixtures): the uplink eth0, the DHCP-style default route, pod veth pairs with their peer in a second
// namespace, and the capture of the collection plan's link/address/route artifacts. MACs are given by the caller so
// each scenario family keeps its own fixed, reproducible ones.
import {createNetns, type Netns} from './netns.js'

export type CapturedNode = {
  'ip-route': string
  'ip-addr': string
  'ip-link': string
}

/** IPv6 off, forwarding on (as on every Kubernetes node), lo up, and eth0 (a veth whose peer eth0-peer stays here) holding `cidr`. */
export function setupNodeUplink(ns: Netns, cidr: string, mac: (n: number) => string): void {
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  ns.exec(['sysctl', '-q', '-w', 'net.ipv6.conf.default.disable_ipv6=1', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv4.ip_forward=1'])
  ip('link', 'set', 'lo', 'up')
  ip('link', 'add', 'eth0', 'address', mac(1), 'type', 'veth', 'peer', 'name', 'eth0-peer', 'address', mac(2))
  ip('link', 'set', 'eth0', 'up')
  ip('link', 'set', 'eth0-peer', 'up')
  ip('addr', 'add', cidr, 'dev', 'eth0')
}

/** The default route as a DHCP client installs it: via the gateway 192.168.0.1 on eth0, source `src`, metric 100. */
export function addDefaultRoute(ns: Netns, src: string): void {
  ns.exec(['ip', 'route', 'add', 'default', 'via', '192.168.0.1', 'dev', 'eth0', 'proto', 'dhcp', 'src', src, 'metric', '100'])
}

export interface PodVeth {
  /** The host end, left in the node's namespace (cali…, veth…, eni…). */
  host: string
  /** The pod end, moved into the pods' namespace. */
  peer: string
  hostMac: string
  peerMac: string
  /** The MTU the CNI gives both ends; the kernel default (1500) when absent. */
  mtu?: string
  /** A bridge the host end is enslaved to (cni0). */
  master?: string
}

/** A pod's veth pair as a CNI plugin makes it: the host end in `ns`, the pod end in `pods`, both up. */
export function addPodVeth(ns: Netns, pods: Netns, v: PodVeth): void {
  const mtu = v.mtu ? ['mtu', v.mtu] : []
  ns.exec(['ip', 'link', 'add', v.host, ...mtu, 'address', v.hostMac, 'type', 'veth', 'peer', 'name', v.peer, ...mtu, 'address', v.peerMac, 'netns', pods.name])
  ns.exec(['ip', 'link', 'set', v.host, ...(v.master ? ['master', v.master] : []), 'up'])
  pods.exec(['ip', 'link', 'set', v.peer, 'up'])
}

/** The node's routes, addresses and links exactly as the collection plan's commands print them. */
export function captureNode(ns: Netns): CapturedNode {
  return {
    'ip-route': ns.exec(['ip', '-d', 'route', 'show', 'table', 'all']),
    'ip-addr': ns.exec(['ip', '-j', 'addr', 'show']),
    'ip-link': ns.exec(['ip', '-j', '-d', 'link', 'show']),
  }
}

/** Runs `build` on a node namespace `<prefix>-…` and its pods' namespace `<prefix>p-…`, and removes both afterwards. */
export function withNodeAndPods<T>(prefix: string, build: (ns: Netns, pods: Netns) => T): T {
  const ns = createNetns(prefix)
  const pods = createNetns(`${prefix}p`)
  try {
    return build(ns, pods)
  } finally {
    pods.destroy()
    ns.destroy()
  }
}
