// The packet and the node a trace needs, from the proxier's input for that node: shared by `trace` and the
// dashboard's Service view so both start a trace the same way.
import type {IpFamily} from '../net/ip.js'
import type {RenderInput} from '../proxier/render-input.js'
import {resolveTraceOrigin, type TraceNode, type TracePacket} from './iptables-trace.js'

export interface TraceSetup {
  packet: TracePacket
  /** How the origin was understood, for the header (`a pod on this node (10.0.1.2)`, ...). */
  origin: string
  node: TraceNode
}

/**
 * `from` is what `--from` takes (an IP, `pod`, `host`, `external`); the destination is a Service frontend.
 * Returns {error} when the origin cannot be resolved for this node (e.g. `pod` on a node without a podCIDR).
 */
export function traceSetup(
  render: RenderInput,
  from: string,
  target: {protocol: TracePacket['protocol']; dst: string; dport: number},
  family: IpFamily = render.input.options.family,
): TraceSetup | {error: string} {
  const o = render.input.options
  const spec = render.node.spec
  const podCIDRs = spec?.podCIDRs ?? (spec?.podCIDR ? [spec.podCIDR] : [])
  const origin = resolveTraceOrigin(from, {localAddresses: o.nodeInterfaceAddresses, podCIDRs}, family)
  if ('error' in origin) return {error: origin.error}
  const packet: TracePacket = {
    protocol: target.protocol,
    dst: target.dst,
    dport: target.dport,
    from: origin.from,
    srcIsLocalPod: origin.srcIsLocalPod,
    ...(origin.src !== undefined ? {src: origin.src} : {}),
  }
  const detector = o.localDetector
  const node: TraceNode = {
    localAddresses: o.nodeInterfaceAddresses,
    ...(detector.mode === 'BridgeInterface' ? {podInterface: {bridge: detector.interfaceName}} : {}),
    ...(detector.mode === 'InterfaceNamePrefix' ? {podInterface: {prefix: detector.prefix}} : {}),
  }
  return {packet, origin: origin.description, node}
}
