// Addresses, ports, numbers and netmasks as ipvsadm prints them.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../../errors.js'
import type {IpvsFamily} from './model.js'

/** `10.0.0.1:80` or `[fd00::1]:80`; a name instead of a number means `-n` was forgotten. */
export function parseAddrPort(tok: string | undefined, what: string, n: number): {address: string; port: number; family: IpvsFamily} {
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

export function parseUint(text: string | undefined, what: string, n: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) throw new ParseError(`missing ${what} (the line is truncated)`, n)
  if (!/^\d{1,16}$/.test(text) || Number(text) > max) throw new ParseError(`${what} "${text.slice(0, 20)}" is not a non-negative integer`, n)
  return Number(text)
}

export function parseInt32(text: string | undefined, what: string, n: number): number {
  if (text === undefined) throw new ParseError(`missing ${what} (the line is truncated)`, n)
  if (!/^-?\d{1,10}$/.test(text) || Math.abs(Number(text)) > 2 ** 31) throw new ParseError(`${what} "${text.slice(0, 20)}" is not an integer`, n)
  return Number(text)
}

/** Persistence mask: dotted IPv4 (omitted when /32) or IPv6 prefix length (omitted when 128). */
export function parseNetmask(text: string | undefined, family: IpvsFamily, n: number): string | undefined {
  if (text === undefined) throw new ParseError('"mask" needs a netmask (the line is truncated)', n)
  if (family === 'ipv6' || /^\d{1,3}$/.test(text)) {
    if (!/^\d{1,3}$/.test(text) || Number(text) > (family === 'ipv6' ? 128 : 32)) throw new ParseError(`invalid persistence netmask "${text.slice(0, 40)}"`, n)
    return family === 'ipv6' && text === '128' ? undefined : text
  }
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv4.parse(text).prefixLengthFromSubnetMask() === null)
    throw new ParseError(`invalid persistence netmask "${text.slice(0, 40)}"`, n)
  return text === '255.255.255.255' ? undefined : text
}
