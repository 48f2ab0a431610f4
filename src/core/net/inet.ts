// Address parsing and printing as iptables does it: inet_aton for IPv4 (so `010` is octal), glibc inet_ntop for
// IPv6 (longest zero run compressed, `::ffff:a.b.c.d` kept dotted). Pure; no DNS, so host names are left alone.

import type {IpFamily} from './ip.js'

/** inet_aton: 1 to 4 dot-separated parts, each decimal, octal (leading 0) or hex (0x); null when invalid. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.')
  if (parts.length < 1 || parts.length > 4) return null
  const vals: number[] = []
  for (const p of parts) {
    let v: number
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) v = p.length === 2 ? 0 : parseInt(p.slice(2), 16)
    else if (/^0[0-7]*$/.test(p)) v = parseInt(p, 8)
    else if (/^[1-9][0-9]*$/.test(p)) v = parseInt(p, 10)
    else return null
    if (!Number.isFinite(v) || v > 0xffffffff) return null
    vals.push(v)
  }
  const last = vals[vals.length - 1] as number
  const head = vals.slice(0, -1)
  if (head.some((v) => v > 255)) return null
  const tailBits = 8 * (4 - head.length)
  if (tailBits < 32 && last >= 2 ** tailBits) return null
  let out = 0
  for (const [i, v] of head.entries()) out += v * 2 ** (24 - 8 * i)
  return out + last
}

export function formatIPv4(v: number): string {
  return `${Math.floor(v / 0x1000000) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`
}

/** Parses an IPv6 address (with `::` and an optional dotted IPv4 tail) into 8 16-bit words; null when invalid. */
export function parseIPv6(text: string): number[] | null {
  if (text.length === 0 || text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return null
  let tail: number[] = []
  let s = text
  const lastColon = s.lastIndexOf(':')
  if (s.indexOf('.') !== -1) {
    if (lastColon === -1) return null
    const v4 = s.slice(lastColon + 1)
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(v4)) return null
    const octets = v4.split('.').map(Number)
    if (octets.some((o) => o > 255)) return null
    tail = [((octets[0] as number) << 8) | (octets[1] as number), ((octets[2] as number) << 8) | (octets[3] as number)]
    // Keep a trailing `::` (as in `::1.2.3.4`), drop a single separator colon.
    s = s.slice(0, lastColon + 1)
    if (!s.endsWith('::')) s = s.slice(0, -1)
  }
  const dbl = s.indexOf('::')
  if (dbl !== -1 && s.indexOf('::', dbl + 1) !== -1) return null
  const parseGroups = (g: string): number[] | null => {
    if (g === '') return []
    const out: number[] = []
    for (const h of g.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(h)) return null
      out.push(parseInt(h, 16))
    }
    return out
  }
  let words: number[]
  if (dbl === -1) {
    const g = parseGroups(s)
    if (!g) return null
    words = [...g, ...tail]
    if (words.length !== 8) return null
  } else {
    const head = parseGroups(s.slice(0, dbl))
    const rest = parseGroups(s.slice(dbl + 2))
    if (!head || !rest) return null
    const fill = 8 - head.length - rest.length - tail.length
    if (fill < 1) return null
    words = [...head, ...new Array<number>(fill).fill(0), ...rest, ...tail]
  }
  return words
}

/** glibc inet_ntop(AF_INET6): lower-case hex, longest run (≥2) of zero words as `::`, IPv4-mapped/compatible dotted. */
export function formatIPv6(words: readonly number[]): string {
  let bestBase = -1
  let bestLen = 0
  let curBase = -1
  let curLen = 0
  for (let i = 0; i < 8; i++) {
    if (words[i] === 0) {
      if (curBase === -1) {
        curBase = i
        curLen = 1
      } else curLen++
    } else if (curBase !== -1) {
      if (bestBase === -1 || curLen > bestLen) {
        bestBase = curBase
        bestLen = curLen
      }
      curBase = -1
    }
  }
  if (curBase !== -1 && (bestBase === -1 || curLen > bestLen)) {
    bestBase = curBase
    bestLen = curLen
  }
  if (bestBase !== -1 && bestLen < 2) bestBase = -1
  let out = ''
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ':'
      continue
    }
    if (i !== 0) out += ':'
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      const a = words[6] as number
      const b = words[7] as number
      out += `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`
      return out
    }
    out += (words[i] as number).toString(16)
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ':'
  return out
}

