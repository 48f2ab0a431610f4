// IP and CIDR handling with Go's semantics as kube-proxy sees them: k8s.io/utils/net ParseIPSloppy/ParseCIDRSloppy
// (decimal IPv4 octets with leading zeros allowed) and net.IP.String() (canonical text; IPv4-mapped IPv6 is IPv4).
// ipaddr.js does the IPv6 parsing and formatting; IPv4 octets are normalised to plain decimal first because
// ipaddr.js reads a leading zero as octal, which Go never does.
import ipaddr from 'ipaddr.js'

/** The one IP family type of node-doctor (Go's utilnet families, iptables' -4/-6). */
export type IpFamily = 'ipv4' | 'ipv6'

/** A parsed IP: family, network-order bytes (4 or 16) and Go's canonical text. */
export interface ParsedIP {
  family: IpFamily
  bytes: number[]
  text: string
}

/** A parsed CIDR: the masked network address, prefix length and Go's canonical `network/len` text. */
export interface ParsedCIDR {
  family: IpFamily
  network: number[]
  prefix: number
  text: string
}

const V4_SLOPPY = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/

function parseV4Octets(s: string): number[] | undefined {
  const m = V4_SLOPPY.exec(s)
  if (!m) return undefined
  const out: number[] = []
  for (let i = 1; i <= 4; i++) {
    const n = Number(m[i])
    if (!Number.isInteger(n) || n > 255) return undefined
    out.push(n)
  }
  return out
}

function parseV6Bytes(s: string): number[] | undefined {
  if (!s.includes(':') || s.includes('%')) return undefined
  let text = s
  // An embedded dotted quad is rewritten as two hex groups so that ipaddr.js neither reads octal nor
  // reinterprets `::a.b.c.d` as IPv4-mapped.
  const dot = /^(.*:)([^:]*\.[^:]*)$/.exec(s)
  if (dot) {
    const v4 = parseV4Octets(dot[2]!)
    if (!v4) return undefined
    text = `${dot[1]}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  if (!ipaddr.IPv6.isValid(text)) return undefined
  return ipaddr.IPv6.parse(text).toByteArray()
}

function isV4Mapped(bytes: readonly number[]): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false
  return bytes[10] === 0xff && bytes[11] === 0xff
}

/** Go's net.IP.String() for 4 or 16 bytes. */
export function formatIP(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join('.')
  if (isV4Mapped(bytes)) return bytes.slice(12).join('.')
  return ipaddr.IPv6.parse(ipaddr.fromByteArray([...bytes]).toString()).toRFC5952String()
}

/**
 * ParseIPSloppy: an IPv4 dotted quad (leading zeros allowed, read as decimal) or an IPv6 address.
 * IPv4-mapped IPv6 addresses are IPv4, as in Go. Returns undefined when the text is not an IP.
 */
export function parseIPSloppy(s: string): ParsedIP | undefined {
  const v4 = parseV4Octets(s)
  if (v4) return {family: 'ipv4', bytes: v4, text: v4.join('.')}
  const v6 = parseV6Bytes(s)
  if (!v6) return undefined
  if (isV4Mapped(v6)) {
    const b = v6.slice(12)
    return {family: 'ipv4', bytes: b, text: b.join('.')}
  }
  return {family: 'ipv6', bytes: v6, text: formatIP(v6)}
}

/** ParseCIDRSloppy: `ip/len` with the address masked to the network; undefined when invalid. */
export function parseCIDRSloppy(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/')
  if (slash < 0) return undefined
  const addr = s.slice(0, slash)
  const lenText = s.slice(slash + 1)
  if (!/^\d+$/.test(lenText)) return undefined
  // A CIDR's family is its address's literal form: an IPv4-mapped IPv6 literal stays IPv6 here (Go keeps 16 bytes).
  const v4 = parseV4Octets(addr)
  const bytes = v4 ?? parseV6Bytes(addr)
  if (!bytes) return undefined
  const bits = bytes.length * 8
  const prefix = Number(lenText)
  if (prefix > bits) return undefined
  const network = maskBytes(bytes, prefix)
  const family: IpFamily = bytes.length === 4 ? 'ipv4' : 'ipv6'
  const text = `${bytes.length === 4 ? network.join('.') : ipaddr.IPv6.parse(ipaddr.fromByteArray(network).toString()).toRFC5952String()}/${prefix}`
  return {family, network, prefix, text}
}

function maskBytes(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8))
    return keep === 0 ? 0 : b & ((0xff << (8 - keep)) & 0xff)
  })
}

/** Whether `cidr` contains `ip` (families must match; an IPv4 IP never matches an IPv6 CIDR). */
export function cidrContains(cidr: ParsedCIDR, ip: ParsedIP): boolean {
  if (cidr.network.length !== ip.bytes.length) return false
  const masked = maskBytes(ip.bytes, cidr.prefix)
  return masked.every((b, i) => b === cidr.network[i])
}

/** Go's IP.IsLoopback(): 127.0.0.0/8 or ::1. */
export function isLoopback(ip: ParsedIP): boolean {
  if (ip.family === 'ipv4') return ip.bytes[0] === 127
  return ip.bytes.every((b, i) => (i === 15 ? b === 1 : b === 0))
}

/** The family of an IP text, or undefined when it is not an IP (utilnet.IsIPv6String and friends). */
export function ipFamilyOf(s: string): IpFamily | undefined {
  return parseIPSloppy(s)?.family
}

/** net.JoinHostPort: brackets around IPv6 hosts. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}
