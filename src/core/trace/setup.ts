// The packet and the node a trace needs, from the proxier's input for that node: shared by `trace` and the
// dashboard's Service view so both start a trace the same way.
import type {IpFamily} from '../net/ip.js'
import type {RenderInput} from '../proxier/render-input.js'
import {resolveTraceOrigin, type ResolvedOrigin, type TraceNode, type TracePacket} from './iptables-trace.js'
import type {RouteIndex} from './route-lookup.js'
import {parseSourceSpec, resolveTraceSource, type SourceCluster} from './source.js'

export interface TraceSetup {
  packet: TracePacket
  /** How the origin was understood, for the header (`a pod on this node (10.0.1.2)`, ...). */
  origin: string
  node: TraceNode
  /** The source pod, when the packet comes from one. */
  pod?: {namespace: string; name: string; node?: string}
}

/** What the node and the cluster tell about real sources: pods, Calico blocks, the node's routes and interfaces. */
export interface TraceSourceContext {
  cluster: SourceCluster
  /** The node's routes, when collected; without them interfaces come from kube-proxy's local detector or assumptions. */
  routes?: RouteIndex
  /** The node's interface names, when known. */
  interfaces?: readonly string[]
  /** --in-interface. */
  inInterface?: string
  /** Endpoint addresses of the destination (the default source avoids them). */
  avoid?: ReadonlySet<string>
}

/**
 * `from` is what `--from` takes (`pod/NS/NAME`, an IP, `host`, `external`; absent or `pod`: a running pod on the
 * node); the destination is a Service frontend. With `context` the source is resolved from the cluster's pods, the
 * Calico blocks and the node's routes; without it (the dashboard) `pod` is an assumed address in the node's podCIDR.
 * Returns {error} when the origin cannot be resolved for this node.
 */
export function traceSetup(
  render: RenderInput,
  from: string | undefined,
  target: {protocol: TracePacket['protocol']; dst: string; dport: number},
  family: IpFamily = render.input.options.family,
  context?: TraceSourceContext,
): TraceSetup | {error: string} {
  const o = render.input.options
  const spec = render.node.spec
  const podCIDRs = spec?.podCIDRs ?? (spec?.podCIDR ? [spec.podCIDR] : [])
  let origin: ResolvedOrigin | {error: string}
  if (context) {
    const s = parseSourceSpec(from)
    if ('error' in s) return s
    origin = resolveTraceSource(
      s,
      {
        name: render.node.metadata.name,
        localAddresses: o.nodeInterfaceAddresses,
        podCIDRs,
        ...(context.routes ? {routes: context.routes} : {}),
        ...(context.interfaces ? {interfaces: context.interfaces} : {}),
      },
      context.cluster,
      family,
      {...(context.inInterface !== undefined ? {inInterface: context.inInterface} : {}), ...(context.avoid ? {avoid: context.avoid} : {})},
    )
  } else origin = resolveTraceOrigin(from ?? 'pod', {localAddresses: o.nodeInterfaceAddresses, podCIDRs}, family)
  if ('error' in origin) return {error: origin.error}
  const packet: TracePacket = {
    protocol: target.protocol,
    dst: target.dst,
    dport: target.dport,
    from: origin.from,
    srcIsLocalPod: origin.srcIsLocalPod,
    ...(origin.src !== undefined ? {src: origin.src} : {}),
    ...(origin.inInterface !== undefined ? {inInterface: origin.inInterface} : {}),
  }
  const detector = o.localDetector
  const routes = context?.routes
  const node: TraceNode = {
    localAddresses: o.nodeInterfaceAddresses,
    ...(detector.mode === 'BridgeInterface' ? {podInterface: {bridge: detector.interfaceName}} : {}),
    ...(detector.mode === 'InterfaceNamePrefix' ? {podInterface: {prefix: detector.prefix}} : {}),
    ...(routes
      ? {
          routeDevice: (dst: string) => {
            const r = routes.lookup(dst)
            return r.kind === 'unicast' && r.devices.length === 1 ? r.devices[0] : undefined
          },
        }
      : {}),
  }
  return {packet, origin: origin.description, node, ...(origin.pod ? {pod: origin.pod} : {})}
}
