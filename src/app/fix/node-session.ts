// What every node `fix` command sets up before planning: the kubeconfig and API client, the Node, one transport
// to it (SSH by default), the audit log and the actor, and stderr progress. close() releases the transport.
import type {AuditActor} from '../../core/model/audit.js'
import type {Node} from '../../core/model/k8s.js'
import {parseDuration} from '../../duration.js'
import {UsageError} from '../../errors.js'
import type {AccessQuery} from '../../ports/cluster.js'
import type {AuditSink} from '../../ports/audit.js'
import type {ApiAccess, ClusterApi, Environment} from '../../ports/environment.js'
import type {NodeTransport} from '../../ports/node-transport.js'
import {type LiveFlags, SINGLE_NODE_DEFAULTS} from '../live/targets.js'
import {checkRepairPermissions} from '../repair/pod-restart.js'

export interface RepairSession {
  access: ApiAccess
  client: ClusterApi
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
export async function openRepairSession(nodeName: string, flags: RepairSessionFlags, env: Environment, permissions?: {what: string; queries: AccessQuery[]}): Promise<RepairSession> {
  const full: LiveFlags = {...SINGLE_NODE_DEFAULTS, 'node-timeout': '0', ...flags}
  const timeoutMs = parseDuration(full.timeout, 'timeout')
  const connection = env.cluster()
  const {access, api: client} = connection
  const node = await client.getNode(nodeName)
  if (!node) throw new UsageError(`nodes "${nodeName}" not found`, "List nodes with 'kubectl get nodes'.")
  if (permissions) await checkRepairPermissions(client, permissions.queries, permissions.what)
  const warn = (m: string) => void env.stderr.write(`${m}\n`)
  const progress = (m: string) => void (flags.quiet ? undefined : env.stderr.write(`${m}\n`))
  const factory = env.nodes(connection, warn)
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
    audit: env.auditLog(flags['audit-log']),
    who: env.actor(access),
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

/** How a node repair ended: nothing to change (the plan, to print), not confirmed, or applied. */
export type NodeRepairOutcome = {status: 'unchanged'; plan: string} | {status: 'not-applied'} | {status: 'applied'; message: string; eventPosted: boolean; auditLocation: string}

type Deps = ReturnType<typeof nodeRepairDeps>

/**
 * The flow of every node `fix` command: open the session (permissions checked first), prepare the audit log (unless
 * --dry-run), plan, ask `confirm` with the plan's text when it changes something, apply, and close the session.
 */
export async function runNodeRepair<P>(
  nodeName: string,
  flags: RepairSessionFlags & {'dry-run'?: boolean},
  env: Environment,
  r: {
    permissions: {what: string; queries: AccessQuery[]}
    plan: (deps: Deps) => Promise<P>
    changes: (plan: P) => boolean
    format: (plan: P) => string
    confirm: (planText: string) => Promise<'apply' | 'dry-run' | 'declined'>
    apply: (deps: Deps, plan: P) => Promise<{message: string; eventPosted?: boolean}>
  },
): Promise<NodeRepairOutcome> {
  const session = await openRepairSession(nodeName, flags, env, r.permissions)
  try {
    if (!flags['dry-run']) await session.audit.prepare()
    const deps = nodeRepairDeps(session)
    const plan = await r.plan(deps)
    if (!r.changes(plan)) return {status: 'unchanged', plan: r.format(plan)}
    const decision = await r.confirm(r.format(plan))
    if (decision !== 'apply') return {status: 'not-applied'}
    const result = await r.apply(deps, plan)
    return {status: 'applied', message: result.message, eventPosted: Boolean(result.eventPosted), auditLocation: session.audit.location}
  } finally {
    await session.close()
  }
}
