// `fix kube-proxy` / `fix calico-node`: plan → permission pre-check → confirm → per node: delete exactly the planned
// pod (uid precondition) → wait for the DaemonSet's Ready replacement on the same node → re-collect and re-check the
// node until the findings that justified the restart are gone, or a timeout → audit record. Nodes go one batch at
// a time (--max-unavailable) and the run stops at the first failed node unless told to continue.
// NOTE: nothing here runs anything on the node: no `kube-proxy --cleanup`, no table flush. The new pod does the work.
import type {AuditActor} from '../../core/model/audit.js'
import type {Pod} from '../../core/model/k8s.js'
import {type Area, type Report, type ReportMetadata, type Severity} from '../../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../core/model/snapshot.js'
import {AccessError} from '../../errors.js'
import {type ExitCodeValue, exitCodeForReport} from '../../exit-codes.js'
import {type AccessQuery, ClusterAccessError, type ClusterReader, type ClusterWriter} from '../../ports/cluster.js'
import {NodeFacts} from '../../core/facts/node-facts.js'
import {recordRepair, type RecordRepairDeps} from './audit.js'
import {RepairRefusedError} from './errors.js'
import {
  BEFORE_SUFFIX,
  beforeAfterReport,
  converged,
  describeAccess,
  formatRestartPlan,
  justifyingFindings,
  planPodRestarts,
  readyReplacement,
  type NodeRestartPlan,
  type PodRef,
  type RestartPlan,
  restartBatches,
  type RestartLayout,
  type RestartTarget,
} from './pod-restart-plan.js'

/** The API calls a pod restart makes. */
export type PodRestartApi = Pick<ClusterReader, 'listPods'> & Pick<ClusterWriter, 'deletePod' | 'canI' | 'recordNodeEvent'>

/** Collects nodes live (API + node transport) and runs the checks of `areas` on them. */
export type NodeChecker = (nodes: readonly string[], areas: readonly Area[]) => Promise<{cluster: ClusterSnapshot; nodes: NodeSnapshot[]; report: Report}>

export interface RepairClock {
  now(): Date
  sleep(ms: number): Promise<void>
}

export const systemClock: RepairClock = {now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms))}

/** What the command decides after seeing the plan (src/cli/confirm.ts). */
export type Confirm = (planText: string) => Promise<'apply' | 'dry-run' | 'declined'>

export interface PodRestartOptions {
  nodes: readonly string[]
  force?: boolean
  maxUnavailable: number
  continueOnFailure: boolean
  /** How long to wait for the replacement pod to be Ready. */
  readyTimeoutMs: number
  /** How long to keep re-checking the node after the replacement is Ready. */
  verifyTimeoutMs: number
  /** Pause between polls of the pod list and between re-checks. */
  pollMs: number
  failOn: Severity | 'none'
  metadata: ReportMetadata
  who: AuditActor
}

export interface PodRestartDeps {
  api: PodRestartApi
  check: NodeChecker
  confirm: Confirm
  audit: Omit<RecordRepairDeps, 'events'>
  /** Progress and notes (stderr). */
  progress: (message: string) => void
  clock?: RepairClock
}

export type NodeOutcome = 'repaired' | 'not-converged' | 'replacement-timeout' | 'delete-failed' | 'skipped' | 'refused' | 'not-attempted'

export interface NodeRestartResult {
  node: string
  outcome: NodeOutcome
  message: string
  pod?: PodRef
  replacement?: string
}

export interface PodRestartResult {
  decision: 'nothing-to-fix' | 'dry-run' | 'declined' | 'applied'
  plan: RestartPlan
  planText: string
  results: NodeRestartResult[]
  /** Before and after side by side (after only for nodes that were restarted). */
  report: Report
  /** From the state after the run: the after report of restarted nodes, the before report of the others. */
  exitCode: ExitCodeValue
}

