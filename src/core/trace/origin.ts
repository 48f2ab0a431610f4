// Destination parsing and origin resolution, shared with the command so both use the same forms.
import {lastUsableAddress} from '../net/addr.js'
import {type IpFamily, type ParsedCIDR, cidrContains, isLoopback, parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'
import type {TraceOrigin, TraceProtocol} from './types.js'

export interface TraceDestination {
  dst: string
  dport: number
  protocol: TraceProtocol
}

/** `IP:PORT[/PROTO]` or `[IPv6]:PORT[/PROTO]` (protocol tcp, udp or sctp, default tcp); undefined when malformed. */
export function parseTraceDestination(text: string): TraceDestination | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]/]+)):(\d{1,5})(?:\/([A-Za-z]+))?$/.exec(text.trim())
  if (!m) return undefined
  const host = m[1] ?? m[2] ?? ''
  const ip = parseIPSloppy(host)
  if (!ip || (m[1] !== undefined && ip.family !== 'ipv6')) return undefined
  const port = Number(m[3])
  if (port < 1 || port > 65535) return undefined
  const proto = (m[4] ?? 'tcp').toLowerCase()
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp') return undefined
  return {dst: ip.text, dport: port, protocol: proto}
}

export interface ResolvedOrigin {
  from: TraceOrigin
  src?: string
  srcIsLocalPod: boolean
  /** How the source was chosen, for the output. */
  description: string
  /** The interface the packet arrives on (the real link name), when known. */
  inInterface?: string
  /** The pod the packet comes from, when it is one. */
  pod?: {namespace: string; name: string; node?: string}
}

/**
 * Turns `--from` (an IP, `pod`, `host` or `external`) into the packet's origin. An IP on the node is host traffic,
 * an IP in the node's podCIDRs a local pod, anything else arrives from outside (remote pods included). `pod`
 * without an IP takes the last usable address of the node's podCIDR of the family (unlikely to be an endpoint).
 * Returns an error string for anything else.
 */
export function resolveTraceOrigin(
  from: string,
  node: {localAddresses: readonly string[]; podCIDRs: readonly string[]},
  family: IpFamily,
): ResolvedOrigin | {error: string} {
  const podCIDRs = node.podCIDRs.map((c) => parseCIDRSloppy(c)).filter((c): c is ParsedCIDR => c !== undefined && c.family === family)
  if (from === 'host') return {from: 'host', srcIsLocalPod: false, description: 'the node itself'}
  if (from === 'external') return {from: 'external', srcIsLocalPod: false, description: 'a client outside the cluster (address unknown)'}
  if (from === 'pod') {
    const cidr = podCIDRs[0]
    if (!cidr) return {from: 'pod', srcIsLocalPod: true, description: 'a pod on the node (address unknown: the node has no podCIDR of this family)'}
    const addr = lastUsableAddress(cidr)
    return {from: 'pod', src: addr, srcIsLocalPod: true, description: `a pod on the node (assumed address ${addr} in podCIDR ${cidr.text})`}
  }
  const ip = parseIPSloppy(from)
  if (!ip) return {error: `--from ${JSON.stringify(from)} is not an IP address, pod, host or external`}
  if (ip.family !== family) return {error: `--from ${ip.text} is ${ip.family} but the destination is ${family}`}
  const local = isLoopback(ip) || node.localAddresses.some((a) => parseIPSloppy(a.split('/')[0] ?? '')?.text === ip.text)
  if (local) return {from: 'host', src: ip.text, srcIsLocalPod: false, description: `the node itself (${ip.text})`}
  const pod = podCIDRs.find((c) => cidrContains(c, ip))
  if (pod) return {from: 'pod', src: ip.text, srcIsLocalPod: true, description: `a pod on the node (${ip.text} in podCIDR ${pod.text})`}
  return {from: 'external', src: ip.text, srcIsLocalPod: false, description: `${ip.text}, arriving from the network`}
}

