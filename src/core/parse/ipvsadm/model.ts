// The ipvsadm model (virtual servers holding real servers), its key order and service identity.
import type {IpFamily} from '../../net/ip.js'

export type IpvsFormat =
  | 'list'
  | 'list-stats'
  | 'list-rate'
  | 'list-thresholds'
  | 'list-persistent-conn'
  | 'list-tun-info'
  | 'save'

export type IpvsProtocol = 'tcp' | 'udp' | 'sctp'
export type IpvsFamily = IpFamily

/**
 * How packets reach a real server. `gatewaying` comes only from the save form, where `-g` stands for both
 * direct routing (Route) and a local real server (Local): the two cannot be told apart there.
 */
export type IpvsForward = 'masq' | 'local' | 'route' | 'tunnel' | 'gatewaying'

/** `--stats` counters. `approximate` when ipvsadm scaled a value with K/M/G/T (no `--exact`). */
export interface IpvsStats {
  connections: number
  inPackets: number
  outPackets: number
  inBytes: number
  outBytes: number
  approximate?: true
}

/** `--rate` per-second rates. */
export interface IpvsRates {
  connectionsPerSecond: number
  inPacketsPerSecond: number
  outPacketsPerSecond: number
  inBytesPerSecond: number
  outBytesPerSecond: number
  approximate?: true
}

export interface IpvsRealServer {
  address: string
  port: number
  family: IpvsFamily
  /** Pasted `ipvsadm -L` without -n (lenient read only): `address` is a host name, possibly cut; not an address. */
  hostName?: true
  /** Pasted `ipvsadm -L` without -n: the service name printed for the port; `port` is its number, 0 when unknown. */
  portName?: string
  /** Absent in the variants that do not print it (stats, rate, thresholds, persistent-conn). */
  forward?: IpvsForward
  weight?: number
  activeConnections?: number
  inactiveConnections?: number
  persistentConnections?: number
  upperThreshold?: number
  lowerThreshold?: number
  /** `--tun-info` column or save-form `--tun-*` options, verbatim. */
  tunnel?: string
  stats?: IpvsStats
  rates?: IpvsRates
  line: number
}

export interface IpvsPersistence {
  timeoutSeconds: number
  /** IPv4 dotted mask or IPv6 prefix length, only when not the default (255.255.255.255 / 128). */
  netmask?: string
  /** Persistence engine (`pe sip`). */
  engine?: string
}

export interface IpvsVirtualServer {
  /** Stable identity for set comparisons: `TCP 10.96.0.1:443`, `UDP [fd00::a]:53`, `FWM 10`, `FWM 10 IPv6`. */
  id: string
  protocol: IpvsProtocol | 'fwmark'
  family: IpvsFamily
  address?: string
  port?: number
  /** As IpvsRealServer.hostName. */
  hostName?: true
  /** As IpvsRealServer.portName. */
  portName?: string
  fwmark?: number
  /** Absent in the variants that do not print it (stats, rate). */
  scheduler?: string
  schedulerFlags: string[]
  persistence?: IpvsPersistence
  onePacket: boolean
  stats?: IpvsStats
  rates?: IpvsRates
  realServers: IpvsRealServer[]
  line: number
}

export interface IpvsTable {
  format: IpvsFormat
  /** From `IP Virtual Server version 1.2.1 (size=4096)`, when printed. */
  version?: string
  connectionTableSize?: number
  /** In input order (ipvsadm's own order is not numeric; compare as sets by `id`). */
  virtualServers: IpvsVirtualServer[]
}

export const VS_KEYS: ReadonlyArray<keyof IpvsVirtualServer> = [
  'id',
  'protocol',
  'family',
  'address',
  'port',
  'hostName',
  'portName',
  'fwmark',
  'scheduler',
  'schedulerFlags',
  'persistence',
  'onePacket',
  'stats',
  'rates',
  'realServers',
  'line',
]
export const RS_KEYS: ReadonlyArray<keyof IpvsRealServer> = [
  'address',
  'port',
  'family',
  'hostName',
  'portName',
  'forward',
  'weight',
  'activeConnections',
  'inactiveConnections',
  'persistentConnections',
  'upperThreshold',
  'lowerThreshold',
  'tunnel',
  'stats',
  'rates',
  'line',
]

/** Canonical identity of a virtual service, as used in `IpvsVirtualServer.id`. */
export function ipvsServiceId(vs: Pick<IpvsVirtualServer, 'protocol' | 'family' | 'address' | 'port' | 'fwmark'>): string {
  if (vs.protocol === 'fwmark') return `FWM ${vs.fwmark ?? 0}${vs.family === 'ipv6' ? ' IPv6' : ''}`
  return `${vs.protocol.toUpperCase()} ${formatAddrPort(vs.address ?? '', vs.port ?? 0, vs.family)}`
}

export function formatAddrPort(address: string, port: number, family: IpvsFamily): string {
  return family === 'ipv6' ? `[${address}]:${port}` : `${address}:${port}`
}
