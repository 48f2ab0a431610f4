// The node's overlay (tunnel) devices and its underlay: which links encapsulate pod traffic, with what overhead, and
// which link carries the node's own address. Shared by the reverse-path (NODE-005) and MTU (NODE-007) checks.
import type {Node} from '../../model/k8s.js'
import type {ClusterSnapshot} from '../../model/snapshot.js'
import type {LinkTable, NetInterface} from '../../parse/links.js'
import {normalizeIp} from '../dns/pods.js'

export type Encapsulation = 'ipip' | 'vxlan' | 'wireguard' | 'geneve'

export interface OverlayDevice {
  iface: NetInterface
  encapsulation: Encapsulation
  /** Outer header family: the underlay address the tunnel sends from. */
  outer: 'ipv4' | 'ipv6'
  /** Bytes the encapsulation adds to every packet; for Geneve the minimum (options add more). */
  overhead: number
  /** Who creates it, for messages. */
  owner: string
}

// Overheads as Felix computes its tunnel MTUs (felix/dataplane/linux/int_dataplane.go: ipipMTUOverhead 20,
// vxlanMTUOverhead 50, vxlanV6MTUOverhead 70, wireguardMTUOverhead 60, wireguardV6MTUOverhead 80); flannel uses the
// same VXLAN and WireGuard figures. Geneve is 50 plus its options.
const BY_NAME: ReadonlyArray<{match: (n: string) => boolean; encapsulation: Encapsulation; outer: 'ipv4' | 'ipv6'; overhead: number; owner: string}> = [
  {match: (n) => n === 'tunl0', encapsulation: 'ipip', outer: 'ipv4', overhead: 20, owner: 'Calico IPIP'},
  {match: (n) => n === 'vxlan.calico', encapsulation: 'vxlan', outer: 'ipv4', overhead: 50, owner: 'Calico VXLAN'},
  {match: (n) => n === 'vxlan-v6.calico', encapsulation: 'vxlan', outer: 'ipv6', overhead: 70, owner: 'Calico VXLAN (IPv6)'},
  {match: (n) => n === 'wireguard.cali', encapsulation: 'wireguard', outer: 'ipv4', overhead: 60, owner: 'Calico WireGuard'},
  {match: (n) => n === 'wg-v6.cali', encapsulation: 'wireguard', outer: 'ipv6', overhead: 80, owner: 'Calico WireGuard (IPv6)'},
  {match: (n) => n === 'flannel.1', encapsulation: 'vxlan', outer: 'ipv4', overhead: 50, owner: 'flannel VXLAN'},
  {match: (n) => n === 'flannel-v6.1', encapsulation: 'vxlan', outer: 'ipv6', overhead: 70, owner: 'flannel VXLAN (IPv6)'},
  {match: (n) => n === 'flannel-wg', encapsulation: 'wireguard', outer: 'ipv4', overhead: 60, owner: 'flannel WireGuard'},
  {match: (n) => n === 'flannel-wg-v6', encapsulation: 'wireguard', outer: 'ipv6', overhead: 80, owner: 'flannel WireGuard (IPv6)'},
]

/** Cilium's tunnel devices: Cilium limits the pod MTU on the pods' routes, not on these devices (see NODE-007). */
export function isCiliumTunnel(name: string): boolean {
  return name === 'cilium_vxlan' || name === 'cilium_geneve' || name.startsWith('genev_sys_') || name.startsWith('vxlan_sys_')
}

/**
 * The overlay devices among the links: the CNIs' tunnels by name (tunl0 also when it is not an ipip link, as in test
 * namespaces without the ipip module), else any ipip/vxlan/wireguard/geneve link by kind. Only links that are UP:
 * the ipip module creates tunl0 DOWN and unused on every node where it is loaded.
 */
export function overlayDevices(links: LinkTable): OverlayDevice[] {
  const out: OverlayDevice[] = []
  for (const iface of links.interfaces) {
    if (!iface.flags.includes('UP')) continue
    const named = BY_NAME.find((b) => b.match(iface.name))
    if (named) {
      out.push({iface, encapsulation: named.encapsulation, outer: named.outer, overhead: named.overhead, owner: named.owner})
      continue
    }
    if (isCiliumTunnel(iface.name)) {
      out.push({iface, encapsulation: iface.name.includes('vxlan') ? 'vxlan' : 'geneve', outer: 'ipv4', overhead: 50, owner: 'Cilium'})
      continue
    }
    const kind = iface.kind
    if (kind === 'ipip') out.push({iface, encapsulation: 'ipip', outer: 'ipv4', overhead: 20, owner: 'an ipip tunnel'})
    else if (kind === 'vxlan') out.push({iface, encapsulation: 'vxlan', outer: 'ipv4', overhead: 50, owner: 'a vxlan device'})
    else if (kind === 'wireguard') out.push({iface, encapsulation: 'wireguard', outer: 'ipv4', overhead: 60, owner: 'a WireGuard device'})
    else if (kind === 'geneve') out.push({iface, encapsulation: 'geneve', outer: 'ipv4', overhead: 50, owner: 'a Geneve device'})
  }
  return out
}

/** The Node's InternalIP of a family (the address other nodes and the CNI use for it), if it has one. */
export function internalIp(cluster: ClusterSnapshot, node: string, family: 'ipv4' | 'ipv6'): string | undefined {
  const n: Node | undefined = cluster.nodes.find((x) => x.metadata.name === node)
  return (n?.status?.addresses ?? []).find((a) => a.type === 'InternalIP' && a.address.includes(':') === (family === 'ipv6'))?.address
}

/** The interface that carries `address` (from `ip -j addr`), if any. */
export function interfaceWithAddress(addrs: LinkTable, address: string): NetInterface | undefined {
  const want = normalizeIp(address) ?? address
  return addrs.interfaces.find((i) => i.addresses.some((a) => (normalizeIp(a.local) ?? a.local) === want))
}
