// `fix conntrack`: delete exactly the stale UDP conntrack entries CT-001 finds for one Service on one node
// (targeted `conntrack -D` by original destination, port and stale reply source; never a flush), then list the
// table again and verify none is left. Reaches the node only through NodeTransport and the API through the ports.
import {checkStaleUdp, nodeAddresses, staleUdpEntries} from '../../core/checks/conntrack/index.js'
import {COLLECTION_PLAN} from '../../core/collection/plan.js'
import {shellJoin} from '../../core/collection/shell.js'
import type {AuditActor} from '../../core/model/audit.js'
import {artifactText, type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot} from '../../core/model/snapshot.js'
import {type ConntrackEntry, parseConntrack} from '../../core/parse/conntrack.js'
import {UsageError} from '../../errors.js'
import type {AuditSink} from '../../ports/audit.js'
import type {ClusterReader, ClusterWriter} from '../../ports/cluster.js'
import type {NodeTransport} from '../../ports/node-transport.js'
import {collectNode} from '../collect-node.js'
import {recordRepair} from './audit.js'
import {NodeReadError, RepairFailedError} from './errors.js'
import {describeFailure, NodeShell} from './node-shell.js'

export const ACTION_FIX_CONNTRACK = 'fix conntrack'

export interface ConntrackFixDeps {
  transport: NodeTransport
  cluster: Pick<ClusterReader, 'getNode' | 'listServices' | 'listEndpointSlices'>
  events?: Pick<ClusterWriter, 'recordNodeEvent'>
  audit: AuditSink
  who: AuditActor
  sudo: boolean
  timeoutMs: number
  now: () => Date
  progress: (message: string) => void
  warn: (message: string) => void
  /**
   * How long to wait after the deletes before listing the table again (default 1 s): clients retry (resolvers every
   * 1-5 s), and a rule that still sends them to a stale endpoint recreates the entries only when they do.
   */
  settleMs?: number
}

/** Default of ConntrackFixDeps.settleMs. */
export const CONNTRACK_SETTLE_MS = 1000

export interface ConntrackFixRequest {
  node: string
  namespace: string
  name: string
}

type StaleGroup = ReturnType<typeof staleUdpEntries>[number]

/** One targeted delete: the entries of one frontend (address and port) that go to one stale address. */
export interface ConntrackDeletion {
  argv: string[]
  /** `10.96.0.10:53/udp (ClusterIP)`. */
  frontend: string
  /** The stale endpoint the entries were NATed to; absent for entries that were never NATed. */
  staleIP?: string
  /** The entries it deletes, as listed when planning. */
  entries: ConntrackEntry[]
}

export interface ConntrackFixPlan {
  node: string
  nodeUid?: string
  service: string
  /** CT-001's findings for this Service on this node. */
  why: string[]
  deletions: ConntrackDeletion[]
}

const PLAN_IDS = ['conntrack-udp', 'ip-addr']

async function collect(deps: ConntrackFixDeps): Promise<{snapshot: NodeSnapshot; entries: ConntrackEntry[]}> {
  const plan = COLLECTION_PLAN.filter((p) => PLAN_IDS.includes(p.id))
  const snapshot = await collectNode(deps.transport, {plan, timeoutMs: deps.timeoutMs, sudo: deps.sudo, now: deps.now})
  const ct = snapshot.artifacts['conntrack-udp']
  const text = artifactText(snapshot, 'conntrack-udp')
  if (text === undefined) throw new NodeReadError(`${deps.transport.node}: cannot list the UDP conntrack table: ${ct?.error ?? 'not collected'}`, 'Nothing was changed. conntrack (conntrack-tools) must be installed on the node; use --sudo or connect as root.')
  try {
    return {snapshot, entries: parseConntrack(text)}
  } catch (err) {
    throw new NodeReadError(`${deps.transport.node}: conntrack -L -p udp: ${(err as Error).message}`, 'Nothing was changed.')
  }
}

function frontendOf(s: StaleGroup): string {
  const ip = s.ip.includes(':') ? `[${s.ip}]` : s.ip
  return `${ip}:${s.ref.port}/udp (${s.kind})`
}