/**
 * Each collected node's layout as the checks resolved it (core/layout through the node's facts): where kube-proxy
 * runs, and k3s's role from the discovery's process list.
 */
export function restartLayouts(cluster: ClusterSnapshot, nodes: readonly NodeSnapshot[]): Map<string, RestartLayout> {
  const out = new Map<string, RestartLayout>()
  for (const n of nodes) {
    const facts = NodeFacts.of(cluster, n)
    const layout = facts.resolvedLayout
    const discovery = facts.layoutDiscovery()
    const role = discovery?.ok ? discovery.value.kubelet?.role : undefined
    out.set(n.node, {distribution: layout.distribution, kubeProxy: {where: layout.kubeProxy.where, detail: layout.kubeProxy.detail}, ...(role === undefined ? {} : {k3sRole: role})})
  }
  return out
}

/** Permissions the user lacks, refused before anything changes. Names each one. Exit 4. */
export class RepairPermissionError extends AccessError {
  readonly missing: AccessQuery[]
  constructor(what: string, missing: AccessQuery[]) {
    super(
      `not allowed to ${what}: missing permission to ${missing.map(describeAccess).join(', ')}; nothing was changed`,
      `Ask a cluster admin for these permissions (check: ${missing.map((q) => `kubectl auth can-i ${describeAccess(q)}`).join('; ')}).`,
    )
    this.missing = missing
  }
}

/** Asks a SelfSubjectAccessReview for each query; throws RepairPermissionError naming every one refused. */
export async function checkRepairPermissions(api: Pick<ClusterWriter, 'canI'>, queries: readonly AccessQuery[], what: string): Promise<void> {
  const reviews = await Promise.all(queries.map(async (q) => ({q, review: await api.canI(q)})))
  const missing = reviews.filter((r) => !r.review.allowed).map((r) => r.q)
  if (missing.length > 0) throw new RepairPermissionError(what, missing)
}

export async function runPodRestart(target: RestartTarget, deps: PodRestartDeps, options: PodRestartOptions): Promise<PodRestartResult> {
  const clock = deps.clock ?? systemClock
  const before = await deps.check(options.nodes, target.areas)
  const plan = planPodRestarts(target, before.cluster, before.report, options.nodes, {...(options.force ? {force: true} : {}), ...(target.refusal ? {layouts: restartLayouts(before.cluster, before.nodes)} : {})})
  const planText = formatRestartPlan(plan)
  const finish = (decision: PodRestartResult['decision'], results: NodeRestartResult[], after: Map<string, Report>): PodRestartResult => {
    const report = beforeAfterReport(before.report, after, options.metadata)
    const now = report.nodes.filter((n) => !n.name.endsWith(BEFORE_SUFFIX)).map((n) => n.name)
    const exitCode = exitCodeForReport(
      {findings: report.findings.filter((f) => now.includes(f.node)), collectionErrors: report.collectionErrors.filter((e) => e.node === undefined || now.includes(e.node))},
      options.failOn,
    )
    return {decision, plan, planText, results, report, exitCode}
  }
  const skipped = plan.nodes
    .filter((n) => !n.pod)
    .map((n): NodeRestartResult => (n.refused ? {node: n.node, outcome: 'refused', message: `${n.refused.reason}; instead, ${n.refused.remedy}`} : {node: n.node, outcome: 'skipped', message: n.skip ?? 'skipped'}))

  const todo = plan.nodes.filter((n): n is NodeRestartPlan & {pod: PodRef} => n.pod !== undefined)
  const refused = plan.nodes.filter((n) => n.refused)
  if (todo.length === 0 && refused.length > 0) {
    // Nothing can be restarted through the API: refuse before asking anything, naming what to run on each node.
    throw new RepairRefusedError(
      `not restarting ${target.component}: ${refused.map((n) => `${n.node}: ${n.refused!.reason}`).join('; ')}; nothing was changed`,
      refused.map((n) => `On ${n.node}, ${n.refused!.remedy}.`).join('\n  '),
    )
  }
  if (todo.length === 0) {
    deps.progress(`Nothing to fix: no finding on ${options.nodes.join(', ')} is one a ${target.component} restart repairs.`)
    return finish('nothing-to-fix', skipped, new Map())
  }

  await checkRepairPermissions(deps.api, plan.permissions, `restart ${target.component}`)
  const decision = await deps.confirm(planText)
  if (decision !== 'apply') return finish(decision, skipped, new Map())

  const results: NodeRestartResult[] = [...skipped]
  const after = new Map<string, Report>()
  let stop = false
  for (const batch of restartBatches(todo, options.maxUnavailable)) {
    if (stop) {
      for (const n of batch) results.push({node: n.node, outcome: 'not-attempted', message: 'not attempted: an earlier node failed (--continue-on-failure goes on)', pod: n.pod})
      continue
    }
    const done = await Promise.all(batch.map((n) => restartOne(target, n, deps, options, clock)))
    for (const d of done) {
      results.push(d.result)
      if (d.after) after.set(d.result.node, d.after)
      if (d.result.outcome !== 'repaired' && !options.continueOnFailure) stop = true
    }
  }
  results.sort((a, b) => options.nodes.indexOf(a.node) - options.nodes.indexOf(b.node))
  return finish('applied', results, after)
}

