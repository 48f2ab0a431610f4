// Parser for ipvsadm output: the listings (`-Ln`, `--stats`, `--rate`, `--thresholds`, `--persistent-conn`,
// `--tun-info`) and the save form (`-Sn`). Every variant lands in one model: virtual servers holding real servers.
// Formats follow ipvsadm 1.31 (node-state.md A.10). Lines are split on whitespace, never by column, because long
// IPv6 addresses push the columns right and pastes often lose the trailing padding.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../errors.js'
import {ordered, orderedAll} from './key-order.js'
import {type InputLine, splitInputLines, wrongArtifact} from './sniff.js'

export type IpvsFormat =
  | 'list'
  | 'list-stats'
  | 'list-rate'
  | 'list-thresholds'
  | 'list-persistent-conn'
  | 'list-tun-info'
  | 'save'

export type IpvsProtocol = 'tcp' | 'udp' | 'sctp'
export type IpvsFamily = 'ipv4' | 'ipv6'

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

const EXPECTED = 'ipvsadm output (`ipvsadm -Ln`, `-Ln --stats|--rate|--persistent-conn|--thresholds` or `-Sn`)'

/**
 * Which ipvsadm variant `text` is. Throws ParseError when it is none of them (naming what it looks like), or when
 * it is an ipvsadm output node-doctor does not read (`-c` connections, `--timeout`, `--daemon`).
 */
export function detectIpvsFormat(text: string): IpvsFormat {
  return detect(splitInputLines(text, EXPECTED), text).format
}

/** Parses any supported ipvsadm variant. Throws ParseError(detail, line) on anything it cannot read. */
export function parseIpvsadm(text: string): IpvsTable {
  const lines = splitInputLines(text, EXPECTED)
  const {format, bodyStart, version, size} = detect(lines, text)
  const table: IpvsTable = {format, virtualServers: []}
  if (version !== undefined) table.version = version
  if (size !== undefined) table.connectionTableSize = size
  if (format === 'save') parseSave(lines, table)
  else parseListing(lines.slice(bodyStart), format, table)
  table.virtualServers = table.virtualServers.map((vs) => ordered({...vs, realServers: orderedAll(vs.realServers, RS_KEYS)}, VS_KEYS))
  return table
}

