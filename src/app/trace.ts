// `trace`: a packet from a real source through the node's iptables rules and through the rules kube-proxy should
// have programmed, then the node's route lookup and the readiness of every endpoint, offline (--objects, --node,
// --iptables-save, optional --routes) or live for a NODE. The dashboard's Service trace uses the same walk
// (traceThrough) over snapshots it already has.
import {NodeFacts} from '../core/facts/node-facts.js'
import {readBlocks} from '../core/checks/routes/calico.js'
import {liveProxierInput} from '../core/checks/iptables/live.js'
import type {KubeObject, Node, Pod} from '../core/model/k8s.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot} from '../core/model/snapshot.js'
import {type IptablesDump, parseIptablesSave} from '../core/parse/iptables-save.js'
import {parseLinks} from '../core/parse/links.js'
import {parseRoutes, type Route} from '../core/parse/routes.js'
import {formatFullKubeProxyVersion, formatKubeProxyVersion} from '../core/proxier/config.js'
import {generateIptablesRestore} from '../core/proxier/iptables/generate.js'
import {loadObjects} from '../core/proxier/objects.js'
import type {RenderInput} from '../core/proxier/render-input.js'
import {
  parseDestinationSpec,
  resolveServiceDestination,
  type ServiceEndpoint,
  type ServiceTarget,
  serviceAtDestination,
  serviceEndpoints,
} from '../core/trace/destination.js'
import {compareTraces, expectedTraceRules, type TraceDestination, traceIptables, type TraceRules} from '../core/trace/iptables-trace.js'
import {indexRoutes, type RouteIndex} from '../core/trace/route-lookup.js'
import {type TraceSetup, traceSetup, type TraceSourceContext} from '../core/trace/setup.js'
import type {SourceCluster} from '../core/trace/source.js'
import {endpointVerdicts} from '../core/trace/verdict.js'
import {inFile, UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import type {TraceView} from '../render/trace.js'
import type {LiveFlags} from './live/targets.js'
import {describeRender, parseInputFile, pastedIptablesDump, type ProxierFlagValues, type ProxyIO, resolveProxierInput} from './proxy/input.js'
import {checkProxierForm, collectProxierNode} from './proxy/live.js'
import {ArtifactUnavailableError} from './live/node-artifact.js'

export interface TraceFlagValues extends ProxierFlagValues, Partial<LiveFlags> {
  'iptables-save'?: string
  /** Offline: the node's `ip route` listing, for the route lookup and the pods' real interfaces. */
  routes?: string
  /** `svc/NS/NAME[:PORT][/PROTO]`, IP:PORT[/PROTO] or [IPv6]:PORT[/PROTO]. */
  to: string
  /** `pod/NS/NAME`, an IP, host or external; absent: a running pod on the node, else the node. */
  from?: string
  /** With --from external (or an outside IP): the interface the packet arrives on. */
  'in-interface'?: string
}

/** kube-proxy's expected rules for `render` in the form the tracer walks: the generated ruleset's model, read directly. */
export function expectedRules(render: RenderInput): TraceRules {
  return expectedTraceRules(generateIptablesRestore(render.input).ruleset)
}

/** The packet of `setup` through the node's rules (`actual`, named `source`) and the expected ones, compared. */
export function traceThrough(render: RenderInput, actualDump: IptablesDump, expected: TraceRules, setup: TraceSetup, source: string): TraceView {
  const actual = traceIptables(actualDump, setup.packet, setup.node)
  const want = traceIptables(expected, setup.packet, setup.node)
  return {
    node: render.node.metadata.name,
    packet: setup.packet,
    origin: setup.origin,
    actual: {source, result: actual},
    expected: {
      source: `kube-proxy ${formatKubeProxyVersion(render.version)} rules from the objects${render.newerThanKnown ? ` (the newest layout known, for ${formatFullKubeProxyVersion(render.newerThanKnown)})` : ''}`,
      result: want,
    },
    comparison: compareTraces(actual, want),
  }
}

/** What a trace reads besides the rules: pods, Calico blocks, nodes, the node's routes and interfaces. */
interface TraceInputs {
  render: RenderInput
  dump: IptablesDump
  source: string
  pods: Pod[]
  nodes: Node[]
  blocks: Array<{cidr: string; node?: string}>
  routes?: Route[]
  routesSource?: string
  interfaces?: string[]
}

const destinationHint = 'Use e.g. --to svc/kube-system/kube-dns:dns/udp, --to 172.30.0.10:80, --to 172.30.0.10:53/udp, --to NODEIP:NODEPORT or --to [fd00::10]:443/tcp (PROTO: tcp, udp, sctp).'

/** `trace`: validates --to/--from against the inputs, reads them (files or live), traces and judges each endpoint. */
export async function tracePacket(nodeArg: string | undefined, flags: TraceFlagValues, env: Environment, io: ProxyIO): Promise<TraceView> {
  const spec = parseDestinationSpec(flags.to)
  if (!spec) throw new UsageError(`--to ${JSON.stringify(flags.to)} is not svc/NAMESPACE/NAME[:PORT][/PROTO] or IP:PORT[/PROTO]`, destinationHint)
  let family = spec.kind === 'address' ? (spec.dst.includes(':') ? 'ipv6' : 'ipv4') : (flags['ip-family'] as 'ipv4' | 'ipv6' | undefined)
  if (spec.kind === 'address' && flags['ip-family'] !== undefined && flags['ip-family'] !== family) {
    throw new UsageError(`--ip-family ${flags['ip-family']} but --to ${flags.to} is ${family}`)
  }
  checkProxierForm(nodeArg, flags, '--iptables-save', flags['iptables-save'])
  if (nodeArg !== undefined && flags.routes !== undefined) throw new UsageError('--routes is for files; with a NODE argument the routes are read from the node')
  let inputs: TraceInputs
  if (nodeArg !== undefined) {
    if (family === 'ipv6') throw new UsageError('live traces are IPv4 for now', 'Collect ip6tables-save and trace it with --iptables-save.')
    family = 'ipv4'
    inputs = await liveInputs(nodeArg, flags, env)
  } else inputs = offlineInputs(flags, env, family, io)
  family ??= inputs.render.input.options.family
  const {render, dump} = inputs
  const mode = render.kubeProxyConfig?.mode
  if (nodeArg === undefined && (mode === 'ipvs' || mode === 'nftables')) {
    // No false verdicts: an iptables walk of an IPVS or nftables node says nothing about where its packets go.
    throw new UsageError(`trace follows iptables rules only; the kube-proxy configuration in the objects says mode: ${mode}`, `Compare the node's ${mode} state with \`kubectl node-doctor proxy diff --mode ${mode}\` instead.`)
  }
  if (io.verbose) io.note(describeRender(render))
  if (!io.quiet) for (const n of render.notes) io.note(`note: ${n}`)

  // The destination and the Service port behind it.
  let destination: TraceDestination
  let target: ServiceTarget | undefined
  if (spec.kind === 'service') {
    const r = resolveServiceDestination(spec, render.input.services, family)
    if ('error' in r) throw new UsageError(r.error, destinationHint)
    destination = r.destination
    target = r.target
  } else {
    destination = {dst: spec.dst, dport: spec.dport, protocol: spec.protocol}
    target = serviceAtDestination(render.input.services, destination, render.input.options.nodeInterfaceAddresses)
  }
  const endpoints: ServiceEndpoint[] = target ? serviceEndpoints(render.input.endpointSlices, target, family) : []

  const routeIndex: RouteIndex | undefined = inputs.routes ? indexRoutes(inputs.routes) : undefined
  const cluster: SourceCluster = {pods: inputs.pods, blocks: inputs.blocks}
  const setup = traceSetup(render, flags.from, destination, family, {
    cluster,
    ...(routeIndex ? {routes: routeIndex} : {}),
    ...(inputs.interfaces ? {interfaces: inputs.interfaces} : {}),
    ...(flags['in-interface'] !== undefined ? {inInterface: flags['in-interface']} : {}),
    avoid: new Set(endpoints.map((e) => e.ip)),
  })
  if ('error' in setup) throw new UsageError(setup.error, 'Use --from pod/NAMESPACE/NAME, --from IP, --from host or --from external [--in-interface IFACE].')
  const view = traceThrough(render, dump, expectedRules(render), setup, inputs.source)
  const nodeAddresses = new Map(inputs.nodes.map((n) => [n.metadata.name, (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => a.address)]))
  const verdicts = endpointVerdicts({
    node: view.node,
    family,
    actual: view.actual.result,
    expected: view.expected.result,
    endpoints,
    service: target !== undefined,
    ...(routeIndex ? {routes: routeIndex} : {}),
    blocks: inputs.blocks,
    nodeAddresses,
  })
  return {
    ...view,
    ...(setup.pod ? {sourcePod: setup.pod} : {}),
    ...(target ? {service: target} : {}),
    ...(inputs.routesSource !== undefined ? {routesSource: inputs.routesSource} : {}),
    verdicts,
  }
}

/** Pods and Calico blocks from objects files (Pods, BlockAffinities and IPAMBlocks land in `other`). */
function objectsExtras(other: readonly KubeObject[]): {pods: Pod[]; blocks: Array<{cidr: string; node?: string}>} {
  const snap: ClusterSnapshot = emptyClusterSnapshot('')
  snap.calico = {
    ipPools: [],
    blockAffinities: other.filter((o) => o.kind === 'BlockAffinity'),
    ipamBlocks: other.filter((o) => o.kind === 'IPAMBlock'),
  }
  return {pods: other.filter((o): o is Pod => o.kind === 'Pod'), blocks: blocksOf(snap)}
}

function blocksOf(cluster: ClusterSnapshot): Array<{cidr: string; node?: string}> {
  return readBlocks(cluster).map((b) => ({cidr: b.cidr.text, ...(b.node !== undefined ? {node: b.node} : {})}))
}

function offlineInputs(flags: TraceFlagValues, env: Environment, family: 'ipv4' | 'ipv6' | undefined, io: ProxyIO): TraceInputs {
  // The objects are read once and parsed twice: by the proxier input, and here for the Pods and Calico blocks.
  const texts = new Map<string, string>()
  const cached = {readInput: (path: string): string => texts.get(path) ?? (texts.set(path, env.readInput(path)), texts.get(path)!)}
  const file = flags['iptables-save']!
  const source = file === '-' ? '<stdin>' : file
  // A pasted dump (indented, CRLF, prompts, fences) is read leniently with warnings unless --strict; an excerpt is
  // refused as for proxy diff: the trace would miss the chains outside it.
  const dump = parseInputFile(
    env,
    file,
    (text) => {
      const d = parseIptablesSave(text)
      // Without a header or addresses the family is a guess: take the destination's.
      return family !== undefined && d.familySource === 'default' && d.family !== family ? parseIptablesSave(text, {family}) : d
    },
    {io, read: pastedIptablesDump(family)},
  )
  if (family !== undefined && dump.family !== family) {
    throw new UsageError(
      `--to ${flags.to} is ${family} but ${source} is ${dump.family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output`,
      `Trace ${family} destinations through ${family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output.`,
    )
  }
  const render = resolveProxierInput(flags, cached, family ?? dump.family)
  const objects = loadObjects((flags.objects ?? []).map((path) => ({name: path, text: cached.readInput(path)})))
  const extras = objectsExtras(objects.other)
  let routes: Route[] | undefined
  if (flags.routes !== undefined) {
    const rs = flags.routes === '-' ? '<stdin>' : flags.routes
    try {
      routes = parseRoutes(env.readInput(flags.routes)).routes
    } catch (err) {
      throw inFile(rs, err)
    }
  }
  return {render, dump, source, pods: extras.pods, nodes: objects.nodes, blocks: extras.blocks, ...(routes ? {routes, routesSource: flags.routes === '-' ? '<stdin>' : flags.routes!} : {})}
}

/**
 * What the cluster and one node's snapshot tell about real trace sources (pods, Calico blocks, the node's routes and
 * interfaces), for traceSetup: `trace` uses it live, and the dashboard's Service trace can pass it to start from a
 * real pod instead of an address assumed in the podCIDR.
 */
export function traceSourceContext(cluster: ClusterSnapshot, node: NodeSnapshot): TraceSourceContext {
  const facts = NodeFacts.of(cluster, node)
  const routes = facts.routes('ip-route')
  const links = facts.links('ip-link') ?? facts.links('ip-addr')
  return {
    cluster: {pods: cluster.pods, blocks: blocksOf(cluster)},
    ...(routes?.ok ? {routes: indexRoutes(routes.value.routes)} : {}),
    ...(links?.ok ? {interfaces: links.value.interfaces.map((i) => i.name)} : {}),
  }
}

async function liveInputs(nodeArg: string, flags: TraceFlagValues, env: Environment): Promise<TraceInputs> {
  const live = await collectProxierNode(nodeArg, flags, env, ['iptables', 'routes'])
  const input = liveProxierInput(live.cluster, live.snap)
  if (!input.ok) {
    // No false verdicts: the rules of another mode are not followed, so say so instead of tracing iptables leftovers.
    const mode = /kube-proxy runs in (\S+) mode/.exec(input.reason)?.[1]
    if (mode !== undefined) {
      const show = mode === 'ipvs' ? 'ipvs show' : mode === 'nftables' ? 'nft show' : undefined
      throw new ArtifactUnavailableError(
        `trace follows iptables rules only; node ${nodeArg} runs kube-proxy in ${mode} mode`,
        show ? `See the node's ${mode} state with \`kubectl node-doctor ${show} ${nodeArg}\`.` : undefined,
      )
    }
    throw new ArtifactUnavailableError(`node ${nodeArg}: ${input.reason}`)
  }
  const facts = NodeFacts.of(live.cluster, live.snap)
  const owner = facts.servicesOwner
  if (owner === 'cilium' || owner === 'calico-ebpf' || owner === 'ovn-kubernetes' || owner === 'kube-router' || owner === 'antrea') {
    // Their Service dataplane is not iptables: kube-proxy's leftover rules (or none) would give a false verdict.
    throw new ArtifactUnavailableError(`trace follows kube-proxy's iptables rules only; Services on node ${nodeArg} are implemented by ${owner}`)
  }
  const routes = facts.routes('ip-route')
  const links = facts.links('ip-link') ?? facts.links('ip-addr')
  let pods = live.cluster.pods
  // A named source pod on another node is not in the snapshot (it holds kube-system and the target node's pods).
  const named = /^(?:pod|pods|po)\/([^/]+)\/([^/]+)$/.exec(flags.from ?? '')
  if (named && !pods.some((p) => p.metadata.namespace === named[1] && p.metadata.name === named[2])) {
    const more = await env.cluster().api.listPods({namespace: named[1]!})
    pods = [...pods, ...more.filter((p) => p.metadata.name === named[2])]
  }
  return {
    render: input.render,
    dump: input.dump,
    source: `${nodeArg}:iptables-save`,
    pods,
    nodes: live.cluster.nodes,
    blocks: blocksOf(live.cluster),
    ...(routes?.ok ? {routes: routes.value.routes, routesSource: `${nodeArg}:ip route`} : {}),
    ...(links?.ok ? {interfaces: links.value.interfaces.map((i) => i.name)} : {}),
  }
}
