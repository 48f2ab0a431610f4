// Addresses, ports, numbers and netmasks as ipvsadm prints them.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../../errors.js'
import type {IpvsFamily} from './model.js'
import type {Leniency} from './leniency.js'

/** An address and port as read; `hostName`/`portName` only from a lenient read of `ipvsadm -L` without -n. */
export interface AddrPort {
  address: string
  port: number
  family: IpvsFamily
  /** `address` is a host name as ipvsadm printed it (possibly cut to 28 characters), not an address. */
  hostName?: true
  /** The service name ipvsadm printed instead of the port number; `port` is its number, 0 when unknown or cut. */
  portName?: string
}

/**
 * `10.0.0.1:80` or `[fd00::1]:80`; a name instead of a number means `-n` was forgotten: an error, unless `lenient`
 * (pasted input) is given, which reads the names and records them for its warnings.
 */
export function parseAddrPort(tok: string | undefined, what: string, n: number, lenient?: Leniency): AddrPort {
  if (tok === undefined) throw new ParseError(`missing ${what} (the line is truncated)`, n)
  if (lenient) {
    const named = readNamedAddrPort(tok, n, lenient)
    if (named) return named
  }
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

/**
 * Well-known service names getservbyport(3) gives for the ports a cluster's Services use (the names of
 * /etc/services as Debian and netbase ship it). ipvsadm without -n prints these instead of the number.
 */
const SERVICE_PORTS: Readonly<Record<string, number>> = {
  ftp: 21,
  ssh: 22,
  smtp: 25,
  domain: 53,
  http: 80,
  www: 80,
  kerberos: 88,
  pop3: 110,
  sunrpc: 111,
  ntp: 123,
  imap2: 143,
  snmp: 161,
  ldap: 389,
  https: 443,
  'microsoft-ds': 445,
  submission: 587,
  ldaps: 636,
  'domain-s': 853,
  mysql: 3306,
  postgresql: 5432,
  redis: 6379,
  'http-alt': 8080,
  webcache: 8080,
}

/** The port of a well-known service name (`https` → 443), undefined when not in the table above. */
export function wellKnownPort(name: string): number | undefined {
  return Object.hasOwn(SERVICE_PORTS, name) ? SERVICE_PORTS[name] : undefined
}

/** How many characters ipvsadm (1.31) keeps of a name:port without -n (IPv4 only: svc_name[33], dname[28]). */
export const IPVSADM_NAME_WIDTH = 28

/**
 * A name:port (or a name cut before its port) as `ipvsadm -L` prints it without -n; null when the token is
 * numeric (the strict path reads it). Records what it read in `lenient`.
 */
function readNamedAddrPort(tok: string, n: number, lenient: Leniency): AddrPort | null {
  let host: string
  let portText: string | undefined
  let family: IpvsFamily = 'ipv4'
  if (tok.startsWith('[')) {
    const close = tok.indexOf(']')
    if (close < 0 || tok[close + 1] !== ':') return null
    host = tok.slice(1, close)
    portText = tok.slice(close + 2)
    family = 'ipv6'
    if (ipaddr.IPv6.isValid(host) && /^\d{1,5}$/.test(portText)) return null
  } else {
    const colon = tok.lastIndexOf(':')
    host = colon < 0 ? tok : tok.slice(0, colon)
    portText = colon < 0 ? undefined : tok.slice(colon + 1)
    if (isDottedQuad(host) && portText !== undefined && /^\d{1,5}$/.test(portText)) return null
  }
  const cut = family === 'ipv4' && tok.length === IPVSADM_NAME_WIDTH
  const hostIsName = family === 'ipv4' ? !isDottedQuad(host) : !ipaddr.IPv6.isValid(host)
  if (hostIsName && !/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(host)) return null
  if (hostIsName && !/[A-Za-z]/.test(host)) return null
  const out: AddrPort = {address: hostIsName ? host : family === 'ipv6' ? ipaddr.IPv6.parse(host).toString() : host, port: 0, family}
  if (hostIsName) out.hostName = true
  if (portText === undefined || portText === '') {
    if (!cut) return null
  } else if (/^\d{1,5}$/.test(portText) && Number(portText) <= 65535) {
    out.port = Number(portText)
  } else if (/^[A-Za-z][\w-]*$/.test(portText)) {
    out.portName = portText
    out.port = wellKnownPort(portText) ?? 0
  } else return null
  if (!hostIsName && out.portName === undefined) return null
  lenient.named(n, {host: hostIsName, ...(out.portName === undefined ? {} : {portName: out.portName, known: out.port !== 0}), cut})
  return out
}
