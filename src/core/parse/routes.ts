// Parser for route listings: `ip route` / `ip -d route` / `ip -6 route` text, `ip -j [-d] route` JSON and
// net-tools `route -n` (IPv4 and `-A inet6`). All land in one model with iproute2's hidden defaults made explicit
// (type unicast, proto boot, scope global, table main) and host routes normalised to /32 or /128.
// Formats: node-state.md D.4, checked against iproute2 6.1 and net-tools 2.10 output captured in a netns.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../errors.js'
import {type InputLine, jsonArrayElementOffsets, lastContentLineNumber, lineAt, parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export type RouteFormat = 'ip' | 'ip-detailed' | 'ip-json' | 'ip-json-detailed' | 'route-n' | 'route-n-ipv6'

/**
 * `reject` only comes from `route -n`, whose `!` flag does not say which kind of reject route it is
 * (unreachable or prohibit; for IPv6 a blackhole too).
 */
export type RouteType =
  | 'unicast'
  | 'local'
  | 'broadcast'
  | 'multicast'
  | 'anycast'
  | 'blackhole'
  | 'unreachable'
  | 'prohibit'
  | 'throw'
  | 'nat'
  | 'reject'

export const ROUTE_TYPES: readonly RouteType[] = [
  'unicast',
  'local',
  'broadcast',
  'multicast',
  'anycast',
  'blackhole',
  'unreachable',
  'prohibit',
  'throw',
  'nat',
]

export type RouteFamily = 'inet' | 'inet6'

export interface RouteNexthop {
  gateway?: string
  dev?: string
  weight: number
  flags: string[]
}

export interface Route {
  type: RouteType
  family: RouteFamily
  /** CIDR; `default` becomes 0.0.0.0/0 or ::/0, a host route /32 or /128. IPv6 in RFC 5952 form. */
  dst: string
  gateway?: string
  dev?: string
  /** Name as iproute2 prints it with the stock rt_protos (`bird`, `kernel`, `boot`), else the number (`80`). Absent for `route -n`. */
  protocol?: string
  protocolId?: number
  /** `global`, `link`, `host`, ... Absent for `route -n`. */
  scope?: string
  table: string
  metric?: number
  /** Preferred source address (`src`). */
  prefsrc?: string
  /** Bare flags: onlink, linkdown, dead, pervasive, offload, ... */
  flags: string[]
  /** Multipath (ECMP) next hops; the route then has no gateway/dev of its own. */
  nexthops?: RouteNexthop[]
  mtu?: number
  /** IPv6 router preference (`pref medium`). */
  pref?: string
  /** Kernel error code shown on IPv6 reject routes (`error -22`). */
  error?: number
  /** Other route metrics (advmss, hoplimit, initcwnd, ...) verbatim. */
  metrics?: Record<string, string | number>
  /** Tokens this parser does not know, from the first unknown one to the end of the line. */
  unparsed?: string
  /** `route -n` Flags column (U, G, H, !, ...), verbatim. */
  routeFlags?: string
  /** Input line (text formats) or the line the JSON object starts on. */
  line?: number
}

export interface RouteTable {
  format: RouteFormat
  routes: Route[]
}

// iproute2 lib/rt_names.c + the stock /etc/iproute2/rt_protos.
const RT_PROTOS: ReadonlyArray<readonly [number, string]> = [
  [0, 'unspec'],
  [1, 'redirect'],
  [2, 'kernel'],
  [3, 'boot'],
  [4, 'static'],
  [8, 'gated'],
  [9, 'ra'],
  [10, 'mrt'],
  [11, 'zebra'],
  [12, 'bird'],
  [13, 'dnrouted'],
  [14, 'xorp'],
  [15, 'ntk'],
  [16, 'dhcp'],
  [18, 'keepalived'],
  [42, 'babel'],
  [99, 'openr'],
  [186, 'bgp'],
  [187, 'isis'],
  [188, 'ospf'],
  [189, 'rip'],
  [192, 'eigrp'],
]
const PROTO_BY_ID = new Map(RT_PROTOS.map(([id, name]) => [id, name]))
const PROTO_BY_NAME = new Map(RT_PROTOS.map(([id, name]) => [name, id]))

/**
 * Maps a route protocol as printed (`bird`, `80`, `12`) to iproute2's name and number. Numbers with a stock name
 * get the name (12 → bird); unknown numbers stay numeric (80 → "80"); unknown names have no number.
 */
export function routeProtocol(value: string | number): {name: string; id?: number} {
  const text = String(value)
  if (/^\d{1,3}$/.test(text) && Number(text) <= 255) {
    const id = Number(text)
    return {name: PROTO_BY_ID.get(id) ?? String(id), id}
  }
  const id = PROTO_BY_NAME.get(text)
  return id === undefined ? {name: text} : {name: text, id}
}

const SCOPES: Record<string, string> = {'0': 'global', '200': 'site', '253': 'link', '254': 'host', '255': 'nowhere'}
const TABLES: Record<string, string> = {'0': 'unspec', '253': 'default', '254': 'main', '255': 'local'}

const EXPECTED = 'a route listing (`ip route`, `ip -d route`, `ip -6 route`, `ip -j route` or `route -n`)'

/** Which route-listing format `text` is; ParseError (naming what it looks like) when none. */
export function detectRouteFormat(text: string): RouteFormat {
  const lines = splitInputLines(text, EXPECTED)
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (t.startsWith('[') || t.startsWith('{')) {
    const json = parseJsonText(text, '`ip -j route` JSON')
    return jsonRouteFormat(json, text)
  }
  if (/^Kernel IP routing table\s*$/.test(t)) return 'route-n'
  if (/^Kernel IPv6 routing table\s*$/.test(t)) return 'route-n-ipv6'
  if (/^(Deleted |\[nsid |Timestamp: )/.test(t))
    throw new ParseError('this looks like `ip monitor route` output, which is not supported: expected `ip route` output', first.n)
  if (!looksLikeIpRouteLine(t)) throw wrongArtifact(text, EXPECTED, first.n)
  const routeLines = lines.filter((l) => l.text.trim() !== '' && !/^\s/.test(l.text))
  const detailed = routeLines.every((l) => ROUTE_TYPES.includes(l.text.split(/\s+/)[0] as RouteType))
  return detailed ? 'ip-detailed' : 'ip'
}

/** Parses any supported route listing. Throws ParseError(detail, line) on anything it cannot read. */
export function parseRoutes(text: string): RouteTable {
  const format = detectRouteFormat(text)
  switch (format) {
    case 'ip':
    case 'ip-detailed':
      return {format, routes: parseIpRouteText(splitInputLines(text, EXPECTED)).map(orderRouteKeys)}
    case 'ip-json':
    case 'ip-json-detailed':
      return {format, routes: parseIpRouteJson(text).map(orderRouteKeys)}
    case 'route-n':
      return {format, routes: parseRouteN(splitInputLines(text, EXPECTED)).map(orderRouteKeys)}
    case 'route-n-ipv6':
      return {format, routes: parseRouteN6(splitInputLines(text, EXPECTED)).map(orderRouteKeys)}
  }
}

const ROUTE_KEY_ORDER: ReadonlyArray<keyof Route> = [
  'type',
  'family',
  'dst',
  'gateway',
  'dev',
  'protocol',
  'protocolId',
  'scope',
  'table',
  'metric',
  'prefsrc',
  'flags',
  'nexthops',
  'mtu',
  'pref',
  'error',
  'metrics',
  'unparsed',
  'routeFlags',
  'line',
]

// One key order whatever the input format, so JSON output and goldens are stable.
function orderRouteKeys(r: Route): Route {
  const out: Record<string, unknown> = {}
  for (const k of ROUTE_KEY_ORDER) if (r[k] !== undefined) out[k] = r[k]
  return out as unknown as Route
}

// Loose on purpose: a line shaped like a route goes to the line parser, whose errors are more precise.
function looksLikeIpRouteLine(t: string): boolean {
  const tok = t.split(/\s+/)
  if (tok[0] === 'nexthop') return true
  let i = 0
  if (ROUTE_TYPES.includes(tok[0] as RouteType)) i = 1
  const dst = tok[i]
  if (dst === undefined) return i === 1
  if (dst === 'default') return true
  if (!/^(\d{1,3}(\.\d{1,3}){1,3}|[0-9a-fA-F]*:[0-9a-fA-F.]*:[0-9a-fA-F:.]*)(\/\d+)?$/.test(dst)) return false
  return tok.length > i + 1 || i === 1
}

function isPrefixOrAddress(s: string): boolean {
  const [addr, len, extra] = s.split('/')
  if (extra !== undefined || addr === undefined) return false
  if (!ipaddr.isValid(addr)) return false
  if (ipaddr.IPv4.isValid(addr) && !ipaddr.IPv4.isValidFourPartDecimal(addr)) return false
  if (len === undefined) return true
  if (!/^\d{1,3}$/.test(len)) return false
  return Number(len) <= (addr.includes(':') ? 128 : 32)
}

// --- ip route text -------------------------------------------------------------------------------------------

const FLAG_WORDS = new Set([
  'onlink',
  'linkdown',
  'dead',
  'pervasive',
  'offload',
  'trap',
  'notify',
  'offload_failed',
  'rt_offload',
  'rt_trap',
  'rt_offload_failed',
])
// Route metrics iproute2 prints as `name value` (some with an optional `lock`).
const METRIC_WORDS = new Set([
  'advmss',
  'hoplimit',
  'initcwnd',
  'initrwnd',
  'rtt',
  'rttvar',
  'rto_min',
  'ssthresh',
  'cwnd',
  'window',
  'reordering',
  'features',
  'quickack',
  'congctl',
  'fastopen_no_cookie',
  'realm',
  'realms',
  'tos',
  'dsfield',
  'nhid',
  'from',
  'ttl-propagate',
])

function parseIpRouteText(lines: InputLine[]): Route[] {
  const routes: Route[] = []
  let last: Route | undefined
  for (const line of lines) {
    const trimmed = line.text.trim()
    if (trimmed === '') continue
    const tok = trimmed.split(/\s+/)
    if (tok[0] === 'nexthop') {
      if (!last || !/^\s/.test(line.text)) throw new ParseError('"nexthop" line without a multipath route before it', line.n)
      last.nexthops ??= []
      last.nexthops.push(parseNexthop(tok.slice(1), line.n))
      continue
    }
    if (/^\s/.test(line.text)) throw new ParseError(`unexpected indented line "${trimmed.slice(0, 60)}": only "nexthop" lines are indented`, line.n)
    last = parseRouteLine(tok, line.n)
    routes.push(last)
  }
  fixDefaultFamilies(routes)
  return routes
}

function parseRouteLine(tok: string[], n: number): Route {
  let i = 0
  let type: RouteType = 'unicast'
  if (ROUTE_TYPES.includes(tok[0] as RouteType)) {
    type = tok[0] as RouteType
    i = 1
  }
  const dstText = tok[i]
  if (dstText === undefined) throw new ParseError(`route type "${type}" without a destination (the line is truncated)`, n)
  const route: Route = {type, family: 'inet', dst: '', table: 'main', protocol: 'boot', protocolId: 3, scope: 'global', flags: [], line: n}
  setDst(route, dstText, n)
  i++
  while (i < tok.length) {
    const key = tok[i]!
    const value = (): string => {
      const v = tok[i + 1]
      if (v === undefined) throw new ParseError(`"${key}" needs a value (the line is truncated)`, n)
      i += 2
      return v
    }
    if (key === 'via') {
      let v = value()
      if (v === 'inet' || v === 'inet6') {
        const gw = tok[i]
        if (gw === undefined) throw new ParseError('"via" needs an address (the line is truncated)', n)
        v = gw
        i++
      }
      route.gateway = parseAddress(v, 'gateway', n)
    } else if (key === 'dev') route.dev = value()
    else if (key === 'proto') {
      const p = routeProtocol(value())
      route.protocol = p.name
      if (p.id === undefined) delete route.protocolId
      else route.protocolId = p.id
    } else if (key === 'scope') {
      const v = value()
      route.scope = SCOPES[v] ?? v
    } else if (key === 'src') route.prefsrc = parseAddress(value(), 'src', n)
    else if (key === 'metric' || key === 'preference' || key === 'priority') route.metric = parseUint(value(), 'metric', n)
    else if (key === 'table') {
      const v = value()
      route.table = TABLES[v] ?? v
    } else if (key === 'pref') route.pref = value()
    else if (key === 'error') route.error = parseSignedInt(value(), 'error', n)
    else if (key === 'expires') {
      const v = value()
      ;(route.metrics ??= {}).expires = v
    } else if (key === 'mtu') {
      let v = value()
      if (v === 'lock') {
        const locked = tok[i]
        if (locked === undefined) throw new ParseError('"mtu lock" needs a value (the line is truncated)', n)
        v = locked
        i++
        ;(route.metrics ??= {}).mtuLock = 'lock'
      }
      route.mtu = parseUint(v, 'mtu', n)
    } else if (METRIC_WORDS.has(key)) {
      let v = value()
      if (v === 'lock' && tok[i] !== undefined) v = `lock ${tok[i++]}`
      ;(route.metrics ??= {})[key] = /^\d+$/.test(v) ? Number(v) : v
    } else if (FLAG_WORDS.has(key)) {
      route.flags.push(key)
      i++
    } else {
      route.unparsed = tok.slice(i).join(' ')
      break
    }
  }
  return route
}

function parseNexthop(tok: string[], n: number): RouteNexthop {
  const nh: RouteNexthop = {weight: 1, flags: []}
  let i = 0
  while (i < tok.length) {
    const key = tok[i]!
    const value = (): string => {
      const v = tok[i + 1]
      if (v === undefined) throw new ParseError(`"${key}" in a nexthop needs a value (the line is truncated)`, n)
      i += 2
      return v
    }
    if (key === 'via') {
      let v = value()
      if (v === 'inet' || v === 'inet6') {
        v = tok[i] ?? ''
        i++
      }
      nh.gateway = parseAddress(v, 'nexthop gateway', n)
    } else if (key === 'dev') nh.dev = value()
    else if (key === 'weight') nh.weight = parseUint(value(), 'nexthop weight', n)
    else if (FLAG_WORDS.has(key)) {
      nh.flags.push(key)
      i++
    } else if (key === 'realms' || key === 'encap') {
      i = tok.length
    } else throw new ParseError(`unknown nexthop attribute "${key.slice(0, 30)}"`, n)
  }
  return nh
}

/** `default` has no family of its own: take the gateway's, else the rest of the listing's. */
function fixDefaultFamilies(routes: Route[]): void {
  const v6 = routes.filter((r) => r.dst !== '0.0.0.0/0' && r.family === 'inet6').length
  const v4 = routes.filter((r) => r.dst !== '0.0.0.0/0' && r.family === 'inet').length
  for (const r of routes) {
    if (r.dst !== '0.0.0.0/0') continue
    const hint = r.gateway ?? r.prefsrc ?? r.nexthops?.find((h) => h.gateway)?.gateway
    const six = hint !== undefined ? hint.includes(':') : r.pref !== undefined || r.error !== undefined ? true : v6 > 0 && v4 === 0
    if (six) {
      r.family = 'inet6'
      r.dst = '::/0'
    }
  }
}

function setDst(route: Route, text: string, n: number): void {
  if (text === 'default' || text === 'any' || text === 'all') {
    route.dst = '0.0.0.0/0'
    return
  }
  if (!isPrefixOrAddress(text)) throw new ParseError(`invalid route destination "${text.slice(0, 60)}": expected "default" or an address/prefix`, n)
  const [addr, len] = text.split('/') as [string, string | undefined]
  const parsed = ipaddr.parse(addr)
  route.family = parsed.kind() === 'ipv6' ? 'inet6' : 'inet'
  route.dst = `${parsed.toString()}/${len ?? (route.family === 'inet6' ? 128 : 32)}`
}

function parseAddress(text: string, what: string, n: number): string {
  if (!ipaddr.isValid(text) || (ipaddr.IPv4.isValid(text) && !ipaddr.IPv4.isValidFourPartDecimal(text)))
    throw new ParseError(`invalid ${what} address "${text.slice(0, 60)}"`, n)
  return ipaddr.parse(text).toString()
}

function parseUint(text: string, what: string, n: number): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) throw new ParseError(`${what} "${text.slice(0, 20)}" is not a non-negative integer`, n)
  return Number(text)
}

