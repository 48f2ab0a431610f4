// Chain and set names of kube-proxy's nftables mode. Mirrors pkg/proxy/nftables/proxier.go hashAndTruncate,
// servicePortChainNameBase and servicePortEndpointChainNameBase: the first 8 characters of the base32 SHA-256 of the
// readable name, a dash, then `namespace/name/protocol/port[__ip/port]`, truncated to 240 characters.
import {createHash} from 'node:crypto'

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** knftables.NameLengthMax (256) minus chainNamePrefixLengthMax (16). */
export const CHAIN_NAME_BASE_LENGTH_MAX = 240

function hash8(input: string): string {
  const bytes = createHash('sha256').update(input, 'utf8').digest()
  // 8 base32 characters are exactly the first 40 bits.
  let bits = 0
  for (let i = 0; i < 5; i++) bits = bits * 256 + bytes[i]!
  let out = ''
  for (let i = 7; i >= 0; i--) out += BASE32[Math.floor(bits / 2 ** (i * 5)) % 32]
  return out
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
  return hashAndTruncate(`${namespace}/${service}/${protocol.toLowerCase()}/${portName}__${ip.replaceAll(':', '.')}/${port}`)
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
