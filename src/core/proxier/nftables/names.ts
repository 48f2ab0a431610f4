// Chain and set names of kube-proxy's nftables mode. Mirrors pkg/proxy/nftables/proxier.go hashAndTruncate,
// servicePortChainNameBase and servicePortEndpointChainNameBase: the first 8 characters of the base32 SHA-256 of the
// readable name, a dash, then `namespace/name/protocol/port[__ip/port]`, truncated to 240 characters.
import * as crypto from 'node:crypto'

const BASE32 = Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', (c) => c.charCodeAt(0))

/** knftables.NameLengthMax (256) minus chainNamePrefixLengthMax (16). */
export const CHAIN_NAME_BASE_LENGTH_MAX = 240

// One-shot crypto.hash (Node 20.12+) is about twice as fast as a Hash object, and a table of 100k endpoints needs
// as many hashes; createHash on older Node 20 releases (a namespace import, as a named one would not even load there).
// Hex rather than a Buffer: no ArrayBuffer to allocate and free per name.
const sha256Hex: (input: string) => string =
  typeof crypto.hash === 'function' ? (input) => crypto.hash('sha256', input, 'hex') : (input) => crypto.createHash('sha256').update(input, 'utf8').digest('hex')

function hash8(input: string): string {
  const hex = sha256Hex(input)
  // 8 base32 characters are exactly the first 40 bits: the first 10 hex digits, read as 8 + 32 bits.
  const hi = parseInt(hex.slice(0, 2), 16)
  const lo = parseInt(hex.slice(2, 10), 16)
  return String.fromCharCode(
    BASE32[hi >> 3]!,
    BASE32[((hi & 7) << 2) | (lo >>> 30)]!,
    BASE32[(lo >>> 25) & 31]!,
    BASE32[(lo >>> 20) & 31]!,
    BASE32[(lo >>> 15) & 31]!,
    BASE32[(lo >>> 10) & 31]!,
    BASE32[(lo >>> 5) & 31]!,
    BASE32[lo & 31]!,
  )
}

/** `HASH-name`, cut to 240 characters with a trailing `...` when longer. */
export function hashAndTruncate(name: string): string {
  const full = `${hash8(name)}-${name}`
  return full.length > CHAIN_NAME_BASE_LENGTH_MAX ? `${full.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3)}...` : full
}

/** `HASH-ns/svc/proto/port`, e.g. `ULMVA6XW-ns1/svc1/tcp/p80` (port is the port's name, possibly empty). */
export function servicePortChainNameBase(namespace: string, service: string, protocol: string, portName: string): string {
  return hashAndTruncate(`${namespace}/${service}/${protocol.toLowerCase()}/${portName}`)
}

/** `HASH-ns/svc/proto/port__ip/port`; IPv6 colons become dots (colons are not allowed in nft names). */
export function endpointChainNameBase(namespace: string, service: string, protocol: string, portName: string, ip: string, port: number): string {
  return hashAndTruncate(`${namespace}/${service}/${protocol.toLowerCase()}/${portName}__${ip.includes(':') ? ip.replaceAll(':', '.') : ip}/${port}`)
}

export const SERVICE_CHAIN_PREFIX = 'service-'
export const LOCAL_CHAIN_PREFIX = 'local-'
export const EXTERNAL_CHAIN_PREFIX = 'external-'
export const ENDPOINT_CHAIN_PREFIX = 'endpoint-'
export const AFFINITY_SET_PREFIX = 'affinity-'
export const FIREWALL_CHAIN_PREFIX = 'firewall-'

/** kube-proxy's own test: only per-service chains and sets have a `/` in their names. */
export function isServiceChainName(name: string): boolean {
  return name.includes('/')
}

/** `ns/svc/proto/port` from a per-service chain or set name (endpoint part dropped), or undefined. */
export function servicePartOfName(name: string): string | undefined {
  const m = /^(?:service|local|external|endpoint|affinity|firewall)-[A-Z2-7]{8}-(.+)$/.exec(name)
  if (!m) return undefined
  const rest = m[1]!
  const i = rest.indexOf('__')
  return i < 0 ? rest : rest.slice(0, i)
}
