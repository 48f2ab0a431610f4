// `--in-cluster`: the same targets as collectLive (kubeconfig → ClusterSnapshot read once → selected nodes), but the
// NodeSnapshots come from node-doctor's own agent DaemonSet instead of SSH or debug pods.
import {defaultAgentImage} from '../../core/agent/manifests.js'
import type {Node} from '../../core/model/k8s.js'
import type {Area} from '../../core/model/report.js'
import type {ClusterSnapshot} from '../../core/model/snapshot.js'
import {parseDuration} from '../../duration.js'
import {UsageError} from '../../errors.js'
import type {AgentRunner, Environment, TextSink} from '../../ports/environment.js'
import {type AgentRunEvent, type AgentRunOptions, collectWithAgents} from '../agent-run.js'
import type {LiveRun} from './collect.js'
import {type LiveFlags, resolveLiveTargets} from './targets.js'

export interface InClusterFlags extends LiveFlags {
  image?: string
}

export async function collectInCluster(
  names: string[],
  flags: InClusterFlags,
  env: Environment,
  options: {areas?: Area[]; version: string; now?: () => Date; pollMs?: number},
): Promise<LiveRun> {
  checkInClusterFlags(flags)
  const now = options.now ?? (() => new Date())
  const {access, connection, cluster, selected, all} = await resolveLiveTargets(names, flags, env, now)
  const say = (m: string) => {
    if (!flags.quiet) env.stderr.write(`${m}\n`)
  }
  const runner = env.agents(connection)
  const result = await collectWithAgents(runner.api, {
    ...agentRunOptions(flags, runner, {...options, selected, all, now, cluster}),
    onEvent: progress(env.stderr, Boolean(env.stderr.isTTY) && !flags.quiet, selected.length, say),
    warn: (m) => env.stderr.write(`${m}\n`),
  })
  return {access, cluster, nodes: result.nodes}
}

/** Flag errors before any cluster access. --in-cluster collects on each node itself: no transport goes with it. */
export function checkInClusterFlags(flags: InClusterFlags): void {
  if (flags.via !== 'ssh') throw new UsageError(`--in-cluster and --via ${flags.via} do not go together`, 'The agent collects on each node itself; drop --via.')
  parseDuration(flags.timeout, 'timeout')
  parseDuration(flags['node-timeout'], 'node-timeout')
}

/** The agent run's options from the command's flags (shared by `check`/`preflight` and the dashboard). */
export function agentRunOptions(
  flags: InClusterFlags,
  runner: AgentRunner,
  o: {selected: Node[]; all: boolean; areas?: Area[]; version: string; now: () => Date; pollMs?: number; cluster?: ClusterSnapshot},
): Omit<AgentRunOptions, 'onEvent' | 'warn'> {
  const timeoutMs = parseDuration(flags.timeout, 'timeout')
  const nodeTimeoutMs = parseDuration(flags['node-timeout'], 'node-timeout')
  return {
    runId: runner.runId,
    image: flags.image ?? defaultAgentImage(o.version),
    ...(o.areas ? {areas: o.areas} : {}),
    nodes: o.selected,
    allNodes: o.all,
    ...(o.cluster ? {cluster: o.cluster} : {}),
    commandTimeoutMs: timeoutMs,
    waitTimeoutMs: agentWaitMs(nodeTimeoutMs, o.selected.length),
    ...(o.pollMs ? {pollMs: o.pollMs} : {}),
    concurrency: flags.concurrency,
    now: o.now,
    registerCleanup: runner.registerCleanup,
  }
}

function progress(out: TextSink, tty: boolean, total: number, say: (m: string) => void): (e: AgentRunEvent) => void {
  let done = 0
  let failed = 0
  return (e) => {
    if (e.type === 'created') return say(`agent: DaemonSet created in namespace ${e.namespace} for ${e.nodes} node(s)`)
    if (e.type === 'deleted') return e.ok ? say(`agent: namespace ${e.namespace} deleted`) : undefined
    done++
    if (!e.ok) failed++
    if (tty) out.write(`\r\x1b[2Kagent: ${done}/${total} done, ${failed} failed${done === total ? '\n' : ''}`)
  }
}

/** Pods per second the DaemonSet controller creates: kube-controller-manager's default client QPS (--kube-api-qps 20). */
const CONTROLLER_PODS_PER_SECOND = 20

/**
 * How long to wait for the agents: --node-timeout (5 min when 0: a pod that never starts must not hang the run)
 * plus the time the DaemonSet controller needs to create that many pods at its default rate.
 */
export function agentWaitMs(nodeTimeoutMs: number, nodes: number): number {
  return (nodeTimeoutMs > 0 ? nodeTimeoutMs : 5 * 60_000) + Math.ceil(nodes / CONTROLLER_PODS_PER_SECOND) * 1000
}
