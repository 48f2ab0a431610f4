// The listings: `-Ln`, `--stats`, `--rate`, `--thresholds`, `--persistent-conn`, `--tun-info`.
import {ParseError} from '../../../errors.js'
import type {InputLine} from '../sniff.js'
import {type IpvsFamily, type IpvsForward, type IpvsFormat, type IpvsProtocol, type IpvsRates, type IpvsRealServer, type IpvsStats, type IpvsTable, type IpvsVirtualServer, ipvsServiceId} from './model.js'
import type {Leniency} from './leniency.js'
import {parseAddrPort, parseInt32, parseNetmask, parseUint} from './values.js'

/** `lenient` (pasted input only) accepts host and service names and skips real servers whose service was cut off. */
export function parseListing(lines: InputLine[], format: IpvsFormat, table: IpvsTable, lenient?: Leniency): void {
  let current: IpvsVirtualServer | undefined
  for (const line of lines) {
    const trimmed = line.text.trim()
    if (trimmed === '') continue
    const tok = trimmed.split(/\s+/)
    if (tok[0] === '->') {
      if (!current) {
        if (lenient) {
          lenient.orphan(line.n)
          continue
        }
        throw new ParseError('real server line before any virtual service line', line.n)
      }
      current.realServers.push(parseListRealServer(tok, format, current, line.n, lenient))
      continue
    }
    current = parseListService(tok, format, line.n, lenient)
    table.virtualServers.push(current)
  }
}

function parseListService(tok: string[], format: IpvsFormat, n: number, lenient?: Leniency): IpvsVirtualServer {
  const proto = tok[0] ?? ''
  let i = 1
  let vs: IpvsVirtualServer
  if (proto === 'FWM') {
    const mark = parseUint(tok[1], 'fwmark', n, 0xffffffff)
    i = 2
    let family: IpvsFamily = 'ipv4'
    if (tok[2] === 'IPv6') {
      family = 'ipv6'
      i = 3
    }
    vs = {id: '', protocol: 'fwmark', family, fwmark: mark, schedulerFlags: [], onePacket: false, realServers: [], line: n}
  } else if (proto === 'TCP' || proto === 'UDP' || proto === 'SCTP') {
    const a = parseAddrPort(tok[1], 'virtual service address', n, lenient)
    i = 2
    vs = {
      id: '',
      protocol: proto.toLowerCase() as IpvsProtocol,
      family: a.family,
      address: a.address,
      port: a.port,
      ...(a.hostName ? {hostName: a.hostName} : {}),
      ...(a.portName === undefined ? {} : {portName: a.portName}),
      schedulerFlags: [],
      onePacket: false,
      realServers: [],
      line: n,
    }
  } else {
    throw new ParseError(`unknown protocol "${proto.slice(0, 20)}": expected TCP, UDP, SCTP or FWM at the start of a service line`, n)
  }
  vs.id = ipvsServiceId(vs)
  const rest = tok.slice(i)
  // --thresholds and --persistent-conn print the service line like the plain listing (scheduler and flags).
  if (format === 'list-stats') vs.stats = parseStats(rest, n)
  else if (format === 'list-rate') vs.rates = parseRates(rest, n)
  else parseSchedulerPart(rest, vs, n)
  return vs
}

// `rr (flag-1,flag-2) persistent 10800 mask 255.255.255.0 pe sip ops`
function parseSchedulerPart(rest: string[], vs: IpvsVirtualServer, n: number): void {
  const sched = rest[0]
  if (sched === undefined) throw new ParseError(`service ${vs.id} has no scheduler: the line is truncated`, n)
  if (!/^[a-z][a-z0-9_-]*$/.test(sched)) throw new ParseError(`invalid scheduler name "${sched.slice(0, 30)}"`, n)
  vs.scheduler = sched
  let i = 1
  if (rest[i]?.startsWith('(')) {
    const f = rest[i]!
    if (!f.endsWith(')')) throw new ParseError(`unterminated scheduler flags "${f.slice(0, 40)}"`, n)
    vs.schedulerFlags = f.slice(1, -1).split(',').filter((x) => x !== '')
    i++
  }
  while (i < rest.length) {
    const word = rest[i]!
    if (word === 'persistent') {
      vs.persistence = {timeoutSeconds: parseUint(rest[i + 1], 'persistence timeout', n)}
      i += 2
    } else if (word === 'mask') {
      if (!vs.persistence) throw new ParseError('"mask" without "persistent"', n)
      vs.persistence.netmask = parseNetmask(rest[i + 1], vs.family, n)
      i += 2
    } else if (word === 'pe') {
      if (!vs.persistence) throw new ParseError('"pe" without "persistent"', n)
      const pe = rest[i + 1]
      if (pe === undefined) throw new ParseError('"pe" needs a persistence engine name', n)
      vs.persistence.engine = pe
      i += 2
    } else if (word === 'ops') {
      vs.onePacket = true
      i++
    } else {
      throw new ParseError(`unexpected "${word.slice(0, 30)}" in service ${vs.id}: expected persistent, mask, pe or ops`, n)
    }
  }
}