/** The delete for one stale group: by original destination and port, and the reply source the entries carry. */
export function deletionFor(s: StaleGroup): ConntrackDeletion {
  // NOTE: --reply-src matches the stale DNAT target whether or not the entry carries the DST_NAT status bit
  // (--dst-nat needs it); an entry that was never NATed replies from the frontend address itself.
  const argv = ['conntrack', '-D', '-p', 'udp', '--orig-dst', s.ip, '--orig-port-dst', String(s.ref.port), '--reply-src', s.staleIP ?? s.ip]
  const d: ConntrackDeletion = {argv, frontend: frontendOf(s), entries: s.entries}
  if (s.staleIP !== undefined) d.staleIP = s.staleIP
  return d
}

/** The Service's stale groups, in a stable order (frontend, then stale address; never-NATed first). */
function staleFor(cluster: ClusterSnapshot, node: NodeSnapshot, entries: readonly ConntrackEntry[], svc: {namespace: string; name: string}): StaleGroup[] {
  const sortKey = (s: StaleGroup) => `${s.kind}|${s.ip}|${String(s.ref.port).padStart(5, '0')}|${s.staleIP ?? ''}`
  return staleUdpEntries(cluster, entries, nodeAddresses(cluster, node))
    .filter((s) => s.ref.service.metadata.name === svc.name && (s.ref.service.metadata.namespace ?? 'default') === svc.namespace)
    .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0))
}

async function clusterFor(deps: ConntrackFixDeps, req: ConntrackFixRequest): Promise<ClusterSnapshot> {
  const node = await deps.cluster.getNode(req.node)
  if (!node) throw new UsageError(`nodes "${req.node}" not found`, "List nodes with 'kubectl get nodes'.")
  const [services, slices] = await Promise.all([deps.cluster.listServices(req.namespace), deps.cluster.listEndpointSlices(req.namespace)])
  const svc = services.find((s) => s.metadata.name === req.name)
  if (!svc) throw new UsageError(`services "${req.name}" not found in namespace "${req.namespace}"`, `List them with 'kubectl -n ${req.namespace} get services'.`)
  if (!(svc.spec.ports ?? []).some((p) => p.protocol === 'UDP')) {
    throw new UsageError(`Service ${req.namespace}/${req.name} has no UDP port: only UDP entries go stale this way (TCP connections end and are re-established)`)
  }
  return {...emptyClusterSnapshot(deps.now().toISOString()), nodes: [node], services: [svc], endpointSlices: slices}
}

/** Lists the node's UDP conntrack table and plans the deletes. Changes nothing. */
export async function planConntrackFix(deps: ConntrackFixDeps, req: ConntrackFixRequest): Promise<ConntrackFixPlan> {
  const cluster = await clusterFor(deps, req)
  deps.progress(`${req.node}: listing the UDP conntrack table`)
  const {snapshot, entries} = await collect(deps)
  const outcome = checkStaleUdp({cluster, node: {...snapshot}})
  const service = `${req.namespace}/${req.name}`
  const why = outcome.status === 'failed' ? outcome.findings.filter((f) => f.subject.namespace === req.namespace && f.subject.name === req.name).map((f) => `CT-001: ${f.message}`) : []
  const plan: ConntrackFixPlan = {node: req.node, service, why, deletions: staleFor(cluster, snapshot, entries, req).map(deletionFor)}
  const uid = cluster.nodes[0]?.metadata.uid
  if (uid !== undefined) plan.nodeUid = uid
  return plan
}

export function formatConntrackPlan(plan: ConntrackFixPlan): string {
  const lines = [`Plan: fix conntrack on node ${plan.node} for Service ${plan.service}`]
  for (const w of plan.why) lines.push(`  why: ${w}`)
  if (plan.deletions.length === 0) return [...lines, `  No stale UDP conntrack entry for ${plan.service} on ${plan.node}: nothing to delete.`, ''].join('\n')
  const MAX = 5
  plan.deletions.forEach((d, i) => {
    const n = d.entries.length
    lines.push(`  ${i + 1}. delete ${n} entr${n === 1 ? 'y' : 'ies'} to ${d.frontend} ${d.staleIP ? `that go to ${d.staleIP}` : 'that were never NATed'}:`)
    lines.push(`     ${shellJoin(d.argv)}`)
    for (const e of d.entries.slice(0, MAX)) lines.push(`       ${e.raw}`)
    if (n > MAX) lines.push(`       ... ${n - MAX} more`)
  })
  lines.push(`  then: list the UDP conntrack table again and verify that no stale entry for ${plan.service} is left`)
  lines.push('  Only these entries are deleted; the table is never flushed.')
  return [...lines, ''].join('\n')
}

