// NODE-020: hairpin mode off on the pod ports of a bridge CNI's bridge (issue #19 item 5). A pod that reaches its own
// Service is DNATed back to itself: the frame must leave the bridge through the port it came in on, which the bridge
// does only for ports with hairpin_mode on. Routed CNIs (Calico, Cilium) have no pod bridge and never apply.
// Who sets it: the CNI plugin (the bridge plugin's `hairpinMode: true`, flannel's delegate). The kubelet's own
// hairpinMode setting acted only through dockershim/kubenet, removed in v1.24 (kubernetes/kubernetes#45790,
// cloudnativelabs/kube-router#1582): it is shown as evidence, never judged.
import {factKey} from '../../facts/node-facts.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {effectiveConfig, kubeletView, valueAt} from '../kubelet/view.js'

/** Bridges pods sit on with a bridge CNI: flannel and the bridge plugin's default, kubenet's and GKE's. docker0 is not a pod bridge. */
export const POD_BRIDGE_NAMES: readonly string[] = ['cni0', 'cbr0']

/** Layouts whose pods are routed (no pod bridge): the check never applies there, whatever bridges exist. */
const ROUTED_LAYOUTS = new Set(['calico', 'canal', 'cilium', 'aws-vpc-cni', 'antrea', 'ovn-kubernetes'])

export const NODE_HAIRPIN: CheckSpec = {
  id: 'NODE-020',
  area: 'routes',
  severity: 'warning',
  title: 'Hairpin mode is off on pod ports of the CNI bridge: a pod cannot reach itself through its Service',
  looksAt:
    "The node's links (`ip -j -d link show`): the veth ports of the pod bridge (`cni0` for flannel and the bridge plugin, `cbr0`) and each port's `hairpin` flag " +
    '(the same value as /sys/class/net/cni0/brif/PORT/hairpin_mode). Applies only to bridge CNIs: not where the layout is a routed CNI (Calico, Cilium, cloud VPC CNIs) ' +
    "or the node has no such bridge with veth ports. A bridge in promiscuous mode is an alternative way to hairpin and is not judged. The kubelet's hairpinMode " +
    'is shown as evidence only: with containerd or CRI-O the CNI plugin sets hairpin, not the kubelet.',
  why:
    "A pod calling a Service whose chosen endpoint is the pod itself gets its packet DNATed back to its own address. The bridge must send that frame back out the " +
    'port it arrived on, which it refuses unless hairpin mode is on: the connection hangs, only for the pods that hit themselves (a one-replica Service ' +
    'calling itself, a cluster member probing its own Service), which makes it look random (kubernetes/kubernetes#20475, #22717, #43966).',
  remedy:
    'Turn it on in the CNI configuration so new pods get it: `"hairpinMode": true` in the bridge plugin\'s config (flannel: in the `delegate` of its cni-conf.json ' +
    'in the kube-flannel ConfigMap), then restart the CNI DaemonSet. For running pods: `ip link set VETH type bridge_slave hairpin on` for each port (or ' +
    '`echo 1 > /sys/class/net/cni0/brif/VETH/hairpin_mode`).',
  requires: ['ip-link'],
}

interface BridgePort {
  name: string
  bridge: string
  hairpin?: boolean
}

interface BridgeFacts {
  /** Pod bridges by name, with their promiscuous flag. */
  bridges: Map<string, {promisc: boolean}>
  ports: BridgePort[]
}

const BRIDGES = factKey<BridgeFacts | {error: string}>('node: pod bridges and their ports (hairpin)')