function parseSignedInt(text: string, what: string, n: number): number {
  if (!/^-?\d{1,10}$/.test(text)) throw new ParseError(`${what} "${text.slice(0, 20)}" is not an integer`, n)
  return Number(text)
}

// --- ip -j route ---------------------------------------------------------------------------------------------

function jsonRouteFormat(json: unknown, text: string): RouteFormat {
  if (!Array.isArray(json)) {
    if (json !== null && typeof json === 'object' && 'nftables' in json) throw wrongArtifact(text, EXPECTED)
    throw new ParseError('`ip -j route` output is a JSON array; this JSON is not an array', 1)
  }
  const first = json[0] as Record<string, unknown> | undefined
  if (first !== undefined && (first === null || typeof first !== 'object' || !('dst' in first))) {
    if (first !== null && typeof first === 'object' && ('ifname' in first || 'addr_info' in first))
      throw new ParseError('this looks like `ip -j addr` / `ip -j link` JSON, not route JSON: expected `ip -j route` output', 1)
    throw new ParseError('JSON array elements are not routes (no "dst" key): expected `ip -j route` output', lineAt(text, jsonArrayElementOffsets(text)[0] ?? 0))
  }
  const detailed = json.length > 0 && json.every((r) => r !== null && typeof r === 'object' && 'type' in r)
  return detailed ? 'ip-json-detailed' : 'ip-json'
}

