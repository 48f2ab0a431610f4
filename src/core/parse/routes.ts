// Parser for route listings: `ip route` / `ip -d route` / `ip -6 route` text, `ip -j [-d] route` JSON and
// net-tools `route -n` (IPv4 and `-A inet6`). All land in one model with iproute2's hidden defaults made explicit
// (type unicast, proto boot, scope global, table main) and host routes normalised to /32 or /128.
// Formats: node-state.md D.4, checked against iproute2 6.1 and net-tools 2.10 output captured in a netns.
// Split by format: routes/ip-text.ts, routes/ip-json.ts, routes/route-n.ts; the model and its names in
// routes/model.ts. This module detects the format and re-exports the model.
import {ParseError} from '../../errors.js'
import {jsonRouteFormat, parseIpRouteJson} from './routes/ip-json.js'
import {parseIpRouteText} from './routes/ip-text.js'
import {EXPECTED, ROUTE_TYPES, type RouteFormat, type RouteTable, type RouteType, orderRouteKeys} from './routes/model.js'
import {parseRouteN, parseRouteN6} from './routes/route-n.js'
import {parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export * from './routes/model.js'


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
    case 'ip-monitor':
      // detectRouteFormat never answers this: `ip monitor` output is read leniently only (routes/pasted.ts)
      throw new ParseError('this looks like `ip monitor route` output, which is not supported: expected `ip route` output', 1)
  }
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

