// Builds node-a of the flannel / VPC-CNI scenarios in a network namespace with the real `ip` and `bridge`, and
// captures what the collection plan collects (ip-route, ip-addr, ip-link, ip-neigh, bridge-fdb). flannel.1 is a real
// vxlan device (VNI 1, port 8472, nolearning, as flanneld creates it), cni0 a real bridge with the pods' veths
// enslaved; neighbour and FDB entries are added the way flanneld adds them (PERMANENT neighbour, `self permanent` FDB
// entry). VPC pods get an `eni…`/`azv…` veth each with the peer in a second namespace. MACs are fixed.
import type {Netns} from './netns.js'
import {addDefaultRoute, addPodVeth, type CapturedNode, captureNode, setupNodeUplink, withNodeAndPods} from './node-netns.js'

export interface CniNodeSetup {
  /** flannel.1 with this MAC (VtepMAC) and address (the podCIDR's network address /32). */
  vxlan?: {mac: string; addr: string}
  /** cni0 with this address (the podCIDR's first address, with the podCIDR's length). */
  bridge?: string
  /** Pods on cni0: their IPs (each gets a veth enslaved to cni0, the peer holds the IP). */
  bridgePods?: string[]
  /** Routed pods (VPC CNIs): host veth name → pod IP. Routes are added by `routes`. */
  routedPods?: Record<string, string>
  /** `ip neigh replace` per entry: [ip, mac] on flannel.1. */
  neighbours?: Array<[string, string]>
  /** `bridge fdb append` per entry: [mac, dst] on flannel.1. */
  fdb?: Array<[string, string]>
  /** `ip route add` argument lists, applied last. */
  routes: string[][]
}

export interface CapturedCniNode extends CapturedNode {
  'ip-neigh': string
  'bridge-fdb': string
}

const mac = (n: number) => `02:00:00:00:01:${n.toString(16).padStart(2, '0')}`

export function setupCniNode(ns: Netns, pods: Netns, s: CniNodeSetup): void {
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  setupNodeUplink(ns, '192.168.0.11/24', mac)
  if (s.vxlan) {
    ip('link', 'add', 'flannel.1', 'address', s.vxlan.mac, 'type', 'vxlan', 'id', '1', 'local', '192.168.0.11', 'dev', 'eth0', 'dstport', '8472', 'nolearning')
    ip('link', 'set', 'flannel.1', 'mtu', '1450', 'up')
    ip('addr', 'add', `${s.vxlan.addr}/32`, 'dev', 'flannel.1')
  }
  let n = 16
  if (s.bridge) {
    ip('link', 'add', 'cni0', 'address', mac(3), 'type', 'bridge')
    ip('link', 'set', 'cni0', 'mtu', '1450', 'up')
    ip('addr', 'add', s.bridge, 'dev', 'cni0')
    for (const podIp of s.bridgePods ?? []) {
      const host = `veth${n.toString(16).padStart(8, '0')}`
      // As the bridge plugin makes them under flannel: the veth at flannel's MTU (subnet.env FLANNEL_MTU, the
      // overlay's), and hairpin on (flannel delegates hairpinMode: true).
      addPodVeth(ns, pods, {host, peer: `eth${n}`, mtu: '1450', hostMac: mac(n), peerMac: mac(n + 64), master: 'cni0'})
      ip('link', 'set', host, 'type', 'bridge_slave', 'hairpin', 'on')
      pods.exec(['ip', 'addr', 'add', `${podIp}/32`, 'dev', `eth${n}`])
      n++
    }
  }
  for (const [host] of Object.entries(s.routedPods ?? {})) {
    addPodVeth(ns, pods, {host, peer: `eth${n}`, hostMac: mac(n), peerMac: mac(n + 64)})
    n++
  }
  addDefaultRoute(ns, '192.168.0.11')
  for (const [addr, lladdr] of s.neighbours ?? []) ip('neigh', 'replace', addr, 'lladdr', lladdr, 'dev', 'flannel.1', 'nud', 'permanent')
  for (const [m, dst] of s.fdb ?? []) ns.exec(['bridge', 'fdb', 'append', m, 'dev', 'flannel.1', 'dst', dst, 'self', 'permanent'])
  for (const r of s.routes) ip('route', 'add', ...r)
}

/** The node's artifacts exactly as the collection plan's commands print them. */
export function captureCniNode(ns: Netns): CapturedCniNode {
  return {
    ...captureNode(ns),
    'ip-neigh': ns.exec(['ip', '-j', 'neigh', 'show']),
    'bridge-fdb': ns.exec(['bridge', '-j', 'fdb', 'show']),
  }
}

/** Sets the node up in fresh namespaces, runs `extra` inside (text captures for parser fixtures), and removes them. */
export function withCniNode<T>(setup: CniNodeSetup, capture: (ns: Netns) => T): T {
  return withNodeAndPods('nd-cni', (ns, pods) => {
    setupCniNode(ns, pods, setup)
    return capture(ns)
  })
}