export interface ConntrackFixResult {
  deleted: number
  message: string
  eventPosted: boolean
}

/**
 * Runs the deletes, lists the table again and verifies. Resolves when no stale entry for the Service is left;
 * rejects with RepairFailedError when a delete failed or stale entries are still there (kube-proxy still sends
 * traffic to the old address). Records the audit trail either way.
 */
export async function applyConntrackFix(deps: ConntrackFixDeps, plan: ConntrackFixPlan, req: ConntrackFixRequest): Promise<ConntrackFixResult> {
  const shell = new NodeShell(deps.transport, {sudo: deps.sudo, timeoutMs: deps.timeoutMs})
  const planned = plan.deletions.reduce((n, d) => n + d.entries.length, 0)
  const describe = (ds: readonly ConntrackDeletion[]) => ds.map((d) => `${d.entries.length} to ${d.frontend} via ${d.staleIP ?? 'no NAT'}`).join(', ') || 'none'
  const record = (outcome: 'applied' | 'failed', message: string, deleted: number, after: string) =>
    recordRepair(
      {
        who: deps.who,
        node: plan.node,
        ...(plan.nodeUid === undefined ? {} : {nodeUid: plan.nodeUid}),
        action: ACTION_FIX_CONNTRACK,
        target: `Service ${plan.service}`,
        before: `${planned} stale UDP conntrack entr${planned === 1 ? 'y' : 'ies'} (${describe(plan.deletions)})`,
        after,
        outcome,
        message,
        details: {deleted, commands: plan.deletions.map((d) => shellJoin(d.argv)).join('; ')},
        time: deps.now(),
      },
      {audit: deps.audit, ...(deps.events ? {events: deps.events} : {}), warn: deps.warn},
    )

  let deleted = 0
  for (const d of plan.deletions) {
    deps.progress(`${plan.node}: ${shellJoin(d.argv)}`)
    const r = await shell.run(shellJoin(d.argv))
    const m = /(\d+) flow entries have been deleted/.exec(r.stderr)
    // conntrack exits 1 when nothing matched (the entries expired meanwhile): not a failure.
    if (m && (r.exitCode === 0 || (r.exitCode === 1 && m[1] === '0'))) {
      deleted += Number(m[1])
      continue
    }
    const message = `${shellJoin(d.argv)} failed (${describeFailure(r, deps.timeoutMs)}) after ${deleted} entries were deleted`
    await record('failed', message, deleted, 'unknown: the delete failed')
    throw new RepairFailedError(`${plan.node}: ${message}`, 'Run it by hand on the node to see why (conntrack needs root: --sudo).')
  }

  deps.progress(`${plan.node}: ${deleted} entr${deleted === 1 ? 'y' : 'ies'} deleted; listing the table again to verify`)
  await new Promise((resolve) => setTimeout(resolve, deps.settleMs ?? CONNTRACK_SETTLE_MS))
  const cluster = await clusterFor(deps, req)
  const {snapshot, entries} = await collect(deps)
  const left = staleFor(cluster, snapshot, entries, req).map(deletionFor)
  const leftCount = left.reduce((n, d) => n + d.entries.length, 0)
  if (leftCount > 0) {
    const message = `${deleted} entries were deleted but ${leftCount} stale entr${leftCount === 1 ? 'y is' : 'ies are'} there again (${describe(left)}): the node still sends this traffic to addresses that are not endpoints`
    await record('failed', message, deleted, `${leftCount} stale entries (${describe(left)})`)
    throw new RepairFailedError(`${plan.node}: ${message}`, `Check kube-proxy on the node: \`kubectl node-doctor check ${plan.node} --only iptables,proxy-mode,conntrack\`.`)
  }
  const message = `${deleted} stale UDP conntrack entr${deleted === 1 ? 'y' : 'ies'} deleted; none is left for ${plan.service}`
  const {eventPosted} = await record('applied', message, deleted, 'no stale UDP conntrack entry')
  return {deleted, message, eventPosted}
}
