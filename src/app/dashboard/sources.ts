// Where the dashboard's snapshots come from: a bundle on disk, or the cluster and its nodes live (over SSH/debug pods,
// or through the in-cluster agent), through the same services `analyze` and `check` use. A run reports its nodes,
// then each node as its collection finishes, so the table fills in while slow nodes are still being collected.
import type {Area} from '../../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../core/model/snapshot.js'
import {selectNodes} from '../../core/select-nodes.js'
import {parseDuration} from '../../duration.js'
import {UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import {collectWithAgents} from '../agent-run.js'
import {collectTargets} from '../live/collect.js'
import {agentRunOptions, checkInClusterFlags, type InClusterFlags} from '../live/in-cluster.js'
import {checkSelection, type LiveFlags, resolveLiveTargets, selectionLabel} from '../live/targets.js'

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
export function bundleSource(path: string, selection: Selection, env: Pick<Environment, 'readBundle'>): FleetSource {
  // Without a selection the whole bundle is shown; with one, it must be one way, as for `check`.
  if (selection.names.length > 0 || selection.selector !== undefined || selection.all) checkSelection(selection.names, selection)
  return {
    title: `bundle ${path}`,
    async run(h) {
      const bundle = await env.readBundle(path)
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
 * as soon as it is collected. Node selection, transports and timeouts are `check`'s (src/app/live/).
 */
export function liveSource(names: string[], flags: LiveFlags, areas: Area[] | undefined, env: Environment): FleetSource {
  checkSelection(names, flags)
  parseDuration(flags.timeout, 'timeout')
  parseDuration(flags['node-timeout'], 'node-timeout')
  const warnings = new Set<string>()
  return {
    title: `live: ${selectionLabel(names, flags)}`,
    warnings,
    async run(h, signal) {
      const now = () => new Date()
      const targets = await resolveLiveTargets(names, flags, env, now)
      h.targets(targets.cluster, targets.selected.map((n) => n.metadata.name), targets.access.context)
      // Written to the terminal now, warnings would tear the screen: they are kept for after the dashboard. Quitting
      // mid-run does not wait for slow nodes: their connections (and debug pods) are closed at once.
      await collectTargets(targets, flags, env, {
        ...(areas ? {areas} : {}),
        now,
        warn: (m) => warnings.add(m),
        onEvent: (e) => (e.type === 'node-start' ? h.nodeStart(e.node) : h.nodeDone(e.snapshot)),
        ...(signal ? {signal} : {}),
      })
    },
  }
}

/**
 * In-cluster: the cluster once per run, then node-doctor's agent DaemonSet collects every selected node (as `check
 * --in-cluster`, src/app/live/in-cluster.ts); each node is handed over as soon as its agent's document is read.
 * Quitting stops the run and the agent's namespace is deleted, as at every end.
 */
export function inClusterSource(names: string[], flags: InClusterFlags, areas: Area[] | undefined, version: string, env: Environment, options: {pollMs?: number} = {}): FleetSource {
  checkSelection(names, flags)
  checkInClusterFlags(flags)
  const warnings = new Set<string>()
  return {
    title: `in-cluster: ${selectionLabel(names, flags)}`,
    warnings,
    async run(h, signal) {
      const now = () => new Date()
      const {access, connection, cluster, selected, all} = await resolveLiveTargets(names, flags, env, now)
      h.targets(cluster, selected.map((n) => n.metadata.name), access.context)
      const runner = env.agents(connection)
      await collectWithAgents(runner.api, {
        ...agentRunOptions(flags, runner, {selected, all, now, version, ...(areas ? {areas} : {}), ...options, cluster}),
        onEvent: (e) => e.type === 'node-done' && h.nodeDone(e.snapshot),
        warn: (m) => warnings.add(m),
        ...(signal ? {signal} : {}),
      })
    },
  }
}