const VS_KEYS: ReadonlyArray<keyof IpvsVirtualServer> = [
  'id',
  'protocol',
  'family',
  'address',
  'port',
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
const RS_KEYS: ReadonlyArray<keyof IpvsRealServer> = [
  'address',
  'port',
  'family',
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

// --- detection -----------------------------------------------------------------------------------------------

interface Detected {
  format: IpvsFormat
  /** Index into lines where services start. */
  bodyStart: number
  version?: string
  size?: number
}

const VERSION_RE = /^IP Virtual Server version (\S+) \(size=(\d+)\)\s*$/

function detect(lines: InputLine[], text: string): Detected {
  let i = 0
  while (i < lines.length && lines[i]!.text.trim() === '') i++
  const first = lines[i]!
  const t = first.text.trim()
  if (/^Can't initialize ipvs|^Memory allocation problem|^ipvsadm: /.test(t))
    throw new ParseError(`this is an ipvsadm error message, not its output: "${t.slice(0, 120)}"`, first.n)
  if (/^IPVS connection entries/.test(t)) throw new ParseError('this is the IPVS connection table (`ipvsadm -Lnc`), not supported: collect `ipvsadm -Ln`', first.n)
  if (/^Timeout \(tcp tcpfin udp\)/.test(t)) throw new ParseError('this is `ipvsadm -L --timeout` output, not supported: collect `ipvsadm -Ln`', first.n)
  if (/^(master|backup) sync daemon/.test(t)) throw new ParseError('this is `ipvsadm -L --daemon` output, not supported: collect `ipvsadm -Ln`', first.n)
  if (/^-[Aa]\s/.test(t) || /^--add-serv(ice|er)\s/.test(t)) return {format: 'save', bodyStart: i}

  let version: string | undefined
  let size: number | undefined
  const vm = VERSION_RE.exec(t)
  if (vm) {
    version = vm[1]
    size = Number(vm[2])
    i++
    while (i < lines.length && lines[i]!.text.trim() === '') i++
    if (i >= lines.length) throw new ParseError('input ends after the version line: expected the `Prot LocalAddress:Port` header', first.n + 1)
  } else if (t.startsWith('IP Virtual Server')) {
    throw new ParseError('malformed ipvsadm version line: expected "IP Virtual Server version X (size=N)"', first.n)
  }
  const head = lines[i]!
  const h = head.text.trim().split(/\s+/)
  if (h[0] === 'Prot' && h[1] === 'LocalAddress:Port') {
    const rest = h.slice(2).join(' ')
    let format: IpvsFormat
    if (rest === 'Scheduler Flags') format = 'list'
    else if (rest === 'Conns InPkts OutPkts InBytes OutBytes') format = 'list-stats'
    else if (rest === 'CPS InPPS OutPPS InBPS OutBPS') format = 'list-rate'
    else if (rest === 'Uthreshold Lthreshold ActiveConn InActConn') format = 'list-thresholds'
    else if (rest === 'Weight PersistConn ActiveConn InActConn') format = 'list-persistent-conn'
    else throw new ParseError(`unknown ipvsadm listing header "${head.text.trim()}"`, head.n)
    let j = i + 1
    while (j < lines.length && lines[j]!.text.trim() === '') j++
    const sub = lines[j]
    if (!sub) throw new ParseError('input ends after the header: expected the `  -> RemoteAddress:Port` header line', head.n + 1)
    const s = sub.text.trim().split(/\s+/)
    if (s[0] !== '->' || s[1] !== 'RemoteAddress:Port')
      throw new ParseError(`expected the "  -> RemoteAddress:Port" header line, found "${sub.text.trim().slice(0, 80)}"`, sub.n)
    const cols = s.slice(2).join(' ')
    if (format === 'list') {
      if (cols === 'Forward TunnelInfo Weight ActiveConn InActConn') format = 'list-tun-info'
      else if (cols !== 'Forward Weight ActiveConn InActConn')
        throw new ParseError(`unknown real-server header "${sub.text.trim()}"`, sub.n)
    } else if (cols !== '') {
      throw new ParseError(`unexpected columns "${cols}" in the real-server header of this variant`, sub.n)
    }
    return {format, bodyStart: j + 1, version, size}
  }
  // A header-less paste of a plain listing: starts straight at a service line.
  if (/^(TCP|UDP|SCTP)\s+\S+:\S*\s+[a-z]+\b/.test(head.text) || /^FWM\s+\d+\s/.test(head.text)) {
    return {format: 'list', bodyStart: i, version, size}
  }
  if (version !== undefined) throw new ParseError(`expected the "Prot LocalAddress:Port ..." header, found "${head.text.trim().slice(0, 80)}"`, head.n)
  throw wrongArtifact(text, EXPECTED, first.n)
}

// --- listings --------------------------------------------------------------------------------------------------

function parseListing(lines: InputLine[], format: IpvsFormat, table: IpvsTable): void {
  let current: IpvsVirtualServer | undefined
  for (const line of lines) {
    const trimmed = line.text.trim()
    if (trimmed === '') continue
    const tok = trimmed.split(/\s+/)
    if (tok[0] === '->') {
      if (!current) throw new ParseError('real server line before any virtual service line', line.n)
      current.realServers.push(parseListRealServer(tok, format, current, line.n))
      continue
    }
    current = parseListService(tok, format, line.n)
    table.virtualServers.push(current)
  }
}

function parseListService(tok: string[], format: IpvsFormat, n: number): IpvsVirtualServer {
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
    const a = parseAddrPort(tok[1], 'virtual service address', n)
    i = 2
    vs = {
      id: '',
      protocol: proto.toLowerCase() as IpvsProtocol,
      family: a.family,
      address: a.address,
      port: a.port,
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

function parseListRealServer(tok: string[], format: IpvsFormat, vs: IpvsVirtualServer, n: number): IpvsRealServer {
  const a = parseAddrPort(tok[1], 'real server address', n)
  const rs: IpvsRealServer = {address: a.address, port: a.port, family: a.family, line: n}
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

// --- save form -------------------------------------------------------------------------------------------------

// Maps, not object literals: every token of every line is looked up, and a property lookup would internalise each
// address token (and find `toString` & co. on the prototype).
const SERVICE_OPTS = new Map<string, IpvsProtocol | 'fwmark'>([
  ['-t', 'tcp'],
  ['--tcp-service', 'tcp'],
  ['-u', 'udp'],
  ['--udp-service', 'udp'],
  ['--sctp-service', 'sctp'],
  ['-f', 'fwmark'],
  ['--fwmark-service', 'fwmark'],
])
const SAVE_FORWARDS = new Map<string, IpvsForward>([
  ['-m', 'masq'],
  ['--masquerading', 'masq'],
  ['-g', 'gatewaying'],
  ['--gatewaying', 'gatewaying'],
  ['-i', 'tunnel'],
  ['--ipip', 'tunnel'],
])

function parseSave(lines: InputLine[], table: IpvsTable): void {
  const byId = new Map<string, IpvsVirtualServer>()
  // ipvsadm -S prints each service's -a lines right after its -A line: those need no id built and looked up.
  let last: IpvsVirtualServer | undefined
  for (const line of lines) {
    const trimmed = line.text.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const tok = trimmed.split(/\s+/)
    const cmd = tok[0]
    const addService = cmd === '-A' || cmd === '--add-service'
    const addServer = cmd === '-a' || cmd === '--add-server'
    if (!addService && !addServer)
      throw new ParseError(`unexpected "${(cmd ?? '').slice(0, 30)}": every line of \`ipvsadm -Sn\` output starts with -A (service) or -a (real server)`, line.n)
    const svc = readSaveService(tok, line.n)
    if (addService) {
      const vs: IpvsVirtualServer = {
        id: '',
        protocol: svc.protocol,
        family: svc.family,
        schedulerFlags: [],
        onePacket: false,
        realServers: [],
        line: line.n,
      }
      if (svc.address !== undefined) vs.address = svc.address
      if (svc.port !== undefined) vs.port = svc.port
      if (svc.fwmark !== undefined) vs.fwmark = svc.fwmark
      vs.id = ipvsServiceId(vs)
      applyServiceOptions(svc.rest, vs, line.n)
      if (byId.has(vs.id)) throw new ParseError(`virtual service ${vs.id} is defined twice (first on line ${byId.get(vs.id)!.line})`, line.n)
      byId.set(vs.id, vs)
      table.virtualServers.push(vs)
      last = vs
    } else {
      let vs = last !== undefined && sameService(last, svc) ? last : undefined
      if (!vs) {
        const id = ipvsServiceId(svc)
        vs = byId.get(id)
        if (!vs) throw new ParseError(`real server for ${id}, which no earlier -A line defines`, line.n)
        last = vs
      }
      vs.realServers.push(readSaveRealServer(svc.rest, vs, line.n))
    }
  }
}

function sameService(vs: IpvsVirtualServer, svc: SaveService): boolean {
  return vs.protocol === svc.protocol && vs.family === svc.family && vs.address === svc.address && vs.port === svc.port && vs.fwmark === svc.fwmark
}

interface SaveService {
  protocol: IpvsProtocol | 'fwmark'
  family: IpvsFamily
  address?: string
  port?: number
  fwmark?: number
  /** Options other than the service address (and `-6`). */
  rest: string[]
}

function readSaveService(tok: string[], n: number): SaveService {
  let found: SaveService | undefined
  const rest: string[] = []
  let v6 = false
  for (let i = 1; i < tok.length; i++) {
    const t = tok[i]!
    const kind = SERVICE_OPTS.get(t)
    if (kind !== undefined) {
      if (found) throw new ParseError('more than one service address on one line', n)
      const value = tok[++i]
      if (value === undefined) throw new ParseError(`${t} needs a service address (the line is truncated)`, n)
      if (kind === 'fwmark') {
        found = {protocol: 'fwmark', family: 'ipv4', fwmark: parseUint(value, 'fwmark', n, 0xffffffff), rest}
      } else {
        const a = parseAddrPort(value, 'virtual service address', n)
        found = {protocol: kind, family: a.family, address: a.address, port: a.port, rest}
      }
    } else if (t === '-6' || t === '--ipv6') {
      v6 = true
    } else {
      rest.push(t)
    }
  }
  if (!found) throw new ParseError('no service address: expected -t, -u, --sctp-service or -f', n)
  if (v6) {
    if (found.protocol !== 'fwmark') throw new ParseError('-6 is only valid with an -f (fwmark) service', n)
    found.family = 'ipv6'
  }
  return found
}

function applyServiceOptions(opts: string[], vs: IpvsVirtualServer, n: number): void {
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i]!
    const value = (): string => {
      const v = opts[++i]
      if (v === undefined) throw new ParseError(`${o} needs a value (the line is truncated)`, n)
      return v
    }
    if (o === '-s' || o === '--scheduler') {
      const s = value()
      if (!/^[a-z][a-z0-9_-]*$/.test(s)) throw new ParseError(`invalid scheduler name "${s.slice(0, 30)}"`, n)
      vs.scheduler = s
    } else if (o === '-p' || o === '--persistent') {
      // `-p` takes an optional timeout; ipvsadm -S always prints one, but accept the bare form (default 300 s).
      const next = opts[i + 1]
      const timeout = next !== undefined && /^\d+$/.test(next) ? parseUint(opts[++i], 'persistence timeout', n) : 300
      vs.persistence = {...vs.persistence, timeoutSeconds: timeout}
    } else if (o === '-M' || o === '--netmask') {
      const m = parseNetmask(value(), vs.family, n)
      if (m !== undefined) vs.persistence = {timeoutSeconds: vs.persistence?.timeoutSeconds ?? 300, ...vs.persistence, netmask: m}
    } else if (o === '--pe') {
      const pe = value()
      vs.persistence = {timeoutSeconds: vs.persistence?.timeoutSeconds ?? 300, ...vs.persistence, engine: pe}
    } else if (o === '-o' || o === '--ops' || o === 'ops') {
      vs.onePacket = true
    } else if (o === '-b' || o === '--sched-flags') {
      vs.schedulerFlags = value().split(',').filter((x) => x !== '')
    } else {
      throw new ParseError(`unknown option "${o.slice(0, 30)}" for a virtual service`, n)
    }
  }
  if (vs.scheduler === undefined) vs.scheduler = 'wlc' // ipvsadm's default when -s is omitted
}

function readSaveRealServer(opts: string[], vs: IpvsVirtualServer, n: number): IpvsRealServer {
  let addr: ReturnType<typeof parseAddrPort> | undefined
  let forward: IpvsForward | undefined
  let weight: number | undefined
  let tunnel: string[] | undefined
  let upper: number | undefined
  let lower: number | undefined
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i]!
    const fwd = SAVE_FORWARDS.get(o)
    if (fwd !== undefined) {
      forward = fwd
      continue
    }
    if (o === '--tun-nocsum' || o === '--tun-csum' || o === '--tun-remcsum') {
      ;(tunnel ??= []).push(o)
      continue
    }
    const v = opts[++i]
    if (o === '-r' || o === '--real-server') addr = parseAddrPort(optionValue(o, v, n), 'real server address', n)
    else if (o === '-w' || o === '--weight') weight = parseInt32(optionValue(o, v, n), 'weight', n)
    else if (o === '-x' || o === '--u-threshold') upper = parseUint(optionValue(o, v, n), 'upper threshold', n)
    else if (o === '-y' || o === '--l-threshold') lower = parseUint(optionValue(o, v, n), 'lower threshold', n)
    else if (o === '--tun-type' || o === '--tun-port') (tunnel ??= []).push(`${o} ${optionValue(o, v, n)}`)
    else throw new ParseError(`unknown option "${o.slice(0, 30)}" for a real server`, n)
  }
  if (!addr) throw new ParseError(`real server line for ${vs.id} has no -r address`, n)
  // In RS_KEYS order, so that parseIpvsadm need not copy it (unless a threshold or tunnel option follows).
  const rs: IpvsRealServer = {address: addr.address, port: addr.port, family: addr.family, forward: forward ?? 'gatewaying', weight: weight ?? 1, line: n}
  if (upper !== undefined) rs.upperThreshold = upper
  if (lower !== undefined) rs.lowerThreshold = lower
  if (tunnel !== undefined) rs.tunnel = tunnel.join(' ')
  return rs
}

function optionValue(option: string, value: string | undefined, n: number): string {
  if (value === undefined) throw new ParseError(`${option} needs a value (the line is truncated)`, n)
  return value
}

// --- values ----------------------------------------------------------------------------------------------------

/** `10.0.0.1:80` or `[fd00::1]:80`; a name instead of a number means `-n` was forgotten. */
function parseAddrPort(tok: string | undefined, what: string, n: number): {address: string; port: number; family: IpvsFamily} {
  if (tok === undefined) throw new ParseError(`missing ${what} (the line is truncated)`, n)
  let host: string
  let portText: string
  if (tok.startsWith('[')) {
    const close = tok.indexOf(']')
    if (close < 0 || tok[close + 1] !== ':') throw new ParseError(`malformed IPv6 ${what} "${tok.slice(0, 60)}": expected [address]:port`, n)
    host = tok.slice(1, close)
    portText = tok.slice(close + 2)
    if (!ipaddr.IPv6.isValid(host)) throw new ParseError(`invalid IPv6 address "${host.slice(0, 60)}" in ${what}`, n)
    return {address: ipaddr.IPv6.parse(host).toString(), port: parsePort(portText, tok, n), family: 'ipv6'}
  }
  const colon = tok.lastIndexOf(':')
  if (colon < 0) throw new ParseError(`malformed ${what} "${tok.slice(0, 60)}": expected address:port`, n)
  host = tok.slice(0, colon)
  portText = tok.slice(colon + 1)
  if (!isDottedQuad(host)) {
    if (/^[A-Za-z0-9.-]+$/.test(host) && /[A-Za-z]/.test(host))
      throw new ParseError(
        `${what} "${tok.slice(0, 60)}" is a host name, not an address: collect \`ipvsadm -Ln\` (numeric; without -n names are resolved and truncated)`,
        n,
      )
    throw new ParseError(`invalid IPv4 address "${host.slice(0, 60)}" in ${what}`, n)
  }
  return {address: host, port: parsePort(portText, tok, n), family: 'ipv4'}
}

/**
 * `ipaddr.IPv4.isValidFourPartDecimal` (four decimal octets up to 255, no leading zeros) without its parse, object
 * and two regular expressions: it ran twice per line of a 100k-line `ipvsadm -Sn`.
 */
function isDottedQuad(s: string): boolean {
  let parts = 0
  let value = 0
  let digits = 0
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46
    if (c === 46) {
      if (digits === 0 || value > 255 || ++parts > 4) return false
      value = 0
      digits = 0
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && value === 0) return false
      value = value * 10 + (c - 48)
      digits++
    } else return false
  }
  return parts === 4
}

