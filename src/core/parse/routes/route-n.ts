// net-tools `route -n` (IPv4) and `route -n -A inet6`.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../../errors.js'
import {type InputLine, lastContentLineNumber} from '../sniff.js'
import {parseAddress, parseUint} from './ip-text.js'
import type {Route} from './model.js'

const STANDARD = 'Destination Gateway Genmask Flags Metric Ref Use Iface'
const STANDARD_COLUMNS = columnIndex(STANDARD.split(' '))!

interface Columns {
  dst: number
  gw: number
  mask: number
  flags: number
  metric?: number
  iface: number
}

/** Where the columns route -n (any of -e, -ee) and netstat -rn print are; null when one of the needed is absent. */
function columnIndex(head: readonly string[]): Columns | null {
  const at = (name: string): number => head.indexOf(name)
  const c = {dst: at('Destination'), gw: at('Gateway'), mask: at('Genmask'), flags: at('Flags'), iface: at('Iface')}
  if (Object.values(c).some((i) => i < 0)) return null
  const metric = at('Metric')
  return metric < 0 ? c : {...c, metric}
}

/** One IPv4 row; `tok` has exactly the header's columns. */
function routeNRow(tok: readonly string[], cols: Columns, n: number): Route {
  const dst = tok[cols.dst]!
  const gw = tok[cols.gw]!
  const mask = tok[cols.mask]!
  const flags = tok[cols.flags]!
  const iface = tok[cols.iface]!
  const metric = cols.metric === undefined ? undefined : tok[cols.metric]!
  if (!ipaddr.IPv4.isValidFourPartDecimal(dst)) throw new ParseError(`invalid destination "${dst.slice(0, 40)}": expected a numeric IPv4 address (use route -n)`, n)
  if (!ipaddr.IPv4.isValidFourPartDecimal(mask)) throw new ParseError(`invalid Genmask "${mask.slice(0, 40)}"`, n)
  const len = ipaddr.IPv4.parse(mask).prefixLengthFromSubnetMask()
  if (len === null) throw new ParseError(`Genmask ${mask} is not a contiguous netmask`, n)
  if (!/^[A-Z!]+$/i.test(flags)) throw new ParseError(`invalid Flags "${flags.slice(0, 20)}"`, n)
  const route: Route = {type: 'unicast', family: 'inet', dst: `${dst}/${len}`, table: 'main', flags: [], routeFlags: flags, line: n}
  if (flags.includes('!')) route.type = 'reject'
  else if (iface === '*') route.type = 'blackhole'
  if (gw !== '0.0.0.0' && gw !== '*' && gw !== '-') {
    if (!ipaddr.IPv4.isValidFourPartDecimal(gw)) throw new ParseError(`invalid Gateway "${gw.slice(0, 40)}"`, n)
    route.gateway = gw
  }
  if (iface !== '*' && iface !== '-') route.dev = iface
  if (metric !== undefined && metric !== '-') route.metric = parseUint(metric, 'Metric', n)
  return route
}

/**
 * Pasted IPv4 `route -n` as people paste it (lenient, `routes show --from-file` only): with or without the
 * `Kernel IP routing table` title and the column header, and the column sets of `route -n -e`, `route -n -ee` and
 * `netstat -rn` (read by the header's column names). Says what it assumed through `warn`.
 */
export function parseRouteNLenient(lines: InputLine[], warn: (line: number, message: string) => void): Route[] {
  const routes: Route[] = []
  let cols: Columns | null = null
  let width = 0
  let titled = false
  for (const line of lines) {
    const t = line.text.trim()
    if (t === '') continue
    if (/^Kernel IP routing table$/.test(t)) {
      titled = true
      continue
    }
    const tok = t.split(/\s+/)
    if (tok[0] === 'Destination') {
      cols = columnIndex(tok)
      if (!cols) throw new ParseError(`unexpected route -n header "${t.slice(0, 80)}": expected the columns Destination, Gateway, Genmask, Flags and Iface`, line.n)
      width = tok.length
      if (!titled) warn(line.n, 'no `Kernel IP routing table` title: read as `route -n` from the column header')
      const extra = tok.filter((c) => !STANDARD.split(' ').includes(c))
      if (extra.length > 0) warn(line.n, `columns ${extra.join(', ')} (\`route -n -e\`/\`-ee\` or \`netstat -rn\`) read but not shown`)
      if (cols.metric === undefined) warn(line.n, 'no Metric column (`route -n -e` or `netstat -rn`): route metrics unknown')
      continue
    }
    if (!cols) {
      if (tok.length !== 8) throw new ParseError('missing the "Destination Gateway Genmask ..." header line of route -n', line.n)
      cols = STANDARD_COLUMNS
      width = 8
      warn(line.n, `no column header: read as \`route -n\` columns (${STANDARD})`)
    }
    if (tok.length !== width) throw new ParseError(`expected ${width} columns, found ${tok.length}${tok.length < width ? ' (the line is truncated)' : ''}`, line.n)
    routes.push(routeNRow(tok, cols, line.n))
  }
  if (!cols) throw new ParseError('route -n output ends after its first line (missing the column header)', lastContentLineNumber(lines))
  return routes
}

export function parseRouteN(lines: InputLine[]): Route[] {
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
    const route = routeNRow(tok, STANDARD_COLUMNS, line.n)
    routes.push(route)
  }
  if (!sawHeader) throw new ParseError('route -n output ends after its first line (missing the column header)', lastContentLineNumber(lines))
  return routes
}

export function parseRouteN6(lines: InputLine[]): Route[] {
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
