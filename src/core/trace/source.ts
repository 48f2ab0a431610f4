// Where the traced packet really comes from. `--from` names a pod (`pod/NS/NAME`), a pod or node IP, the node
// (`host`) or the network (`external`, optionally through a given interface); without it a running pod on the node
// is taken, else the node itself. A pod address is recognised as local from the Pods in the cluster snapshot, the
// node's Calico IPAM blocks, its /32 routes to pod interfaces and its podCIDRs (in that order of evidence). The
// input interface is the real link: for a local pod the device of the node's route to it (cali…, a veth, cni0), for
// traffic from the network the device of the route back to the source (what reverse-path filtering accepts).
import type {Pod} from '../model/k8s.js'
import {type IpFamily, type ParsedCIDR, cidrContains, isLoopback, parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'
import type {ResolvedOrigin} from './origin.js'
import type {RouteIndex} from './route-lookup.js'

/** What `--from` asked for. */
export type SourceSpec =
  | {kind: 'default'}
  | {kind: 'pod'; namespace: string; name: string}
  | {kind: 'ip'; ip: string}
  | {kind: 'host'}
  | {kind: 'external'}

/** `pod/NS/NAME`, an IP, `host`, `external`, `pod` (the default: a running pod on the node) or nothing. */
export function parseSourceSpec(text: string | undefined): SourceSpec | {error: string} {
  if (text === undefined || text === '' || text === 'pod') return {kind: 'default'}
  if (text === 'host') return {kind: 'host'}
  if (text === 'external') return {kind: 'external'}
  const m = /^(?:pod|pods|po)\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text)
  if (m) return {kind: 'pod', namespace: m[1]!, name: m[3]!}
  if (text.startsWith('pod/')) return {error: `--from ${JSON.stringify(text)} is not pod/NAMESPACE/NAME`}
  const ip = parseIPSloppy(text)
  if (ip) return {kind: 'ip', ip: ip.text}
  return {error: `--from ${JSON.stringify(text)} is not pod/NAMESPACE/NAME, an IP address, host or external`}
}

/** The node being traced, as far as the sources need it. */
export interface SourceNode {
  name: string
  /** The node's own addresses (IP or IP/len). */
  localAddresses: readonly string[]
  podCIDRs: readonly string[]
  /** The node's routes, when collected (live, or --routes): decide local pods and the real interfaces. */
  routes?: RouteIndex
  /** Interfaces in the node's namespace, when known (links and addresses), for --in-interface and notes. */
  interfaces?: readonly string[]
}

/** The cluster, as far as the sources need it. */
export interface SourceCluster {
  pods: readonly Pod[]
  /** Calico IPAM blocks with the node each is affine to. */
  blocks: ReadonlyArray<{cidr: string; node?: string}>
}

export interface SourceOptions {
  /** --in-interface: the interface traffic from the network arrives on. */
  inInterface?: string
  /** Endpoint addresses of the destination: the default source avoids them (a pod reaching itself hairpins). */
  avoid?: ReadonlySet<string>
}