function parsePort(text: string, whole: string, n: number): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    if (/^[A-Za-z][\w-]*$/.test(text))
      throw new ParseError(`port "${text}" in "${whole.slice(0, 60)}" is a service name: collect \`ipvsadm -Ln\` (numeric ports)`, n)
    throw new ParseError(`invalid port "${text.slice(0, 20)}" in "${whole.slice(0, 60)}"`, n)
  }
  return Number(text)
}

function parseUint(text: string | undefined, what: string, n: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) throw new ParseError(`missing ${what} (the line is truncated)`, n)
  if (!/^\d{1,16}$/.test(text) || Number(text) > max) throw new ParseError(`${what} "${text.slice(0, 20)}" is not a non-negative integer`, n)
  return Number(text)
}

function parseInt32(text: string | undefined, what: string, n: number): number {
  if (text === undefined) throw new ParseError(`missing ${what} (the line is truncated)`, n)
  if (!/^-?\d{1,10}$/.test(text) || Math.abs(Number(text)) > 2 ** 31) throw new ParseError(`${what} "${text.slice(0, 20)}" is not an integer`, n)
  return Number(text)
}

/** Persistence mask: dotted IPv4 (omitted when /32) or IPv6 prefix length (omitted when 128). */
function parseNetmask(text: string | undefined, family: IpvsFamily, n: number): string | undefined {
  if (text === undefined) throw new ParseError('"mask" needs a netmask (the line is truncated)', n)
  if (family === 'ipv6' || /^\d{1,3}$/.test(text)) {
    if (!/^\d{1,3}$/.test(text) || Number(text) > (family === 'ipv6' ? 128 : 32)) throw new ParseError(`invalid persistence netmask "${text.slice(0, 40)}"`, n)
    return family === 'ipv6' && text === '128' ? undefined : text
  }
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv4.parse(text).prefixLengthFromSubnetMask() === null)
    throw new ParseError(`invalid persistence netmask "${text.slice(0, 40)}"`, n)
  return text === '255.255.255.255' ? undefined : text
}
