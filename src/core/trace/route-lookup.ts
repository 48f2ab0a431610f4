// The kernel's route lookup for one destination over a node's parsed route listing (`ip -d route show table all`):
// the local table first, then main, then default (the default policy rules, priorities 0, 32766, 32767), each by
// longest prefix and then lowest metric. `throw` routes fall through to the next table; blackhole, unreachable and
// prohibit end the lookup. Tables reached only by other policy rules are not consulted (`ip rule` is not collected)
// and are named in the notes.
import {type IpFamily, type ParsedCIDR, type ParsedIP, cidrContains, parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'
import {isRejectRoute, type Route} from '../parse/routes.js'

/** The route a lookup chose, or why there is none. */
export interface RouteLookup {
  /** The chosen route; absent when no route matches (`no-route`). */
  route?: Route
  /** unicast (delivered on through `dev`), local (to the node itself), reject (blackhole, unreachable, prohibit), none. */
  kind: 'unicast' | 'local' | 'reject' | 'none'
  /** Devices the packet leaves through (several for a multipath route). */
  devices: string[]
  /** Next hop when the route has one. */
  gateway?: string
  /** Notes about the lookup (tables not consulted, linkdown routes). */
  notes: string[]
}

interface IndexedRoute {
  route: Route
  cidr: ParsedCIDR
}

/** Routes grouped by table and family, parsed once, for repeated lookups. */
export interface RouteIndex {
  lookup(ip: string): RouteLookup
}

const TABLE_ORDER = ['local', 'main', 'default']

/** An index over `routes` (any table, both families); routes whose dst cannot be read are left out. */
export function indexRoutes(routes: readonly Route[]): RouteIndex {
  const byTable = new Map<string, IndexedRoute[]>()
  const otherTables = new Set<string>()
  for (const route of routes) {
    const cidr = parseCIDRSloppy(route.dst)
    if (!cidr) continue
    if (!TABLE_ORDER.includes(route.table)) {
      otherTables.add(route.table)
      continue
    }
    const list = byTable.get(route.table) ?? []
    list.push({route, cidr})
    byTable.set(route.table, list)
  }
  for (const list of byTable.values()) list.sort((a, b) => b.cidr.prefix - a.cidr.prefix || (a.route.metric ?? 0) - (b.route.metric ?? 0))
  const tableNote = otherTables.size > 0 ? [`routes in table ${[...otherTables].sort().join(', ')} are not consulted: the policy rules that select them (ip rule) are not collected`] : []
  return {
    lookup(text: string): RouteLookup {
      const ip = parseIPSloppy(text)
      if (!ip) return {kind: 'none', devices: [], notes: [`${text} is not an address`]}
      return lookupIn(byTable, ip, tableNote)
    },
  }
}

function lookupIn(byTable: ReadonlyMap<string, IndexedRoute[]>, ip: ParsedIP, tableNote: string[]): RouteLookup {
  const family: IpFamily = ip.family
  for (const table of TABLE_ORDER) {
    for (const {route, cidr} of byTable.get(table) ?? []) {
      if (cidr.family !== family || !cidrContains(cidr, ip)) continue
      // Broadcast, multicast and anycast entries of the local table answer only their own addresses' special uses.
      if (route.type === 'broadcast' || route.type === 'multicast' || route.type === 'anycast' || route.type === 'nat') continue
      if (route.type === 'throw') break // on to the next table
      const notes = [...tableNote]
      if (route.flags.includes('linkdown')) notes.push(`the route ${route.dst} is marked linkdown (its device has no carrier)`)
      if (route.type === 'local') return {route, kind: 'local', devices: route.dev ? [route.dev] : [], notes}
      if (isRejectRoute(route)) return {route, kind: 'reject', devices: [], notes}
      const hops = route.nexthops && route.nexthops.length > 0 ? route.nexthops : [{...(route.gateway ? {gateway: route.gateway} : {}), ...(route.dev ? {dev: route.dev} : {})}]
      const devices = [...new Set(hops.map((h) => h.dev).filter((d): d is string => d !== undefined))]
      const gateway = hops.find((h) => h.gateway !== undefined)?.gateway
      return {route, kind: 'unicast', devices, ...(gateway !== undefined ? {gateway} : {}), notes}
    }
  }
  return {kind: 'none', devices: [], notes: [...tableNote]}
}