async function restartOne(
  target: RestartTarget,
  n: NodeRestartPlan & {pod: PodRef},
  deps: PodRestartDeps,
  options: PodRestartOptions,
  clock: RepairClock,
): Promise<{result: NodeRestartResult; after?: Report}> {
  const {node, pod} = n
  const podName = `${pod.namespace}/${pod.name}`
  const beforeSummary = n.findings.length === 0 ? 'no findings' : summarise(n.findings.map((f) => f.id))
  const record = async (result: NodeRestartResult, afterSummary: string) => {
    await recordRepair(
      {
        who: options.who,
        node,
        action: target.action,
        target: `Pod ${podName}`,
        before: beforeSummary,
        after: afterSummary,
        outcome: result.outcome === 'repaired' ? 'applied' : 'failed',
        message: result.message,
        details: {podUid: pod.uid, ...(result.replacement ? {replacement: result.replacement} : {})},
        time: clock.now(),
      },
      {...deps.audit, ...(deps.api.recordNodeEvent ? {events: {recordNodeEvent: (e) => deps.api.recordNodeEvent!(e)}} : {})},
    )
    return result
  }

  const replaced = await replacePod(target, deps, node, pod, options, clock)
  if (replaced.deleteFailed !== undefined) return {result: await record({node, pod, outcome: 'delete-failed', message: replaced.deleteFailed}, 'unchanged')}
  const replacement = replaced.replacement
  if (!replacement) {
    const message = `no Ready ${target.component} pod replaced ${podName} on ${node} within ${seconds(options.readyTimeoutMs)}`
    deps.progress(`${node}: ${message}`)
    const now = await deps.check([node], target.areas).catch(() => undefined)
    const result = await record({node, pod, outcome: 'replacement-timeout', message}, now ? afterSummary(target, now.report, node) : 'unknown')
    return now ? {result, after: now.report} : {result}
  }
  const newName = `${replacement.metadata.namespace}/${replacement.metadata.name}`
  deps.progress(`${node}: ${newName} is Ready; verifying`)

  const deadline = clock.now().getTime() + options.verifyTimeoutMs
  for (let attempt = 1; ; attempt++) {
    const now = await deps.check([node], target.areas)
    const remaining = justifyingFindings(target, now.report, node)
    if (converged(target, now.report, node)) {
      const message = `${newName} replaced ${podName}; the findings are gone (${attempt} ${attempt === 1 ? 'check' : 'checks'})`
      deps.progress(`${node}: repaired`)
      return {result: await record({node, pod, outcome: 'repaired', message, replacement: newName}, afterSummary(target, now.report, node)), after: now.report}
    }
    if (clock.now().getTime() >= deadline) {
      const message = `${newName} replaced ${podName}, but after ${seconds(options.verifyTimeoutMs)} ${remaining.length} ${remaining.length === 1 ? 'finding remains' : 'findings remain'} (${summarise(remaining.map((f) => f.id))})`
      deps.progress(`${node}: ${message}`)
      return {result: await record({node, pod, outcome: 'not-converged', message, replacement: newName}, afterSummary(target, now.report, node)), after: now.report}
    }
    deps.progress(`${node}: ${remaining.length} ${remaining.length === 1 ? 'finding remains' : 'findings remain'}; checking again`)
    await clock.sleep(options.pollMs)
  }
}

