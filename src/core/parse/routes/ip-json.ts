// `ip -j [-d] route` JSON.
import {ParseError} from '../../../errors.js'
import {jsonArrayElementOffsets, lineAt, parseJsonText, wrongArtifact} from '../sniff.js'
import {fixDefaultFamilies, parseAddress, setDst} from './ip-text.js'
import {EXPECTED, type Route, type RouteFormat, type RouteNexthop, type RouteType, ROUTE_TYPES, SCOPES, TABLES, routeProtocol} from './model.js'

export function jsonRouteFormat(json: unknown, text: string): RouteFormat {
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

export function parseIpRouteJson(text: string): Route[] {
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
