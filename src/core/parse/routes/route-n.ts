// net-tools `route -n` (IPv4) and `route -n -A inet6`.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../../errors.js'
import {type InputLine, lastContentLineNumber} from '../sniff.js'
import {parseAddress, parseUint} from './ip-text.js'
import type {Route} from './model.js'

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
