// `why TARGET --from NODE`: collect only what the question needs on that node (the Service path: kube-proxy's
// rules in whichever mode, routes, DNS, endpoints, conntrack; not the kubelet hygiene), run those checks, and
// judge the target (core/why). Offline with --bundle: the same over a bundle written by `collect`.
import type {ProfileSelection} from '../core/checks/types.js'
import type {Area, Report, ReportMetadata} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import {parseWhyTarget, type WhyTarget, type WhyVerdict, whyVerdict} from '../core/why/verdict.js'
import {UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import {analyzeSnapshots} from './analyze.js'
import {collectLive} from './live/collect.js'
import {type LiveFlags, SINGLE_NODE_DEFAULTS} from './live/targets.js'

/** What a Service's path from a node depends on: every proxy mode's rules (the mode is read, not assumed), routes, DNS. */
export const WHY_AREAS: readonly Area[] = ['proxy-mode', 'iptables', 'ipvs', 'nftables', 'routes', 'dns', 'endpoints', 'conntrack']

export type WhyFlagValues = Partial<LiveFlags> & {
  from: string
  bundle?: string
}

export interface WhyResult {
  verdict: WhyVerdict
  report: Report
}

/** The target as `why` takes it; a UsageError naming the accepted forms otherwise. */
export function whyTarget(text: string): WhyTarget {
  const t = parseWhyTarget(text)
  if (!t) throw new UsageError(`cannot read the target ${JSON.stringify(text)}`, 'Use svc/NAMESPACE/NAME[:PORT], pod/NAMESPACE/NAME or dns.')
  return t
}

/** Collects (or reads from --bundle) the node and judges the target from it. */
export async function explainWhy(targetText: string, flags: WhyFlagValues, env: Environment, o: {profile?: ProfileSelection; tool: ReportMetadata['tool']; command: string}): Promise<WhyResult> {
  const target = whyTarget(targetText)
  let cluster: ClusterSnapshot
  let nodes: NodeSnapshot[]
  let context: string | undefined
  if (flags.bundle !== undefined) {
    const b = await env.readBundle(flags.bundle)
    nodes = b.nodes.filter((n) => n.node === flags.from)
    if (nodes.length === 0) throw new UsageError(`node "${flags.from}" is not in the bundle ${flags.bundle}`, `It holds: ${b.nodes.map((n) => n.node).join(', ') || 'no nodes'}.`)
    cluster = b.cluster
    context = b.manifest.context
  } else {
    const live = await collectLive([flags.from], {...SINGLE_NODE_DEFAULTS, ...flags, concurrency: 1}, env, {areas: [...WHY_AREAS]})
    cluster = live.cluster
    nodes = live.nodes
    context = live.access.context
    if (target.kind === 'pod') cluster = await withTargetPod(cluster, target.pod, env)
  }
  if (target.kind === 'service' && !cluster.services.some((s) => `${s.metadata.namespace ?? 'default'}/${s.metadata.name}` === target.service)) {
    throw new UsageError(`service "${target.service}" not found`, "List Services with 'kubectl get svc -A'.")
  }
  const report = analyzeSnapshots(cluster, nodes, {
    areas: WHY_AREAS,
    profile: o.profile ?? 'incident',
    metadata: {generatedAt: new Date().toISOString(), tool: o.tool, command: o.command, ...(context ? {context} : {})},
  })
  return {verdict: whyVerdict(report, cluster, target, flags.from), report}
}

/** A single-node read lists only that node's and kube-system's pods: read the target pod's namespace too. */
async function withTargetPod(cluster: ClusterSnapshot, pod: string, env: Environment): Promise<ClusterSnapshot> {
  const [ns, name] = pod.split('/') as [string, string]
  if (cluster.pods.some((p) => p.metadata.namespace === ns && p.metadata.name === name)) return cluster
  const pods = await env.cluster().api.listPods({namespace: ns})
  const found = pods.find((p) => p.metadata.name === name)
  if (!found) throw new UsageError(`pod "${pod}" not found`, `List pods with 'kubectl -n ${ns} get pods'.`)
  return {...cluster, pods: [...cluster.pods, found]}
}
