// The ipsets kube-proxy's IPVS proxier creates, in its ipsetInfo order, with their types and the comments its
// iptables rules carry. Mirrors pkg/proxy/ipvs/ipset.go (names, comments, the KUBE-6- prefix) and
// pkg/proxy/ipvs/ipset/ipset.go (Entry.String forms, CreateSet options: hashsize 1024, maxelem 65536, range 0-65535).
import type {IpFamily} from '../../net/ip.js'

export type IpsetType = 'hash:ip' | 'hash:ip,port' | 'hash:ip,port,ip' | 'hash:ip,port,net' | 'bitmap:port'

export const KUBE_LOOP_BACK = 'KUBE-LOOP-BACK'
export const KUBE_CLUSTER_IP = 'KUBE-CLUSTER-IP'
export const KUBE_EXTERNAL_IP = 'KUBE-EXTERNAL-IP'
export const KUBE_EXTERNAL_IP_LOCAL = 'KUBE-EXTERNAL-IP-LOCAL'
export const KUBE_LOAD_BALANCER = 'KUBE-LOAD-BALANCER'
export const KUBE_LOAD_BALANCER_FW = 'KUBE-LOAD-BALANCER-FW'
export const KUBE_LOAD_BALANCER_LOCAL = 'KUBE-LOAD-BALANCER-LOCAL'
export const KUBE_LOAD_BALANCER_SOURCE_IP = 'KUBE-LOAD-BALANCER-SOURCE-IP'
export const KUBE_LOAD_BALANCER_SOURCE_CIDR = 'KUBE-LOAD-BALANCER-SOURCE-CIDR'
export const KUBE_NODE_PORT_TCP = 'KUBE-NODE-PORT-TCP'
export const KUBE_NODE_PORT_LOCAL_TCP = 'KUBE-NODE-PORT-LOCAL-TCP'
export const KUBE_NODE_PORT_UDP = 'KUBE-NODE-PORT-UDP'
export const KUBE_NODE_PORT_LOCAL_UDP = 'KUBE-NODE-PORT-LOCAL-UDP'
export const KUBE_NODE_PORT_SCTP = 'KUBE-NODE-PORT-SCTP-HASH'
export const KUBE_NODE_PORT_LOCAL_SCTP = 'KUBE-NODE-PORT-LOCAL-SCTP-HASH'
export const KUBE_HEALTH_CHECK_NODE_PORT = 'KUBE-HEALTH-CHECK-NODE-PORT'
export const KUBE_IPVS_IPS = 'KUBE-IPVS-IPS'

export interface IpsetInfo {
  /** The IPv4 name; see ipsetName for the family's. */
  base: string
  type: IpsetType
  comment: string
}

/** ipsetInfo, in kube-proxy's order. */
export const IPSET_INFO: readonly IpsetInfo[] = [
  {base: KUBE_LOOP_BACK, type: 'hash:ip,port,ip', comment: 'Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose'},
  {base: KUBE_CLUSTER_IP, type: 'hash:ip,port', comment: 'Kubernetes service cluster ip + port for masquerade purpose'},
  {base: KUBE_EXTERNAL_IP, type: 'hash:ip,port', comment: 'Kubernetes service external ip + port for masquerade and filter purpose'},
  {base: KUBE_EXTERNAL_IP_LOCAL, type: 'hash:ip,port', comment: 'Kubernetes service external ip + port with externalTrafficPolicy=local'},
  {base: KUBE_LOAD_BALANCER, type: 'hash:ip,port', comment: 'Kubernetes service lb portal'},
  {base: KUBE_LOAD_BALANCER_FW, type: 'hash:ip,port', comment: 'Kubernetes service load balancer ip + port for load balancer with sourceRange'},
  {base: KUBE_LOAD_BALANCER_LOCAL, type: 'hash:ip,port', comment: 'Kubernetes service load balancer ip + port with externalTrafficPolicy=local'},
  {base: KUBE_LOAD_BALANCER_SOURCE_IP, type: 'hash:ip,port,ip', comment: 'Kubernetes service load balancer ip + port + source IP for packet filter purpose'},
  {base: KUBE_LOAD_BALANCER_SOURCE_CIDR, type: 'hash:ip,port,net', comment: 'Kubernetes service load balancer ip + port + source cidr for packet filter purpose'},
  {base: KUBE_NODE_PORT_TCP, type: 'bitmap:port', comment: 'Kubernetes nodeport TCP port for masquerade purpose'},
  {base: KUBE_NODE_PORT_LOCAL_TCP, type: 'bitmap:port', comment: 'Kubernetes nodeport TCP port with externalTrafficPolicy=local'},
  {base: KUBE_NODE_PORT_UDP, type: 'bitmap:port', comment: 'Kubernetes nodeport UDP port for masquerade purpose'},
  {base: KUBE_NODE_PORT_LOCAL_UDP, type: 'bitmap:port', comment: 'Kubernetes nodeport UDP port with externalTrafficPolicy=local'},
  {base: KUBE_NODE_PORT_SCTP, type: 'hash:ip,port', comment: "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'"},
  {base: KUBE_NODE_PORT_LOCAL_SCTP, type: 'hash:ip,port', comment: "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'"},
  {base: KUBE_HEALTH_CHECK_NODE_PORT, type: 'bitmap:port', comment: 'Kubernetes health check node port'},
  {base: KUBE_IPVS_IPS, type: 'hash:ip', comment: 'Addresses on the ipvs interface'},
]

const BY_BASE = new Map(IPSET_INFO.map((i) => [i.base, i]))

export function ipsetInfo(base: string): IpsetInfo {
  const info = BY_BASE.get(base)
  if (!info) throw new Error(`unknown ipset ${base}`)
  return info
}

/** The set's name for a family: IPv6 sets swap `KUBE-` for `KUBE-6-` and are cut to ipset's 31 characters. */
export function ipsetName(base: string, family: IpFamily): string {
  if (family === 'ipv4') return base
  return base.replace(/^KUBE-/, 'KUBE-6-').slice(0, 31)
}

/** Whether a set name is one of the IPVS proxier's sets for `family`. */
export function isKubeIpset(name: string, family: IpFamily): boolean {
  return IPSET_INFO.some((i) => ipsetName(i.base, family) === name)
}

/** The options kube-proxy's CreateSet passes after the type. */
export function ipsetCreateOptions(type: IpsetType, family: IpFamily): string {
  return type === 'bitmap:port' ? 'range 0-65535' : `family ${family === 'ipv6' ? 'inet6' : 'inet'} hashsize 1024 maxelem 65536`
}

/** Entry.String() for `ip,proto:port` (hash:ip,port). */
export function ipPortEntry(ip: string, protocol: string, port: number): string {
  return `${ip},${protocol}:${port}`
}
