// Live collection: the targets (src/app/live/targets.ts), then every node over the Environment's transports with
// bounded parallelism; one progress line on a terminal. Each node's snapshot is handed over in its `node-done` event
// as soon as it is collected (the dashboard shows nodes as they arrive), and all of them come back in order.
import {isSecurityWarning} from '../../core/model/security-warning.js'
import {planFor} from '../../core/collection/plan.js'
import type {Area} from '../../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../core/model/snapshot.js'
import {parseDuration} from '../../duration.js'
import type {ApiAccess, Environment, TextSink} from '../../ports/environment.js'
import {type CollectFleetOptions, collectFleet, type FleetEvent} from '../collect-fleet.js'
import {type LiveFlags, type LiveTargets, resolveLiveTargets} from './targets.js'

export interface LiveRun {
  access: ApiAccess
  cluster: ClusterSnapshot
  nodes: NodeSnapshot[]
}

function progress(out: TextSink, enabled: boolean, total: number): (e: FleetEvent) => void {
  let done = 0
  let failed = 0
  let running = 0
  return (e) => {
    if (e.type === 'node-start') running++
    else {
      running--
      done++
      if (!e.ok) failed++
    }
    if (!enabled) return
    out.write(`\r\x1b[2Kcollecting: ${done}/${total} done, ${failed} failed, ${running} running`)
    if (done === total) out.write('\n')
  }
}

export interface FleetRunOptions {
  areas?: Area[]
  now: () => Date
  /** Transport warnings (unverified host keys, ...). */
  warn: (message: string) => void
  onEvent?: (e: FleetEvent) => void
  signal?: AbortSignal
  /** Work on each collected node over its still-open transport (collectFleet's afterCollect). */
  afterCollect?: CollectFleetOptions['afterCollect']
}

/** Collects the selected nodes of `targets` over the transports --via names; closes them all at the end. */
export async function collectTargets(targets: LiveTargets, flags: LiveFlags, env: Environment, o: FleetRunOptions): Promise<NodeSnapshot[]> {
  const timeoutMs = parseDuration(flags.timeout, 'timeout')
  const nodeTimeoutMs = parseDuration(flags['node-timeout'], 'node-timeout')
  const connector = env.nodes(targets.connection, o.warn)
  return collectFleet(targets.selected, {
    plan: planFor(o.areas),
    concurrency: flags.concurrency,
    timeoutMs,
    nodeTimeoutMs,
    sudo: Boolean(flags.sudo),
    now: o.now,
    connect: (node) => connector.connect(node),
    ...(o.onEvent ? {onEvent: o.onEvent} : {}),
    ...(o.signal ? {signal: o.signal} : {}),
    ...(o.afterCollect ? {afterCollect: o.afterCollect} : {}),
    transportKind: connector.kind,
  }).finally(() => connector.close())
}

/** `check`, `collect`, `preflight`: kubeconfig → ClusterSnapshot (read once) → NodeSnapshots, with progress. */
export async function collectLive(
  names: string[],
  flags: LiveFlags,
  env: Environment,
  options: {areas?: Area[]; now?: () => Date; afterCollect?: (targets: LiveTargets) => FleetRunOptions['afterCollect']} = {},
): Promise<LiveRun> {
  const now = options.now ?? (() => new Date())
  parseDuration(flags.timeout, 'timeout')
  parseDuration(flags['node-timeout'], 'node-timeout')
  const targets = await resolveLiveTargets(names, flags, env, now)
  const afterCollect = options.afterCollect?.(targets)
  const nodes = await collectTargets(targets, flags, env, {
    ...(options.areas ? {areas: options.areas} : {}),
    ...(afterCollect ? {afterCollect} : {}),
    now,
    warn: (m) => (!flags.quiet || isSecurityWarning(m)) && env.stderr.write(`${m}\n`),
    onEvent: progress(env.stderr, Boolean(env.stderr.isTTY) && !flags.quiet, targets.selected.length),
  })
  return {access: targets.access, cluster: targets.cluster, nodes}
}
