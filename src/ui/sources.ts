// Where the dashboard's snapshots come from: a bundle on disk, or the cluster and its nodes live (over SSH/debug pods,
// or through the in-cluster agent), through the same app services `analyze` and `check` use. A run reports its nodes, then each node as its collection finishes, so
// the table fills in while slow nodes are still being collected.
import pLimit from 'p-limit'
import {collectWithAgents} from '../app/agent-run.js'
import {collectFleet} from '../app/collect-fleet.js'
import {agentRunOptions, checkInClusterFlags, type InClusterFlags} from '../cli/agent-live.js'
import {checkSelection, type LiveFlags, resolveLiveTargets, transportFactory} from '../cli/live.js'
import {parseDuration} from '../cli/flags.js'
import {planFor} from '../core/collection/plan.js'
import type {Node} from '../core/model/k8s.js'
import type {Area, ReportMetadata} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import {selectNodes} from '../core/select-nodes.js'
import {NodeDoctorError, UsageError} from '../errors.js'
import {ExitCode} from '../exit-codes.js'
import type {NodeTransport} from '../ports/node-transport.js'
import {readBundle} from '../transports/bundle/bundle.js'
import {KubeAgentApi} from '../transports/kube/agent-api.js'
import {analyzeNode, type FleetEvent} from './fleet-state.js'

export interface RunHandlers {
  /** The run's nodes are known (called once, before any node). */
  targets(cluster: ClusterSnapshot, nodes: string[], context: string | undefined): void
  nodeStart(node: string): void
  nodeDone(snapshot: NodeSnapshot): void
}

export interface FleetSource {
  /** What is being looked at, for the title bar: `bundle examples/bundle`, `live: 3 nodes`. */
  title: string
  /**
   * One check run. Rejects with a NodeDoctorError when the run cannot happen at all (bad bundle, no cluster). Once
   * `signal` aborts (the user quit), no node starts and the open node connections are closed.
   */
  run(handlers: RunHandlers, signal?: AbortSignal): Promise<void>
  /** Warnings of the transports (unverified host keys, ...), printed on stderr once the screen is given back. */
  readonly warnings?: ReadonlySet<string>
}

export interface Selection {
  names: string[]
  selector?: string
  all?: boolean
}

/** Re-reads the bundle on every run (so `r` picks up a bundle rewritten by `collect`). */
export function bundleSource(path: string, selection: Selection): FleetSource {
  // Without a selection the whole bundle is shown; with one, it must be one way, as for `check`.
  if (selection.names.length > 0 || selection.selector !== undefined || selection.all) checkSelection(selection.names, selection)
  return {
    title: `bundle ${path}`,
    async run(h) {
      const bundle = await readBundle(path)
      const inBundle = new Set(bundle.nodes.map((n) => n.node))
      let wanted: Set<string> = inBundle
      if (selection.names.length > 0) {
        const unknown = selection.names.filter((n) => !inBundle.has(n))
        if (unknown.length > 0) throw new UsageError(`${unknown.map((n) => `node "${n}"`).join(', ')} not in bundle ${path}`, `The bundle holds: ${[...inBundle].join(', ')}.`)
        wanted = new Set(selection.names)
      } else if (selection.selector !== undefined) {
        wanted = new Set(selectNodes(bundle.cluster.nodes, {selector: selection.selector}).selected.map((n) => n.metadata.name).filter((n) => inBundle.has(n)))
        if (wanted.size === 0) throw new UsageError(`no node in bundle ${path} matches the selector "${selection.selector}"`)
      }
      const nodes = bundle.nodes.filter((n) => wanted.has(n.node))
      h.targets(bundle.cluster, nodes.map((n) => n.node), bundle.manifest.context)
      for (const n of nodes) h.nodeDone(n)
    },
  }
}

/**
 * Live: the cluster once per run, then every node with bounded parallelism (--concurrency), each node handed over
 * as soon as it is collected. Node selection, transports and timeouts are `check`'s (src/cli/live.ts).
 */