function parseIpRouteJson(text: string): Route[] {
  const json = parseJsonText(text, '`ip -j route` JSON') as unknown[]
  const offsets = jsonArrayElementOffsets(text)
  const routes = json.map((obj, k) => jsonRoute(obj, lineAt(text, offsets[k] ?? 0), k))
  return routes
}

function jsonRoute(obj: unknown, n: number, k: number): Route {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new ParseError(`route #${k + 1} is not a JSON object`, n)
  const o = obj as Record<string, unknown>
  const str = (key: string): string | undefined => {
    const v = o[key]
    if (v === undefined) return undefined
    if (typeof v !== 'string') throw new ParseError(`route #${k + 1}: "${key}" must be a string, found ${typeof v}`, n)
    return v
  }
  const num = (key: string): number | undefined => {
    const v = o[key]
    if (v === undefined) return undefined
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ParseError(`route #${k + 1}: "${key}" must be a number`, n)
    return v
  }
  const dst = str('dst')
  if (dst === undefined) throw new ParseError(`route #${k + 1} has no "dst"`, n)
  const typeText = str('type') ?? 'unicast'
  if (!ROUTE_TYPES.includes(typeText as RouteType)) throw new ParseError(`route #${k + 1}: unknown route type "${typeText.slice(0, 30)}"`, n)
  const route: Route = {type: typeText as RouteType, family: 'inet', dst: '', table: 'main', protocol: 'boot', protocolId: 3, scope: 'global', flags: [], line: n}
  setDst(route, dst, n)
  const gw = str('gateway')
  if (gw !== undefined) route.gateway = parseAddress(gw, 'gateway', n)
  const via = o.via as {family?: unknown; host?: unknown} | undefined
  if (via !== undefined && typeof via === 'object' && via !== null && typeof via.host === 'string') route.gateway = parseAddress(via.host, 'via', n)
  const dev = str('dev')
  if (dev !== undefined) route.dev = dev
  const proto = o.protocol
  if (proto !== undefined) {
    if (typeof proto !== 'string' && typeof proto !== 'number') throw new ParseError(`route #${k + 1}: "protocol" must be a string`, n)
    const p = routeProtocol(proto)
    route.protocol = p.name
    if (p.id === undefined) delete route.protocolId
    else route.protocolId = p.id
  }
  const scope = o.scope
  if (scope !== undefined) route.scope = SCOPES[String(scope)] ?? String(scope)
  const table = o.table
  if (table !== undefined) route.table = TABLES[String(table)] ?? String(table)
  const metric = num('metric')
  if (metric !== undefined) route.metric = metric
  const src = str('prefsrc')
  if (src !== undefined) route.prefsrc = parseAddress(src, 'prefsrc', n)
  route.flags = stringArray(o.flags, `route #${k + 1}: "flags"`, n)
  const pref = str('pref')
  if (pref !== undefined) route.pref = pref
  const error = num('error')
  if (error !== undefined) route.error = error
  const expires = o.expires
  if (expires !== undefined) (route.metrics ??= {}).expires = typeof expires === 'number' ? `${expires}sec` : String(expires)
  if (o.metrics !== undefined) {
    if (!Array.isArray(o.metrics)) throw new ParseError(`route #${k + 1}: "metrics" must be an array`, n)
    for (const m of o.metrics) {
      if (m === null || typeof m !== 'object') throw new ParseError(`route #${k + 1}: "metrics" entries must be objects`, n)
      for (const [mk, mv] of Object.entries(m as Record<string, unknown>)) {
        let value = mv
        if (mv !== null && typeof mv === 'object' && 'value' in mv) {
          value = (mv as {value: unknown}).value
          if (mk === 'mtu') (route.metrics ??= {}).mtuLock = 'lock'
        }
        if (mk === 'mtu') {
          if (typeof value !== 'number') throw new ParseError(`route #${k + 1}: mtu must be a number`, n)
          route.mtu = value
        } else (route.metrics ??= {})[mk] = typeof value === 'number' ? value : String(value)
      }
    }
  }
  if (o.nexthops !== undefined) {
    if (!Array.isArray(o.nexthops)) throw new ParseError(`route #${k + 1}: "nexthops" must be an array`, n)
    route.nexthops = o.nexthops.map((h, j) => {
      if (h === null || typeof h !== 'object') throw new ParseError(`route #${k + 1}: nexthop #${j + 1} is not an object`, n)
      const hh = h as Record<string, unknown>
      const nh: RouteNexthop = {weight: typeof hh.weight === 'number' ? hh.weight : 1, flags: stringArray(hh.flags, 'nexthop flags', n)}
      if (typeof hh.gateway === 'string') nh.gateway = parseAddress(hh.gateway, 'nexthop gateway', n)
      if (typeof hh.dev === 'string') nh.dev = hh.dev
      return nh
    })
  }
  if (route.dst === '0.0.0.0/0') fixDefaultFamilies([route])
  return route
}