/** Reads bridges and their veth ports with the hairpin flag from `ip -j -d link show` (the links parser keeps no slave data). */
export function podBridgePorts(text: string): BridgeFacts {
  const links = JSON.parse(text) as unknown
  if (!Array.isArray(links)) throw new Error('ip -j -d link show: expected a JSON array')
  const bridges = new Map<string, {promisc: boolean}>()
  const ports: BridgePort[] = []
  for (const l of links as Array<Record<string, unknown>>) {
    const info = (l['linkinfo'] ?? {}) as Record<string, unknown>
    const name = String(l['ifname'] ?? '')
    const flags = Array.isArray(l['flags']) ? (l['flags'] as unknown[]) : []
    if (info['info_kind'] === 'bridge' && POD_BRIDGE_NAMES.includes(name)) bridges.set(name, {promisc: flags.includes('PROMISC')})
    if (info['info_kind'] === 'veth' && info['info_slave_kind'] === 'bridge' && typeof l['master'] === 'string') {
      const slave = (info['info_slave_data'] ?? {}) as Record<string, unknown>
      const port: BridgePort = {name, bridge: l['master']}
      if (typeof slave['hairpin'] === 'boolean') port.hairpin = slave['hairpin']
      ports.push(port)
    }
  }
  return {bridges, ports: ports.filter((p) => bridges.has(p.bridge))}
}

function kubeletHairpinMode(ctx: CheckContext): string {
  const eff = effectiveConfig(kubeletView(ctx))
  if (!eff.ok) return `kubelet hairpinMode: unknown (${eff.reason})`
  const v = valueAt(eff.value.cfg, 'hairpinMode')
  return `kubelet hairpinMode: ${typeof v === 'string' && v !== '' ? v : 'promiscuous-bridge (default)'} (${eff.value.basis}; ignored with containerd/CRI-O since v1.24: the CNI plugin sets hairpin)`
}

export function checkHairpin(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const layout = facts.layout
  if (ROUTED_LAYOUTS.has(layout)) return {status: 'skipped', reason: `not applicable: the CNI is ${layout}, whose pods are routed, not bridged`}
  const text = facts.text('ip-link')
  if (text === undefined) return {status: 'skipped', reason: 'missing input: ip-link'}
  if (!text.trim().startsWith('[')) return {status: 'skipped', reason: 'cannot tell: the link listing is not `ip -j -d link show` JSON (no per-port hairpin flag)'}
  const read = facts.derive(BRIDGES, () => {
    try {
      return podBridgePorts(text)
    } catch (err) {
      return {error: (err as Error).message}
    }
  })
  if ('error' in read) return {status: 'skipped', reason: `the link listing could not be read: ${read.error}`}
  if (read.ports.length === 0) return {status: 'skipped', reason: `not applicable: no pod bridge (${POD_BRIDGE_NAMES.join(', ')}) with veth ports on the node`}
  const findings: FindingDraft[] = []
  const unknown: string[] = []
  for (const [bridge, b] of read.bridges) {
    const ports = read.ports.filter((p) => p.bridge === bridge)
    if (ports.length === 0) continue
    if (b.promisc) {
      unknown.push(`${bridge} is in promiscuous mode (another way to hairpin; not judged)`)
      continue
    }
    const off = ports.filter((p) => p.hairpin === false)
    if (ports.some((p) => p.hairpin === undefined)) unknown.push(`${bridge}: the listing has no hairpin flag for some ports`)
    if (off.length === 0) continue
    findings.push({
      message: `hairpin mode is off on ${off.length} of ${ports.length} pod port(s) of ${bridge}: pods behind ${off.length === 1 ? 'it' : 'them'} cannot reach themselves through a Service`,
      subject: {kind: 'link', name: bridge},
      evidence: [...off.slice(0, 10).map((p) => `${p.name} (master ${bridge}): hairpin off`), ...(off.length > 10 ? [`... ${off.length - 10} more`] : []), kubeletHairpinMode(ctx)],
      remedy: `Set \`"hairpinMode": true\` in the CNI's bridge configuration (flannel: the delegate in kube-flannel's cni-conf.json) and restart the CNI pods; for running pods on ${ctx.node.node}: ${off
        .slice(0, 3)
        .map((p) => `\`ip link set ${p.name} type bridge_slave hairpin on\``)
        .join(', ')}${off.length > 3 ? ', ...' : ''}.`,
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (unknown.length > 0) return {status: 'skipped', reason: `cannot tell: ${unknown.join('; ')}`}
  return {status: 'passed'}
}