export function liveSource(names: string[], flags: LiveFlags, areas: Area[] | undefined): FleetSource {
  checkSelection(names, flags)
  const timeoutMs = parseDuration(flags.timeout, 'timeout')
  const nodeTimeoutMs = parseDuration(flags['node-timeout'], 'node-timeout')
  const warnings = new Set<string>()
  return {
    title: `live: ${selectionLabel(names, flags)}`,
    warnings,
    async run(h, signal) {
      const now = () => new Date()
      const {access, cluster, selected} = await resolveLiveTargets(names, flags, now)
      h.targets(cluster, selected.map((n) => n.metadata.name), access.context)

      // Written to the terminal now, warnings would tear the screen: they are kept for after the dashboard.
      const factory = transportFactory(flags, (m) => warnings.add(m), access)
      const open = new Set<NodeTransport>()
      const connect = async (node: Node): Promise<NodeTransport> => {
        if (signal?.aborted) throw new Error('the dashboard was closed')
        const t = await factory.connect(node)
        open.add(t)
        if (signal?.aborted) void t.close()
        return t
      }
      const options = {plan: planFor(areas), concurrency: 1, timeoutMs, nodeTimeoutMs, sudo: Boolean(flags.sudo), now, connect, transportKind: flags.via === 'local' ? ('local' as const) : flags.via === 'pod' ? ('pod' as const) : ('ssh' as const)}
      // NOTE: one collectFleet per node under a shared limit, so each snapshot is handed over when its node finishes.
      const limit = pLimit(Math.max(1, flags.concurrency))
      // Quitting mid-run must not wait for slow nodes: their connections (and debug pods) are closed at once.
      const abort = () => {
        for (const t of open) void t.close().catch(() => undefined)
      }
      signal?.addEventListener('abort', abort, {once: true})
      try {
        await Promise.all(
          selected.map((node) =>
            limit(async () => {
              if (signal?.aborted) return // queued nodes are not started; the run still ends and closes the factory
              const [snapshot] = await collectFleet([node], {...options, onEvent: (e) => e.type === 'node-start' && h.nodeStart(e.node)})
              h.nodeDone(snapshot!)
            }),
          ),
        )
      } finally {
        signal?.removeEventListener('abort', abort)
        await factory.close()
      }
    },
  }
}

/**
 * In-cluster: the cluster once per run, then node-doctor's agent DaemonSet collects every selected node (as `check
 * --in-cluster`, src/cli/agent-live.ts); each node is handed over as soon as its agent's document is read. Quitting
 * stops the run and the agent's namespace is deleted, as at every end.
 */
export function inClusterSource(names: string[], flags: InClusterFlags, areas: Area[] | undefined, version: string, options: {pollMs?: number} = {}): FleetSource {
  checkSelection(names, flags)
  checkInClusterFlags(flags)
  const warnings = new Set<string>()
  return {
    title: `in-cluster: ${selectionLabel(names, flags)}`,
    warnings,
    async run(h, signal) {
      const now = () => new Date()
      const {access, client, cluster, selected, all} = await resolveLiveTargets(names, flags, now)
      h.targets(cluster, selected.map((n) => n.metadata.name), access.context)
      await collectWithAgents(new KubeAgentApi(client), {
        ...agentRunOptions(flags, {selected, all, now, version, ...(areas ? {areas} : {}), ...options}),
        onEvent: (e) => e.type === 'node-done' && h.nodeDone(e.snapshot),
        warn: (m) => warnings.add(m),
        ...(signal ? {signal} : {}),
      })
    },
  }
}

/** The selection as the title bar names it: the nodes, `-l SELECTOR`, or all nodes. */
function selectionLabel(names: readonly string[], flags: LiveFlags): string {
  return names.length > 0 ? names.join(', ') : flags.selector !== undefined ? `-l ${flags.selector}` : 'all nodes'
}

export interface RunOptions {
  run: number
  signal?: AbortSignal
  now: () => Date
  tool: {name: string; version: string}
  command: string
  areas?: Area[]
}

/** Runs the source once, dispatching run events; analysis happens here, as each node arrives. Never rejects. */
export async function startRun(source: FleetSource, dispatch: (e: FleetEvent) => void, o: RunOptions): Promise<void> {
  dispatch({type: 'run-start', run: o.run})
  let cluster: ClusterSnapshot | undefined
  let metadata: ReportMetadata | undefined
  try {
    await source.run({
      targets(c, nodes, context) {
        cluster = c
        metadata = {generatedAt: o.now().toISOString(), tool: o.tool, command: o.command, ...(context ? {context} : {})}
        dispatch({type: 'targets', run: o.run, cluster: c, nodes, metadata})
      },
      nodeStart: (node) => dispatch({type: 'node-start', run: o.run, node}),
      nodeDone(snapshot) {
        dispatch({type: 'node-done', run: o.run, analysis: analyzeNode(cluster!, snapshot, {metadata: metadata!, ...(o.areas ? {areas: o.areas} : {})})})
      },
    }, o.signal)
    dispatch({type: 'run-done', run: o.run, at: o.now().toISOString()})
  } catch (err) {
    const known = err instanceof NodeDoctorError
    dispatch({
      type: 'run-failed',
      run: o.run,
      message: known ? err.message : `internal error: ${(err as Error).message}`,
      exitCode: known ? err.exitCode : ExitCode.INTERNAL,
      ...(known && err.hint ? {hint: err.hint} : {}),
    })
  }
}