/**
 * Deletes exactly `pod` (uid precondition) and waits for its Ready replacement on the same node. `deleteFailed`
 * says why the delete was refused (nothing changed); no `replacement` means the wait timed out.
 */
export async function replacePod(
  target: RestartTarget,
  deps: Pick<PodRestartDeps, 'api' | 'progress'>,
  node: string,
  pod: PodRef,
  options: Pick<PodRestartOptions, 'readyTimeoutMs' | 'pollMs'>,
  clock: RepairClock,
): Promise<{replacement?: Pod; deleteFailed?: string}> {
  const podName = `${pod.namespace}/${pod.name}`
  deps.progress(`${node}: deleting pod ${podName} (uid ${pod.uid})`)
  try {
    await deps.api.deletePod(pod.namespace, pod.name, {uid: pod.uid})
  } catch (err) {
    // 404: the pod is already gone (evicted, deleted by someone else); its replacement is what we wait for.
    if (!(err instanceof ClusterAccessError && err.status?.code === 404)) {
      const why = err instanceof ClusterAccessError && err.status?.code === 409 ? `the pod changed since it was planned (${err.message})` : (err as Error).message
      return {deleteFailed: `could not delete ${podName}: ${why}`}
    }
  }
  const replacement = await waitForReplacement(target, deps, node, pod, options, clock)
  return replacement ? {replacement} : {}
}

/** Polls the node's pods until a new, Ready pod of the target runs there; undefined after the timeout. */
export async function waitForReplacement(
  target: RestartTarget,
  deps: Pick<PodRestartDeps, 'api' | 'progress'>,
  node: string,
  old: PodRef,
  options: Pick<PodRestartOptions, 'readyTimeoutMs' | 'pollMs'>,
  clock: RepairClock,
): Promise<Pod | undefined> {
  const started = clock.now().getTime()
  let last = ''
  for (;;) {
    const pods = await deps.api.listPods({namespace: old.namespace, nodeName: node})
    const ready = readyReplacement(target, pods, node, old.uid)
    if (ready) return ready
    const elapsed = clock.now().getTime() - started
    const fresh = pods.find((p) => target.isPod(p) && p.metadata.uid !== old.uid)
    const state = fresh ? `${fresh.metadata.name} ${fresh.status?.phase ?? 'Pending'}` : pods.some((p) => p.metadata.uid === old.uid) ? `${old.name} terminating` : 'no pod yet'
    if (state !== last) deps.progress(`${node}: waiting for the ${target.component} replacement: ${state} (${seconds(elapsed)})`)
    last = state
    if (elapsed >= options.readyTimeoutMs) return undefined
    await clock.sleep(options.pollMs)
  }
}

function afterSummary(target: RestartTarget, report: Report, node: string): string {
  const left = justifyingFindings(target, report, node)
  return left.length === 0 ? 'no findings' : summarise(left.map((f) => f.id))
}

/** `IPT-003 ×2, PROXY-006` */
function summarise(ids: readonly string[]): string {
  const counts = new Map<string, number>()
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1)
  return [...counts].map(([id, n]) => (n > 1 ? `${id} ×${n}` : id)).join(', ')
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`
}

