// The IPVS diff (ipvs.ts) as `proxy diff` shows it: per Service port, each virtual server that differs (VIP:port
// and protocol, the scheduler kube-proxy would set) with its real servers expected vs present, then that port's
// kube-ipvs0 addresses and ipset members; what no Service port owns (stale virtual servers, addresses and set
// members, the kube-ipvs0 link or a whole set, the iptables rules) comes first. Pure: the differences diffIpvs found
// and the expected states they were found against, nothing compared again. Text is left to the renderer.
import {type IpvsDifference, rsKey} from './ipvs.js'
import type {ExpectedVirtualServer, IpvsState} from '../proxier/ipvs/generate.js'

/** One real server line: `-` expected but absent (or at another weight), `+` on the node but not expected as is. */
export interface IpvsRealServerLine {
  sign: '-' | '+'
  /** `10.0.2.9:8080`; for a stale virtual server's, as the diff lists them (`10.0.9.9:80 weight 1`). */
  rs: string
  weight?: number
}

/** A virtual server setting that differs: `-` kube-proxy's value, `+` the node's (absent: none set). */
export interface IpvsSettingLine {
  sign: '-' | '+'
  setting: 'scheduler' | 'persistence'
  value?: string
}

export interface IpvsVirtualServerDiff {
  /** `TCP 172.30.0.10:80`. */
  vs: string
  /** The scheduler kube-proxy sets (`rr`, `mh (mh-port)`); absent for a stale virtual server. */
  scheduler?: string
  /** The whole virtual server is missing on the node (`-`) or there but not expected (`+`, stale). */
  whole?: '-' | '+'
  settings: IpvsSettingLine[]
  realServers: IpvsRealServerLine[]
}

/** The differences outside virtual servers, as diffIpvs gives them. */
export type IpvsOtherDifference = Exclude<
  IpvsDifference,
  {kind: 'missing-virtual-server' | 'stale-virtual-server' | 'missing-real-server' | 'extra-real-server' | 'wrong-weight' | 'wrong-scheduler' | 'wrong-persistence'}
>

export interface IpvsServiceDiff {
  /** kube-proxy's service-port name (`ns/name:port`); absent for what no Service port owns. */
  service?: string
  virtualServers: IpvsVirtualServerDiff[]
  /** kube-ipvs0, ipset and iptables differences of this group, in diffIpvs's order. */
  other: IpvsOtherDifference[]
}

function schedulerOf(vs: ExpectedVirtualServer): string {
  const flags = [...vs.schedulerFlags].sort()
  return flags.length > 0 ? `${vs.scheduler} (${flags.join(',')})` : vs.scheduler
}

/**
 * Groups the differences per Service port and virtual server. `states` are the expected states the differences were
 * found against (one per family on a dual-stack node): they give each virtual server's scheduler and real-server
 * weights. Groups: the unowned one first, then by name; virtual servers and lines in diffIpvs's order.
 */
export function ipvsDiffByService(states: readonly IpvsState[], differences: readonly IpvsDifference[]): IpvsServiceDiff[] {
  const expected = new Map<string, ExpectedVirtualServer>()
  for (const s of states) for (const vs of s.virtualServers) expected.set(vs.id, vs)
  const groups = new Map<string | undefined, IpvsServiceDiff>()
  const group = (service: string | undefined): IpvsServiceDiff => {
    let g = groups.get(service)
    if (!g) groups.set(service, (g = {...(service === undefined ? {} : {service}), virtualServers: [], other: []}))
    return g
  }
  const server = (service: string | undefined, vs: string): IpvsVirtualServerDiff => {
    const g = group(service)
    let v = g.virtualServers.find((x) => x.vs === vs)
    if (!v) {
      const exp = expected.get(vs)
      g.virtualServers.push((v = {vs, ...(exp ? {scheduler: schedulerOf(exp)} : {}), settings: [], realServers: []}))
    }
    return v
  }
  const weightOf = (id: string, rs: string): number | undefined => {
    const vs = expected.get(id)
    return vs?.realServers.find((r) => rsKey(r.address, r.port, vs.family) === rs)?.weight
  }
  for (const d of differences) {
    switch (d.kind) {
      case 'missing-virtual-server': {
        const v = server(d.group, d.vs)
        v.whole = '-'
        v.realServers.push(...d.expected.realServers.map((r): IpvsRealServerLine => ({sign: '-', rs: rsKey(r.address, r.port, d.expected.family), weight: r.weight})))
        break
      }
      case 'stale-virtual-server': {
        const v = server(undefined, d.vs)
        v.whole = '+'
        v.realServers.push(...d.realServers.map((rs): IpvsRealServerLine => ({sign: '+', rs})))
        break
      }
      case 'missing-real-server': {
        const weight = weightOf(d.vs, d.rs)
        server(d.group, d.vs).realServers.push({sign: '-', rs: d.rs, ...(weight !== undefined ? {weight} : {})})
        break
      }
      case 'extra-real-server':
        server(d.group, d.vs).realServers.push({sign: '+', rs: d.rs, ...(d.weight !== undefined ? {weight: d.weight} : {})})
        break
      case 'wrong-weight':
        server(d.group, d.vs).realServers.push({sign: '-', rs: d.rs, weight: d.expected}, {sign: '+', rs: d.rs, weight: d.actual})
        break
      case 'wrong-scheduler':
        server(d.group, d.vs).settings.push({sign: '-', setting: 'scheduler', value: d.expected}, {sign: '+', setting: 'scheduler', value: d.actual})
        break
      case 'wrong-persistence':
        server(d.group, d.vs).settings.push(
          {sign: '-', setting: 'persistence', ...(d.expected !== undefined ? {value: `${d.expected}s`} : {})},
          {sign: '+', setting: 'persistence', ...(d.actual !== undefined ? {value: `${d.actual}s`} : {})},
        )
        break
      default:
        group('group' in d ? d.group : undefined).other.push(d)
    }
  }
  // Sorted as entries: Array.prototype.sort puts undefined elements last without asking the comparator.
  const entries = [...groups.entries()].sort(([a], [b]) => (a === b ? 0 : a === undefined ? -1 : b === undefined ? 1 : a < b ? -1 : 1))
  return entries.map(([, g]) => g)
}

