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
  | {type: 'node-done'; node: string; ok: boolean; durationMs: number; error?: string}

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

export async function collectFleet(nodes: readonly Node[], options: CollectFleetOptions): Promise<NodeSnapshot[]> {
  const limit = pLimit(Math.max(1, options.concurrency))
  return Promise.all(
    nodes.map((node) =>
      limit(async () => {
        const name = node.metadata.name
        const start = options.now()
        options.onEvent?.({type: 'node-start', node: name})
        let transport: NodeTransport | undefined
        let timer: NodeJS.Timeout | undefined
        try {
          const work = (async () => {
            transport = await options.connect(node)
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
          options.onEvent?.({type: 'node-done', node: name, ok: true, durationMs: snap.durationMs ?? 0})
          return snap
        } catch (err) {
          const durationMs = options.now().getTime() - start.getTime()
          const hint = (err as {hint?: string}).hint
          const message = hint ? `${(err as Error).message}. ${hint}` : (err as Error).message
          options.onEvent?.({type: 'node-done', node: name, ok: false, durationMs, error: message})
          return failedSnapshot(name, start.toISOString(), message, durationMs, options.transportKind)
        } finally {
          if (timer) clearTimeout(timer)
          await transport?.close().catch(() => undefined)
        }
      }),
    ),
  )
}
