// `ip route` / `ip -d route` / `ip -6 route` text.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../../errors.js'
import type {InputLine} from '../sniff.js'
import {type Route, type RouteNexthop, type RouteType, ROUTE_TYPES, SCOPES, TABLES, routeProtocol} from './model.js'

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

export function parseIpRouteText(lines: InputLine[]): Route[] {
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
export function fixDefaultFamilies(routes: Route[]): void {
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

export function setDst(route: Route, text: string, n: number): void {
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

export function parseAddress(text: string, what: string, n: number): string {
  if (!ipaddr.isValid(text) || (ipaddr.IPv4.isValid(text) && !ipaddr.IPv4.isValidFourPartDecimal(text)))
    throw new ParseError(`invalid ${what} address "${text.slice(0, 60)}"`, n)
  return ipaddr.parse(text).toString()
}

export function parseUint(text: string, what: string, n: number): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) throw new ParseError(`${what} "${text.slice(0, 20)}" is not a non-negative integer`, n)
  return Number(text)
}

function parseSignedInt(text: string, what: string, n: number): number {
  if (!/^-?\d{1,10}$/.test(text)) throw new ParseError(`${what} "${text.slice(0, 20)}" is not an integer`, n)
  return Number(text)
}

export function isPrefixOrAddress(s: string): boolean {
  const [addr, len, extra] = s.split('/')
  if (extra !== undefined || addr === undefined) return false
  if (!ipaddr.isValid(addr)) return false
  if (ipaddr.IPv4.isValid(addr) && !ipaddr.IPv4.isValidFourPartDecimal(addr)) return false
  if (len === undefined) return true
  if (!/^\d{1,3}$/.test(len)) return false
  return Number(len) <= (addr.includes(':') ? 128 : 32)
}