const podIPs = (p: Pod): string[] => [...new Set([...(p.status?.podIPs ?? []).map((x) => x.ip), ...(p.status?.podIP ? [p.status.podIP] : [])])]
const podName = (p: Pod): string => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`

function isRunningPod(p: Pod): boolean {
  return p.status?.phase === 'Running' && !p.spec?.hostNetwork && !p.metadata.deletionTimestamp
}

function ipOfFamily(p: Pod, family: IpFamily): string | undefined {
  return podIPs(p).find((ip) => parseIPSloppy(ip)?.family === family)
}

function cidrsOf(texts: readonly string[], family: IpFamily): ParsedCIDR[] {
  return texts.map((c) => parseCIDRSloppy(c)).filter((c): c is ParsedCIDR => c !== undefined && c.family === family)
}

/**
 * Resolves `--from` for one node. Returns the origin (address, whether it is a local pod, the real input interface
 * when known, and a description that says what was chosen and why) or an error for the user.
 */
export function resolveTraceSource(spec: SourceSpec, node: SourceNode, cluster: SourceCluster, family: IpFamily, options: SourceOptions = {}): ResolvedOrigin | {error: string} {
  const inIface = options.inInterface
  if (inIface !== undefined && spec.kind !== 'external' && spec.kind !== 'ip') return {error: '--in-interface goes with --from external or an outside IP'}
  if (inIface !== undefined && node.interfaces && !node.interfaces.includes(inIface)) {
    return {error: `--in-interface ${inIface}: the node has no such interface (it has ${node.interfaces.join(', ')})`}
  }
  switch (spec.kind) {
    case 'host':
      return {from: 'host', srcIsLocalPod: false, description: 'the node itself'}
    case 'external':
      return {
        from: 'external',
        srcIsLocalPod: false,
        ...(inIface !== undefined ? {inInterface: inIface} : {}),
        description: `a client outside the cluster (address unknown)${inIface !== undefined ? `, arriving on ${inIface}` : ''}`,
      }
    case 'pod': {
      const pod = cluster.pods.find((p) => p.metadata.namespace === spec.namespace && p.metadata.name === spec.name)
      if (!pod) return {error: `pod ${spec.namespace}/${spec.name} not found`}
      if (pod.spec?.hostNetwork) {
        const on = pod.spec.nodeName
        if (on === node.name) return {from: 'host', srcIsLocalPod: false, description: `pod ${podName(pod)} (hostNetwork: the node itself)`, pod: podRef(pod)}
        return {error: `pod ${podName(pod)} uses the host network on ${on ?? 'no node'}: trace from that node (--from host) instead`}
      }
      const ip = ipOfFamily(pod, family)
      if (!ip) return {error: `pod ${podName(pod)} has no ${family} address (phase ${pod.status?.phase ?? 'unknown'})`}
      return fromAddress(ip, node, cluster, family, inIface, pod)
    }
    case 'ip': {
      const ip = parseIPSloppy(spec.ip)!
      if (ip.family !== family) return {error: `--from ${ip.text} is ${ip.family} but the destination is ${family}`}
      return fromAddress(ip.text, node, cluster, family, inIface)
    }
    case 'default': {
      const avoid = options.avoid ?? new Set<string>()
      const candidates = cluster.pods
        .filter((p) => p.spec?.nodeName === node.name && isRunningPod(p) && ipOfFamily(p, family) !== undefined)
        .sort((a, b) => rank(a, avoid, family) - rank(b, avoid, family) || podName(a).localeCompare(podName(b)))
      const pod = candidates[0]
      if (pod) {
        const r = fromAddress(ipOfFamily(pod, family)!, node, cluster, family, undefined, pod)
        if ('error' in r) return r
        return {...r, description: `${r.description}; no --from given, so a running pod on the node was taken`}
      }
      return {from: 'host', srcIsLocalPod: false, description: `the node itself (no --from given and no running pod with an ${family} address on ${node.name} is known)`}
    }
  }
}

/** Lower is better: pods that are not endpoints of the destination, then pods outside kube-system. */
function rank(p: Pod, avoid: ReadonlySet<string>, family: IpFamily): number {
  return (avoid.has(ipOfFamily(p, family) ?? '') ? 2 : 0) + (p.metadata.namespace === 'kube-system' ? 1 : 0)
}

function podRef(p: Pod): {namespace: string; name: string; node?: string} {
  return {namespace: p.metadata.namespace ?? 'default', name: p.metadata.name, ...(p.spec?.nodeName ? {node: p.spec.nodeName} : {})}
}

/** Why an address is a pod on this node, or undefined; the evidence in words. */
function localPodEvidence(ip: string, node: SourceNode, cluster: SourceCluster, family: IpFamily, pod: Pod | undefined): string | undefined {
  const parsed = parseIPSloppy(ip)!
  const owner = pod ?? cluster.pods.find((p) => !p.spec?.hostNetwork && podIPs(p).includes(ip) && !p.metadata.deletionTimestamp)
  if (owner && owner.spec?.nodeName !== undefined) return owner.spec.nodeName === node.name ? `pod ${podName(owner)}` : undefined
  const block = cluster.blocks.find((b) => b.node === node.name && cidrsOf([b.cidr], family).some((c) => cidrContains(c, parsed)))
  if (block) return `in Calico block ${block.cidr} of ${node.name}`
  const route = node.routes?.lookup(ip)
  if (route?.route && route.kind === 'unicast' && route.gateway === undefined && route.route.dst.endsWith(family === 'ipv4' ? '/32' : '/128') && route.devices.some(isPodDevice)) {
    return `routed to pod interface ${route.devices.join(', ')}`
  }
  const podCIDR = cidrsOf(node.podCIDRs, family).find((c) => cidrContains(c, parsed))
  if (podCIDR) return `in podCIDR ${podCIDR.text}`
  return undefined
}

/** Host ends of pod interfaces: Calico's cali…, veths of the bridge and ptp plugins, Cilium's lxc…, Azure's azv…, AWS VPC CNI's eni…, GKE's gke…. */
export function isPodDevice(name: string): boolean {
  return /^(cali|veth|lxc|azv|eni|gke)/.test(name)
}

function fromAddress(ip: string, node: SourceNode, cluster: SourceCluster, family: IpFamily, inIface: string | undefined, pod?: Pod): ResolvedOrigin | {error: string} {
  const parsed = parseIPSloppy(ip)!
  const who = pod ? `pod ${podName(pod)} (${ip})` : ip
  const ref = pod ? {pod: podRef(pod)} : {}
  if (isLoopback(parsed) || node.localAddresses.some((a) => parseIPSloppy(a.split('/')[0] ?? '')?.text === ip)) {
    return {from: 'host', src: ip, srcIsLocalPod: false, description: `the node itself (${ip})`, ...ref}
  }
  const evidence = localPodEvidence(ip, node, cluster, family, pod)
  if (evidence !== undefined && inIface !== undefined) return {error: `--in-interface is for traffic from the network, but ${ip} is a pod on ${node.name} (${evidence})`}
  if (evidence !== undefined) {
    const route = node.routes?.lookup(ip)
    const dev = route?.kind === 'unicast' && route.devices.length === 1 ? route.devices[0] : undefined
    const how = dev !== undefined ? `, through its interface ${dev} (the node's route to it)` : ''
    return {
      from: 'pod',
      src: ip,
      srcIsLocalPod: true,
      ...(dev !== undefined ? {inInterface: dev} : {}),
      description: `${pod ? who : `a pod on the node (${ip}, ${evidence})`}, on this node${how}`,
      ...ref,
    }
  }
  // From elsewhere: a pod on another node, or an outside client. It arrives on the interface of the route back.
  let dev = inIface
  let how = inIface !== undefined ? `, arriving on ${inIface}` : ''
  if (dev === undefined) {
    const back = node.routes?.lookup(ip)
    if (back?.kind === 'unicast' && back.devices.length === 1) {
      dev = back.devices[0]
      how = `, arriving on ${dev} (the interface of the node's route back to it: ${back.route!.dst}${back.gateway ? ` via ${back.gateway}` : ''})`
    }
  }
  const elsewhere = pod?.spec?.nodeName ?? cluster.pods.find((p) => podIPs(p).includes(ip))?.spec?.nodeName
  const what = pod ? `${who} on ${pod.spec?.nodeName ?? 'an unknown node'}` : elsewhere !== undefined ? `${ip} (a pod on ${elsewhere})` : ip
  return {from: 'external', src: ip, srcIsLocalPod: false, ...(dev !== undefined ? {inInterface: dev} : {}), description: `${what}, from the network${how}`, ...ref}
}