const FORWARDS: Record<string, IpvsForward> = {Masq: 'masq', Local: 'local', Route: 'route', Tunnel: 'tunnel'}

function parseListRealServer(tok: string[], format: IpvsFormat, vs: IpvsVirtualServer, n: number, lenient?: Leniency): IpvsRealServer {
  const a = parseAddrPort(tok[1], 'real server address', n, lenient)
  const rs: IpvsRealServer = {address: a.address, port: a.port, family: a.family, line: n}
  if (a.hostName) rs.hostName = a.hostName
  if (a.portName !== undefined) rs.portName = a.portName
  const rest = tok.slice(2)
  const want = (count: number, what: string): void => {
    if (rest.length < count) throw new ParseError(`real server ${tok[1]} of ${vs.id} is missing columns: expected ${what} (the line is truncated)`, n)
    if (rest.length > count) throw new ParseError(`real server ${tok[1]} of ${vs.id} has extra columns "${rest.slice(count).join(' ').slice(0, 40)}": expected ${what}`, n)
  }
  switch (format) {
    case 'list':
    case 'list-tun-info': {
      if (format === 'list') want(4, 'Forward Weight ActiveConn InActConn')
      else if (rest.length < 4 || rest.length > 5) want(5, 'Forward TunnelInfo Weight ActiveConn InActConn')
      const fwd = FORWARDS[rest[0]!]
      if (!fwd) throw new ParseError(`unknown forwarding method "${rest[0]!.slice(0, 20)}": expected Masq, Local, Route or Tunnel`, n)
      rs.forward = fwd
      if (rest.length === 5) rs.tunnel = rest[1]!
      const tail = rest.slice(-3)
      rs.weight = parseInt32(tail[0], 'weight', n)
      rs.activeConnections = parseUint(tail[1], 'ActiveConn', n)
      rs.inactiveConnections = parseUint(tail[2], 'InActConn', n)
      break
    }
    case 'list-stats':
      rs.stats = parseStats(rest, n)
      break
    case 'list-rate':
      rs.rates = parseRates(rest, n)
      break
    case 'list-thresholds':
      want(4, 'Uthreshold Lthreshold ActiveConn InActConn')
      rs.upperThreshold = parseUint(rest[0], 'Uthreshold', n)
      rs.lowerThreshold = parseUint(rest[1], 'Lthreshold', n)
      rs.activeConnections = parseUint(rest[2], 'ActiveConn', n)
      rs.inactiveConnections = parseUint(rest[3], 'InActConn', n)
      break
    case 'list-persistent-conn':
      want(4, 'Weight PersistConn ActiveConn InActConn')
      rs.weight = parseInt32(rest[0], 'weight', n)
      rs.persistentConnections = parseUint(rest[1], 'PersistConn', n)
      rs.activeConnections = parseUint(rest[2], 'ActiveConn', n)
      rs.inactiveConnections = parseUint(rest[3], 'InActConn', n)
      break
    case 'save':
      throw new ParseError('internal: save lines in a listing', n)
  }
  return rs
}

function parseScaledColumns(rest: string[], names: readonly string[], n: number): {values: number[]; approximate: boolean} {
  if (rest.length !== names.length)
    throw new ParseError(`expected ${names.length} columns (${names.join(' ')}), found ${rest.length}${rest.length < names.length ? ' (the line is truncated)' : ''}`, n)
  let approximate = false
  const values = rest.map((v, k) => {
    const m = /^(\d{1,20})([KMGT]?)$/.exec(v)
    if (!m) throw new ParseError(`${names[k]} "${v.slice(0, 20)}" is not a count`, n)
    if (m[2]) approximate = true
    return Number(m[1]) * ({'': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12}[m[2] as '' | 'K' | 'M' | 'G' | 'T'])
  })
  return {values, approximate}
}

function parseStats(rest: string[], n: number): IpvsStats {
  const {values: v, approximate} = parseScaledColumns(rest, ['Conns', 'InPkts', 'OutPkts', 'InBytes', 'OutBytes'], n)
  const s: IpvsStats = {connections: v[0]!, inPackets: v[1]!, outPackets: v[2]!, inBytes: v[3]!, outBytes: v[4]!}
  if (approximate) s.approximate = true
  return s
}

function parseRates(rest: string[], n: number): IpvsRates {
  const {values: v, approximate} = parseScaledColumns(rest, ['CPS', 'InPPS', 'OutPPS', 'InBPS', 'OutBPS'], n)
  const r: IpvsRates = {
    connectionsPerSecond: v[0]!,
    inPacketsPerSecond: v[1]!,
    outPacketsPerSecond: v[2]!,
    inBytesPerSecond: v[3]!,
    outBytesPerSecond: v[4]!,
  }
  if (approximate) r.approximate = true
  return r
}
