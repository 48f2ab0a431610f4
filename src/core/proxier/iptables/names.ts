// Chain names kube-proxy derives from a service-port name. Mirrors pkg/proxy/iptables/proxier.go portProtoHash and
// servicePortEndpointChainName: the first 16 characters of the standard base32 encoding of SHA-256(input).
import {createHash} from 'node:crypto'

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32 of the first 10 bytes: exactly 16 characters, no padding involved. */
function base32Prefix16(bytes: Uint8Array): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (let i = 0; i < 10; i++) {
    buffer = (buffer << 8) | bytes[i]!
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

function hash16(input: string): string {
  return base32Prefix16(createHash('sha256').update(input, 'utf8').digest())
}

/** The 16-character hash shared by a service port's SVC/SVL/EXT/FW chains: SPN + lower-case protocol. */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash16(servicePortName + protocol.toLowerCase())
}

export type ServiceChainKind = 'SVC' | 'SVL' | 'EXT' | 'FW'

/** KUBE-SVC-/KUBE-SVL-/KUBE-EXT-/KUBE-FW- + portProtoHash. */
export function servicePortChainName(kind: ServiceChainKind, servicePortName: string, protocol: string): string {
  return `KUBE-${kind}-${portProtoHash(servicePortName, protocol)}`
}

/** KUBE-SEP- + hash of SPN + lower-case protocol + endpoint string (`ip:port` / `[ip6]:port`). */
export function endpointChainName(servicePortName: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${hash16(servicePortName + protocol.toLowerCase() + endpoint)}`
}

/** Prefixes of per-service nat chains; only such chains are ever deleted as stale. */
export const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-FW-', 'KUBE-SEP-'] as const

export function isServiceChainName(chain: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((p) => chain.startsWith(p))
}
