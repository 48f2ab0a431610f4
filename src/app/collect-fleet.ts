// Collects NodeSnapshots from many nodes with bounded parallelism. One node failing never stops the others:
// a node that cannot be reached gets an empty snapshot with a fatal collection error.
import pLimit from 'p-limit'
import type {PlanItem} from '../core/collection/plan.js'
import type {Node} from '../core/model/k8s.js'
import {type NodeSnapshot, SNAPSHOT_API_VERSION} from '../core/model/snapshot.js'
import type {NodeTransport} from '../ports/node-transport.js'
import {collectNode} from './collect-node.js'

export type FleetEvent =
  | {type: 'node-start'; node: string}
  | {type: 'node-done'; node: string; ok: boolean; durationMs: number; error?: string; snapshot: NodeSnapshot}

export interface CollectFleetOptions {
  plan: readonly PlanItem[]
  concurrency: number
  /** Per command. */
  timeoutMs: number
  /** Whole node (connect + every command); 0 = none. */
  nodeTimeoutMs: number
  sudo: boolean
  now: () => Date
  /** Opens a transport to a node; may throw (unreachable, auth, host key): that node becomes uncollected. */
  connect: (node: Node) => Promise<NodeTransport>
  onEvent?: (e: FleetEvent) => void
  /** Recorded on snapshots of nodes that could not be reached. */
  transportKind: NodeSnapshot['transport']
  /**
   * Stops the run early (the dashboard was closed): nodes not started yet are skipped (left out of the result), the
   * open transports are closed at once so slow nodes end now.
   */
  signal?: AbortSignal
  /**
   * Runs on the node's transport, still open, once the node is collected (outside nodeTimeoutMs), before it is closed;
   * what it returns replaces the snapshot (`check --probe` runs its pings here, over the same connection or pod).
   * Must not reject for the node's own failures: record them in the snapshot.
   */
  afterCollect?: (transport: NodeTransport, snapshot: NodeSnapshot) => Promise<NodeSnapshot>
}

function failedSnapshot(node: string, collectedAt: string, message: string, durationMs: number, transport: NodeSnapshot['transport']): NodeSnapshot {
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node,
    collectedAt,
    transport,
    artifacts: {},
    errors: [{node, source: 'connect', message, fatal: true}],
    durationMs,
  }
}

/** One snapshot per node, in the order given (without the nodes skipped once `signal` aborted). */
export async function collectFleet(nodes: readonly Node[], options: CollectFleetOptions): Promise<NodeSnapshot[]> {
  const limit = pLimit(Math.max(1, options.concurrency))
  const {signal} = options
  const open = new Set<NodeTransport>()
  const abort = () => {
    for (const t of open) void t.close().catch(() => undefined)
  }
  signal?.addEventListener('abort', abort, {once: true})
  const connect = async (node: Node): Promise<NodeTransport> => {
    if (signal?.aborted) throw new Error('the run was stopped')
    const t = await options.connect(node)
    open.add(t)
    if (signal?.aborted) void t.close()
    return t
  }
  const snapshots = await Promise.all(
    nodes.map((node) =>
      limit(async () => {
        if (signal?.aborted) return undefined
        const name = node.metadata.name
        const start = options.now()
        options.onEvent?.({type: 'node-start', node: name})
        let transport: NodeTransport | undefined
        let timer: NodeJS.Timeout | undefined
        try {
          const work = (async () => {
            transport = await connect(node)
            return collectNode(transport, {plan: options.plan, timeoutMs: options.timeoutMs, sudo: options.sudo, now: options.now, batch: true})
          })()
          const snap =
            options.nodeTimeoutMs > 0
              ? await Promise.race([
                  work,
                  new Promise<never>((_, reject) => {
                    timer = setTimeout(() => reject(new Error(`node did not finish within ${Math.round(options.nodeTimeoutMs / 1000)}s`)), options.nodeTimeoutMs)
                  }),
                ])
              : await work
          const done = options.afterCollect && transport ? await options.afterCollect(transport, snap) : snap
          options.onEvent?.({type: 'node-done', node: name, ok: true, durationMs: snap.durationMs ?? 0, snapshot: done})
          return done
        } catch (err) {
          const durationMs = options.now().getTime() - start.getTime()
          const hint = (err as {hint?: string}).hint
          const message = hint ? `${(err as Error).message}. ${hint}` : (err as Error).message
          const snapshot = failedSnapshot(name, start.toISOString(), message, durationMs, options.transportKind)
          options.onEvent?.({type: 'node-done', node: name, ok: false, durationMs, error: message, snapshot})
          return snapshot
        } finally {
          if (timer) clearTimeout(timer)
          if (transport) open.delete(transport)
          await transport?.close().catch(() => undefined)
        }
      }),
    ),
  ).finally(() => signal?.removeEventListener('abort', abort))
  return snapshots.filter((s): s is NodeSnapshot => s !== undefined)
}