function stringArray(v: unknown, what: string, n: number): string[] {
  if (v === undefined) return []
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ParseError(`${what} must be an array of strings`, n)
  return [...(v as string[])]
}

// --- route -n ------------------------------------------------------------------------------------------------

function parseRouteN(lines: InputLine[]): Route[] {
  const routes: Route[] = []
  let sawHeader = false
  for (const line of lines) {
    const t = line.text.trim()
    if (t === '' || /^Kernel IP routing table$/.test(t)) continue
    const tok = t.split(/\s+/)
    if (tok[0] === 'Destination') {
      if (tok.join(' ') !== 'Destination Gateway Genmask Flags Metric Ref Use Iface')
        throw new ParseError(`unexpected route -n header "${t.slice(0, 80)}": expected "Destination Gateway Genmask Flags Metric Ref Use Iface" (use \`route -n\`, not -e or -ee)`, line.n)
      sawHeader = true
      continue
    }
    if (!sawHeader) throw new ParseError('missing the "Destination Gateway Genmask ..." header line of route -n', line.n)
    if (tok.length !== 8)
      throw new ParseError(`expected 8 columns (Destination Gateway Genmask Flags Metric Ref Use Iface), found ${tok.length}${tok.length < 8 ? ' (the line is truncated)' : ''}`, line.n)
    const [dst, gw, mask, flags, metric, , , iface] = tok as [string, string, string, string, string, string, string, string]
    if (!ipaddr.IPv4.isValidFourPartDecimal(dst)) throw new ParseError(`invalid destination "${dst.slice(0, 40)}": expected a numeric IPv4 address (use route -n)`, line.n)
    if (!ipaddr.IPv4.isValidFourPartDecimal(mask)) throw new ParseError(`invalid Genmask "${mask.slice(0, 40)}"`, line.n)
    const len = ipaddr.IPv4.parse(mask).prefixLengthFromSubnetMask()
    if (len === null) throw new ParseError(`Genmask ${mask} is not a contiguous netmask`, line.n)
    if (!/^[A-Z!]+$/i.test(flags)) throw new ParseError(`invalid Flags "${flags.slice(0, 20)}"`, line.n)
    const route: Route = {type: 'unicast', family: 'inet', dst: `${dst}/${len}`, table: 'main', flags: [], routeFlags: flags, line: line.n}
    if (flags.includes('!')) route.type = 'reject'
    else if (iface === '*') route.type = 'blackhole'
    if (gw !== '0.0.0.0' && gw !== '*' && gw !== '-') {
      if (!ipaddr.IPv4.isValidFourPartDecimal(gw)) throw new ParseError(`invalid Gateway "${gw.slice(0, 40)}"`, line.n)
      route.gateway = gw
    }
    if (iface !== '*' && iface !== '-') route.dev = iface
    if (metric !== '-') route.metric = parseUint(metric, 'Metric', line.n)
    routes.push(route)
  }
  if (!sawHeader) throw new ParseError('route -n output ends after its first line (missing the column header)', lastContentLineNumber(lines))
  return routes
}

