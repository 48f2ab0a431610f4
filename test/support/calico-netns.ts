// Builds node-a of the calico-dns-builders IP plan in a network namespace with the real `ip`, and captures the
// artifacts node-doctor collects (ip-route, ip-addr, ip-link). The kernel here has no ipip or dummy links, so tunl0
// is a veth stand-in; vxlan.calico is a real vxlan device; pod veths have their peer in a second namespace, as
// with a real CNI. MACs are fixed so the captures are reproducible.
import type {Netns} from './netns.js'
import {addDefaultRoute, addPodVeth, type CapturedNode, captureNode, setupNodeUplink, withNodeAndPods} from './node-netns.js'

export {type CapturedNode, captureNode} from './node-netns.js'

export interface CalicoNodeSetup {
  /** Pod interfaces: name (cali + 11 hex) → pod IP; each gets `<ip> dev <name> scope link` unless `routes` omit it. */
  workloads: Record<string, string>
  /** Extra `ip route add` argument lists, applied in order after the links exist. */
  routes: string[][]
  /** Add the vxlan.calico device with this VTEP address. */
  vxlanAddr?: string
  /** tunl0's address (the IPIP tunnel address); default 10.244.1.0, '' for none. */
  tunlAddr?: string
}

function mac(n: number): string {
  return `02:00:00:00:00:${n.toString(16).padStart(2, '0')}`
}

export function setupCalicoNode(ns: Netns, pods: Netns, setup: CalicoNodeSetup): void {
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  setupNodeUplink(ns, '192.168.0.11/24', mac)
  ip('link', 'add', 'tunl0', 'address', mac(3), 'type', 'veth', 'peer', 'name', 'tunl0-peer', 'address', mac(4))
  ip('link', 'set', 'tunl0', 'mtu', '1480', 'up')
  ip('link', 'set', 'tunl0-peer', 'up')
  if (setup.tunlAddr !== '') ip('addr', 'add', `${setup.tunlAddr ?? '10.244.1.0'}/32`, 'dev', 'tunl0')
  if (setup.vxlanAddr) {
    ip('link', 'add', 'vxlan.calico', 'address', mac(5), 'type', 'vxlan', 'id', '4096', 'dstport', '4789', 'dev', 'eth0')
    ip('link', 'set', 'vxlan.calico', 'mtu', '1450', 'up')
    ip('addr', 'add', `${setup.vxlanAddr}/32`, 'dev', 'vxlan.calico')
  }
  let n = 16
  // Calico gives pods the smallest MTU of its enabled tunnels (Felix determinePodMTU): VXLAN 1450, else IPIP 1480.
  const podMtu = setup.vxlanAddr ? '1450' : '1480'
  for (const name of Object.keys(setup.workloads)) {
    const hostMac = mac(n++)
    addPodVeth(ns, pods, {host: name, peer: `eth${n}`, mtu: podMtu, hostMac, peerMac: mac(n + 64)})
  }
  addDefaultRoute(ns, '192.168.0.11')
  for (const r of setup.routes) ip('route', 'add', ...r)
}

/** Sets the node up in fresh namespaces, captures it, and removes the namespaces. */
export function captureCalicoNode(setup: CalicoNodeSetup): CapturedNode {
  return withNodeAndPods('nd-rt', (ns, pods) => {
    setupCalicoNode(ns, pods, setup)
    return captureNode(ns)
  })
}

/** `ip route add` arguments for a pod's /32 to its cali interface. */
export function podRoute(ip: string, dev: string): string[] {
  return [ip, 'dev', dev, 'scope', 'link']
}
