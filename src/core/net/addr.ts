// Address maths for matching packets against iptables `-s`/`-d` values: an address as 32-bit (IPv4) or 16-bit
// (IPv6) words, a network matcher read with inet_aton semantics (as iptables reads its arguments), membership,
// loopback and multicast tests. Packet addresses themselves are read with Go semantics (parseIPSloppy).
import {type IpFamily, type ParsedCIDR, formatIP, parseIPSloppy} from './ip.js'
import {ipv4PrefixMask, ipv6PrefixMask, parseIPv4, parseIPv6} from './inet.js'

export interface Addr {
  family: IpFamily
  /** IPv4: one 32-bit word; IPv6: eight 16-bit words. */
  words: number[]
}

/** An IP (ParseIPSloppy forms) as words; undefined when not an IP. */
export function toAddr(text: string): Addr | undefined {
  const p = parseIPSloppy(text)
  if (!p) return undefined
  if (p.family === 'ipv4') return {family: 'ipv4', words: [(((p.bytes[0] as number) << 24) | ((p.bytes[1] as number) << 16) | ((p.bytes[2] as number) << 8) | (p.bytes[3] as number)) >>> 0]}
  const words: number[] = []
  for (let i = 0; i < 16; i += 2) words.push(((p.bytes[i] as number) << 8) | (p.bytes[i + 1] as number))
  return {family: 'ipv6', words}
}

export interface AddrMatcher {
  family: IpFamily
  net: number[]
  mask: number[]
  /** A single host (/32, /128) rather than a network. */
  host: boolean
}

const DOTTED_QUAD = /^([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])\.([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])\.([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])\.([1-9]?\d|1\d\d|2[0-4]\d|25[0-5])$/

function quadValue(m: RegExpExecArray): number {
  return ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0
}

/** An iptables `-s`/`-d` value (`addr`, `addr/len`, `addr/dotted-mask`); undefined when not an address. */
export function parseAddrMatcher(text: string): AddrMatcher | undefined {
  const slash = text.indexOf('/')
  const a = slash === -1 ? text : text.slice(0, slash)
  const m = slash === -1 ? null : text.slice(slash + 1)
  const quad = DOTTED_QUAD.exec(a)
  // Plain dotted quads (all of iptables-save's output) skip inet_aton's slower general parse.
  const v4 = quad && a.length <= 15 ? quadValue(quad) : a.includes('.') ? parseIPv4(a) : null
  if (v4 !== null) {
    let mask = 0xffffffff
    if (m !== null) {
      if (/^\d{1,2}$/.test(m) && Number(m) <= 32) mask = ipv4PrefixMask(Number(m))
      else {
        const dotted = parseIPv4(m)
        if (dotted === null) return undefined
        mask = dotted
      }
    }
    return {family: 'ipv4', net: [(v4 & mask) >>> 0], mask: [mask], host: mask === 0xffffffff}
  }
  const v6 = parseIPv6(a)
  if (!v6) return undefined
  let mask = new Array<number>(8).fill(0xffff)
  if (m !== null) {
    if (/^\d{1,3}$/.test(m) && Number(m) <= 128) mask = ipv6PrefixMask(Number(m))
    else {
      const w = parseIPv6(m)
      if (!w) return undefined
      mask = w
    }
  }
  return {family: 'ipv6', net: v6.map((w, i) => w & (mask[i] as number)), mask, host: mask.every((w) => w === 0xffff)}
}

export function addrIn(addr: Addr, m: AddrMatcher): boolean {
  if (addr.family !== m.family) return false
  return addr.words.every((w, i) => (m.family === 'ipv4' ? ((w & (m.mask[i] as number)) >>> 0) === m.net[i] : (w & (m.mask[i] as number)) === m.net[i]))
}

/** The matcher's address when it is a single host, else undefined. */
export function matcherHost(m: AddrMatcher): Addr | undefined {
  return m.host ? {family: m.family, words: m.net} : undefined
}

/** Go's canonical text of an address (IPv4-mapped IPv6 printed as IPv4). */
export function formatAddr(a: Addr): string {
  if (a.family === 'ipv4') {
    const v = a.words[0] as number
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`
  }
  const bytes: number[] = []
  for (const w of a.words) bytes.push(w >> 8, w & 255)
  return formatIP(bytes)
}

export function isLoopbackAddr(a: Addr): boolean {
  if (a.family === 'ipv4') return (a.words[0] as number) >>> 24 === 127
  return a.words.every((w, i) => (i === 7 ? w === 1 : w === 0))
}

export function isMulticastAddr(a: Addr): boolean {
  if (a.family === 'ipv4') return (a.words[0] as number) >>> 28 === 0xe
  return (a.words[0] as number) >>> 8 === 0xff
}

/** The last usable address of a CIDR, in Go's text: every host bit set but the lowest (/31, /32, /127, /128: the network). */
export function lastUsableAddress(cidr: ParsedCIDR): string {
  const bytes = [...cidr.network]
  const hostBits = bytes.length * 8 - cidr.prefix
  for (let bit = 0; bit < hostBits; bit++) {
    const i = bytes.length - 1 - Math.floor(bit / 8)
    bytes[i] = (bytes[i] as number) | (1 << bit % 8)
  }
  if (hostBits >= 2) bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) & 0xfe
  return formatIP(bytes)
}