function parseRouteN6(lines: InputLine[]): Route[] {
  const routes: Route[] = []
  let sawHeader = false
  for (const line of lines) {
    const t = line.text.trim()
    if (t === '' || /^Kernel IPv6 routing table$/.test(t)) continue
    const tok = t.split(/\s+/)
    if (tok[0] === 'Destination') {
      sawHeader = true
      continue
    }
    if (!sawHeader) throw new ParseError('missing the "Destination Next Hop Flag ..." header line of route -n -A inet6', line.n)
    if (tok.length !== 7) throw new ParseError(`expected 7 columns (Destination, Next Hop, Flag, Met, Ref, Use, If), found ${tok.length}`, line.n)
    const [dst, hop, flags, metric, , , iface] = tok as [string, string, string, string, string, string, string]
    const [addr, len] = dst.split('/')
    if (addr === undefined || !ipaddr.IPv6.isValid(addr) || len === undefined || !/^\d{1,3}$/.test(len) || Number(len) > 128)
      throw new ParseError(`invalid IPv6 destination "${dst.slice(0, 60)}"`, line.n)
    const route: Route = {type: flags.includes('!') ? 'reject' : 'unicast', family: 'inet6', dst: `${ipaddr.IPv6.parse(addr).toString()}/${len}`, table: 'main', flags: [], routeFlags: flags, line: line.n}
    if (hop !== '::') route.gateway = parseAddress(hop, 'Next Hop', line.n)
    if (iface !== '*' && iface !== '-') route.dev = iface
    if (/^\d+$/.test(metric)) route.metric = Number(metric)
    routes.push(route)
  }
  if (!sawHeader) throw new ParseError('route -n -A inet6 output ends after its first line (missing the column header)', lastContentLineNumber(lines))
  return routes
}

// --- helpers for consumers -----------------------------------------------------------------------------------

/** Devices a route leaves through: its own `dev`, or every nexthop's. */
export function routeDevices(route: Route): string[] {
  if (route.nexthops && route.nexthops.length > 0) return [...new Set(route.nexthops.map((h) => h.dev).filter((d): d is string => d !== undefined))]
  return route.dev === undefined ? [] : [route.dev]
}

/** Routes that drop traffic on purpose: blackhole, unreachable, prohibit (and route -n's undistinguished reject). */
export function isRejectRoute(route: Route): boolean {
  return route.type === 'blackhole' || route.type === 'unreachable' || route.type === 'prohibit' || route.type === 'reject'
}
