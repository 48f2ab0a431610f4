// The route model (one whatever the input format), iproute2's protocol, scope and table names, key order,
// and helpers for consumers.

/** What a route listing is, for errors that name the expected input. */
export const EXPECTED = 'a route listing (`ip route`, `ip -d route`, `ip -6 route`, `ip -j route` or `route -n`)'

/** `ip-monitor`: pasted `ip monitor route` events, read leniently only (routes/pasted.ts). */
export type RouteFormat = 'ip' | 'ip-detailed' | 'ip-json' | 'ip-json-detailed' | 'route-n' | 'route-n-ipv6' | 'ip-monitor'

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
  /** For `ip-monitor`: the routes the events leave (the last event of each route was an add or change). */
  routes: Route[]
  /** For `ip-monitor` only: routes whose last event was `Deleted` (gone when the monitor stopped). */
  deleted?: Route[]
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

export const SCOPES: Record<string, string> = {'0': 'global', '200': 'site', '253': 'link', '254': 'host', '255': 'nowhere'}
export const TABLES: Record<string, string> = {'0': 'unspec', '253': 'default', '254': 'main', '255': 'local'}

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
export function orderRouteKeys(r: Route): Route {
  const out: Record<string, unknown> = {}
  for (const k of ROUTE_KEY_ORDER) if (r[k] !== undefined) out[k] = r[k]
  return out as unknown as Route
}

/** Devices a route leaves through: its own `dev`, or every nexthop's. */
export function routeDevices(route: Route): string[] {
  if (route.nexthops && route.nexthops.length > 0) return [...new Set(route.nexthops.map((h) => h.dev).filter((d): d is string => d !== undefined))]
  return route.dev === undefined ? [] : [route.dev]
}

/** Routes that drop traffic on purpose: blackhole, unreachable, prohibit (and route -n's undistinguished reject). */
export function isRejectRoute(route: Route): boolean {
  return route.type === 'blackhole' || route.type === 'unreachable' || route.type === 'prohibit' || route.type === 'reject'
}
