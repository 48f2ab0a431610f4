// What every node `fix` command sets up before planning: the kubeconfig and API client, the Node, one transport
// to it (SSH by default), the audit log and the actor, and stderr progress. close() releases the transport.
import type {AuditActor} from '../core/model/audit.js'
import type {Node} from '../core/model/k8s.js'
import {checkRepairPermissions} from '../app/repair/pod-restart.js'
import {UsageError} from '../errors.js'
import type {AccessQuery} from '../ports/cluster.js'
import type {AuditSink} from '../ports/audit.js'
import type {NodeTransport} from '../ports/node-transport.js'
import {KubeClusterClient} from '../transports/kube/client.js'
import {type KubeAccess, loadKubeConfig} from '../transports/kube/kubeconfig.js'
import {openAuditLog, repairActor} from './audit-log.js'
import {parseDuration} from './flags.js'
import {type LiveFlags, SINGLE_NODE_DEFAULTS, transportFactory} from './live.js'

export interface RepairSession {
  access: KubeAccess
  client: KubeClusterClient
  node: Node
  transport: NodeTransport
  audit: AuditSink
  who: AuditActor
  /** --timeout, per node command. */
  timeoutMs: number
  sudo: boolean
  progress: (message: string) => void
  warn: (message: string) => void
  close(): Promise<void>
}

/** What a node repair (fix kubelet, fix conntrack) takes from its session: the node, the API, the audit log. */
export function nodeRepairDeps(session: RepairSession) {
  return {
    transport: session.transport,
    cluster: session.client,
    events: session.client,
    audit: session.audit,
    who: session.who,
    sudo: session.sudo,
    timeoutMs: session.timeoutMs,
    now: () => new Date(),
    progress: session.progress,
    warn: session.warn,
  }
}

export type RepairSessionFlags = Partial<LiveFlags> & {'audit-log'?: string; quiet?: boolean}

/**
 * Looks the node up (UsageError when absent), checks with SelfSubjectAccessReviews that the repair may read what it
 * needs (a denial names every missing permission, exit 4, before anything is touched), then connects to the node.
 */
export async function openRepairSession(nodeName: string, flags: RepairSessionFlags, permissions?: {what: string; queries: AccessQuery[]}): Promise<RepairSession> {
  const full: LiveFlags = {...SINGLE_NODE_DEFAULTS, 'node-timeout': '0', ...flags}
  const timeoutMs = parseDuration(full.timeout, 'timeout')
  const access = loadKubeConfig(full)
  const client = new KubeClusterClient(access)
  const node = await client.getNode(nodeName)
  if (!node) throw new UsageError(`nodes "${nodeName}" not found`, "List nodes with 'kubectl get nodes'.")
  if (permissions) await checkRepairPermissions(client, permissions.queries, permissions.what)
  const warn = (m: string) => void process.stderr.write(`${m}\n`)
  const progress = (m: string) => void (flags.quiet ? undefined : process.stderr.write(`${m}\n`))
  const factory = transportFactory(full, warn, access)
  let transport: NodeTransport
  try {
    transport = await factory.connect(node)
  } catch (err) {
    await factory.close()
    throw err
  }
  return {
    access,
    client,
    node,
    transport,
    audit: openAuditLog(flags['audit-log']),
    who: repairActor(access),
    timeoutMs,
    sudo: Boolean(full.sudo),
    progress,
    warn,
    close: async () => {
      await transport.close()
      await factory.close()
    },
  }
}