/** The IPv4 netmask of a prefix length (0 to 32), as an unsigned 32-bit number. */
export function ipv4PrefixMask(len: number): number {
  return len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0
}

/** The IPv6 netmask of a prefix length (0 to 128), as eight 16-bit words. */
export function ipv6PrefixMask(len: number): number[] {
  return Array.from({length: 8}, (_, i) => {
    const b = Math.max(0, Math.min(16, len - 16 * i))
    return b === 0 ? 0 : (0xffff << (16 - b)) & 0xffff
  })
}

/** Prefix length of a contiguous mask, or -1. */
function maskToPrefix(bits: readonly boolean[]): number {
  let len = 0
  while (len < bits.length && bits[len]) len++
  for (let i = len; i < bits.length; i++) if (bits[i]) return -1
  return len
}

export interface CanonicalAddress {
  /** `net/len` (or `net/dotted-mask` for a non-contiguous mask), as iptables-save prints `-s`/`-d`. */
  text: string
  /** True for 0.0.0.0/0 and ::/0, which iptables-save omits. */
  any: boolean
}

/**
 * Canonical `-s`/`-d` value: the address masked to its network, with the prefix length always present (/32, /128).
 * Returns null for text this pure code cannot interpret (host names, other family), which callers keep verbatim.
 */
export function canonicalAddress(text: string, family: IpFamily): CanonicalAddress | null {
  const slash = text.indexOf('/')
  const addrText = slash === -1 ? text : text.slice(0, slash)
  const maskText = slash === -1 ? null : text.slice(slash + 1)
  if (family === 'ipv4') {
    const addr = parseIPv4(addrText)
    if (addr === null) return null
    let mask: number
    if (maskText === null) mask = 0xffffffff
    else if (/^\d{1,2}$/.test(maskText)) {
      const len = Number(maskText)
      if (len > 32) return null
      mask = ipv4PrefixMask(len)
    } else {
      const m = maskText.includes('.') ? parseIPv4(maskText) : null
      if (m === null) return null
      mask = m
    }
    const net = (addr & mask) >>> 0
    const bits = Array.from({length: 32}, (_, i) => ((mask >>> (31 - i)) & 1) === 1)
    const len = maskToPrefix(bits)
    return {text: `${formatIPv4(net)}/${len === -1 ? formatIPv4(mask) : len}`, any: net === 0 && mask === 0}
  }
  const words = parseIPv6(addrText)
  if (!words) return null
  let maskWords: number[]
  if (maskText === null) maskWords = new Array<number>(8).fill(0xffff)
  else if (/^\d{1,3}$/.test(maskText)) {
    const len = Number(maskText)
    if (len > 128) return null
    maskWords = ipv6PrefixMask(len)
  } else {
    const m = parseIPv6(maskText)
    if (!m) return null
    maskWords = m
  }
  const net = words.map((w, i) => w & (maskWords[i] as number))
  const bits: boolean[] = []
  for (const w of maskWords) for (let b = 15; b >= 0; b--) bits.push(((w >> b) & 1) === 1)
  const len = maskToPrefix(bits)
  return {
    text: `${formatIPv6(net)}/${len === -1 ? formatIPv6(maskWords) : len}`,
    any: net.every((w) => w === 0) && maskWords.every((w) => w === 0),
  }
}

/** A bare address in canonical text (IPv4 dotted quad, IPv6 inet_ntop form), or null if it is not one. */
export function canonicalHost(text: string, family: IpFamily): string | null {
  if (family === 'ipv4') {
    const v = parseIPv4(text)
    return v === null ? null : formatIPv4(v)
  }
  const w = parseIPv6(text)
  return w ? formatIPv6(w) : null
}
