// NODE-007: each overlay device's MTU against the underlay it encapsulates into. A tunnel MTU above the underlay's
// MTU minus the encapsulation overhead makes every full-size pod packet an outer packet the underlay cannot carry:
// small requests work, large responses (TLS handshakes, big HTTP bodies) are fragmented or dropped and hang.
import type {NetInterface} from '../../parse/links.js'
import {routeDevices} from '../../parse/routes.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {interfaceWithAddress, internalIp, isCiliumTunnel, type OverlayDevice, overlayDevices} from './overlay.js'
import {podBridges} from './prereqs.js'

const ENCAP_NAME: Record<OverlayDevice['encapsulation'], string> = {ipip: 'IPIP', vxlan: 'VXLAN', wireguard: 'WireGuard', geneve: 'Geneve'}

export function checkOverlayMtu(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const links = facts.links('ip-link')
  if (links === undefined) return {status: 'skipped', reason: 'missing input: ip-link'}
  if (!links.ok) return {status: 'skipped', reason: `the link listing could not be parsed: ${links.error.message}`}
  const all = overlayDevices(links.value)
  // NOTE: Cilium keeps its tunnel device at the device MTU and puts the tunnel overhead on the pods' routes (route MTU),
  // so the device MTU says nothing about the pod path there. Not verified against Cilium's source: left unjudged.
  const overlays = all.filter((o) => !isCiliumTunnel(o.iface.name))
  if (overlays.length === 0) {
    return {status: 'skipped', reason: all.length > 0 ? 'not applicable: only Cilium tunnel devices, whose MTU is not the pod path MTU (Cilium limits it on the pods\' routes)' : 'not applicable: no overlay device (tunl0, vxlan.calico, flannel.1, wireguard.cali, ...) is up on the node'}
  }
  const addrs = facts.links('ip-addr')
  const findings: FindingDraft[] = []
  const unknown: string[] = []
  let judged = 0
  for (const o of overlays) {
    const u = underlayOf(ctx, o, links.value.interfaces, addrs?.ok ? addrs.value.interfaces : undefined)
    if ('reason' in u) {
      unknown.push(`${o.iface.name}: ${u.reason}`)
      continue
    }
    if (o.iface.mtu === undefined || u.iface.mtu === undefined) {
      unknown.push(`${o.iface.name}: the listing has no MTU for ${o.iface.mtu === undefined ? o.iface.name : u.iface.name}`)
      continue
    }
    judged++
    const limit = u.iface.mtu - o.overhead
    if (o.iface.mtu <= limit) continue
    const enc = ENCAP_NAME[o.encapsulation]
    findings.push({
      message:
        `${o.iface.name} (${o.owner}) has MTU ${o.iface.mtu}, above ${u.iface.name}'s MTU ${u.iface.mtu} minus the ${o.overhead}-byte ${enc} overhead (${limit}): ` +
        `pod packets larger than ${limit} bytes become outer packets ${u.iface.name} cannot carry, so large responses hang while small requests work`,
      subject: {kind: 'interface', name: o.iface.name},
      evidence: [
        `${o.iface.name}: mtu ${o.iface.mtu}${o.iface.kind ? `, kind ${o.iface.kind}` : ''}`,
        `${u.iface.name}: mtu ${u.iface.mtu} (the underlay: ${u.why})`,
        `${enc} overhead ${o.overhead} bytes${o.encapsulation === 'geneve' ? ' (plus options)' : ''}: at most ${limit}`,
      ],
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (judged === 0) return {status: 'skipped', reason: `cannot tell: ${unknown.join('; ')}`}
  return {status: 'passed'}
}

/**
 * The link an overlay device's outer packets leave through: a VXLAN device's own `dev`, else the link carrying the
 * Node's InternalIP of the outer family (the address peers tunnel to and from).
 */
export function underlayOf(ctx: CheckContext, o: Pick<OverlayDevice, 'iface' | 'outer'>, links: NetInterface[], addrs: NetInterface[] | undefined): {iface: NetInterface; why: string} | {reason: string} {
  const byName = (n: string) => links.find((l) => l.name === n)
  if (o.iface.vxlan?.dev) {
    const dev = byName(o.iface.vxlan.dev)
    if (dev) return {iface: dev, why: `the VXLAN device's dev ${dev.name}`}
  }
  const ip = internalIp(ctx.cluster, ctx.node.node, o.outer)
  if (!ip) return {reason: `the Node has no ${o.outer === 'ipv4' ? 'IPv4' : 'IPv6'} InternalIP to find the underlay by`}
  if (!addrs) return {reason: 'the address listing (ip-addr) was not read or could not be parsed'}
  const carrier = interfaceWithAddress({format: 'ip-json', interfaces: addrs}, ip)
  if (!carrier) return {reason: `no interface carries the InternalIP ${ip}`}
  const dev = byName(carrier.name) ?? carrier
  return {iface: dev, why: `it carries the InternalIP ${ip}`}
}

// ---- NODE-008 ----

/**
 * Pod veths on a bridge CNI (flannel's cni0) against the overlay pod traffic is routed through. The host end has the pod
 * end's MTU: containernetworking/plugins pkg/ip makeVethPair sets one MTU and vishvananda/netlink gives it to the peer.
 */
export function checkPodMtu(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const links = facts.links('ip-link')
  if (links === undefined) return {status: 'skipped', reason: 'missing input: ip-link'}
  if (!links.ok) return {status: 'skipped', reason: `the link listing could not be parsed: ${links.error.message}`}
  const bridges = podBridges(links.value)
  if (bridges.length === 0) return {status: 'skipped', reason: 'not applicable: no bridge with veth ports (pods of a routed CNI such as Calico or Cilium sit on their own veths)'}
  const overlays = overlayDevices(links.value).filter((o) => !isCiliumTunnel(o.iface.name))
  if (overlays.length === 0) return {status: 'skipped', reason: 'not applicable: no overlay device is up: pod traffic leaves through the underlay at the pods\' own MTU'}
  const routes = facts.routes('ip-route')
  if (routes === undefined) return {status: 'skipped', reason: 'missing input: ip-route'}
  if (!routes.ok) return {status: 'skipped', reason: `the route listing could not be parsed: ${routes.error.message}`}
  // The overlays pod traffic is routed through: those the main table sends something to.
  const used = overlays.filter((o) => routes.value.routes.some((r) => r.family === 'inet' && r.table === 'main' && routeDevices(r).includes(o.iface.name)))
  if (used.length === 0) return {status: 'skipped', reason: `not applicable: no route goes through ${overlays.map((o) => o.iface.name).join(', ')}`}
  const path = used.reduce((a, b) => ((b.iface.mtu ?? Infinity) < (a.iface.mtu ?? Infinity) ? b : a))
  if (path.iface.mtu === undefined) return {status: 'skipped', reason: `cannot tell: the listing has no MTU for ${path.iface.name}`}
  const limit = path.iface.mtu
  const findings: FindingDraft[] = []
  for (const b of bridges) {
    const over = b.ports.filter((p) => p.mtu !== undefined && p.mtu > limit)
    if (over.length === 0) continue
    const mtus = [...new Set(over.map((p) => p.mtu))].join(', ')
    findings.push({
      message:
        `${over.length} pod veth(s) on ${b.bridge.name} have MTU ${mtus}, above the ${path.iface.name} overlay's MTU ${limit}: those pods send packets the tunnel cannot carry ` +
        'whole, so their large requests and responses to other nodes stall',
      subject: {kind: 'interface', name: b.bridge.name},
      evidence: [
        `${path.iface.name}: mtu ${limit} (${path.owner}, routes pod traffic to other nodes)`,
        `${b.bridge.name}: mtu ${b.bridge.mtu ?? '?'}`,
        ...over.slice(0, 8).map((p) => `${p.name}: mtu ${p.mtu}`),
        ...(over.length > 8 ? [`... and ${over.length - 8} more`] : []),
      ],
    })
  }
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}
