// `fix kube-proxy-mode --to MODE`: per-node prerequisites → plan → permission pre-check → confirm → back up the
// ConfigMap (a local copy and the old data in an annotation) → change `mode` (PUT with resourceVersion
// precondition; only the mode value's bytes change) → restart kube-proxy one node at a time, verifying the new
// mode's dataplane and reporting the old mode's leftovers → on the first node that fails: stop and roll back
// (restore the ConfigMap byte-identical, restart the nodes already switched), when allowed.
import {configuredModeOf, kubeProxyPodOn} from '../../core/checks/proxy-mode/facts.js'
import {proxyFacts} from '../../core/checks/proxy-mode/facts.js'
import {NodeFacts} from '../../core/facts/node-facts.js'
import type {AuditActor, AuditOutcome} from '../../core/model/audit.js'
import type {ConfigMap} from '../../core/model/k8s.js'
import type {Area, Report, ReportMetadata, Severity} from '../../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../core/model/snapshot.js'
import {NodeDoctorError, UsageError} from '../../errors.js'
import {ExitCode, type ExitCodeValue, exitCodeForReport} from '../../exit-codes.js'
import {type AccessQuery, ClusterAccessError, type ClusterReader, type ClusterWriter} from '../../ports/cluster.js'
import {recordRepair, type RecordRepairDeps} from './audit.js'
import {
  changedConfigMap,
  formatPrerequisites,
  isProxyMode,
  modeChangeRefusal,
  modeLineDiff,
  modePrerequisites,
  type Prerequisite,
  type ProxyModeName,
  restoredConfigMap,
  verifyMode,
} from './mode-plan.js'
import {checkRepairPermissions, type Confirm, type NodeChecker, type PodRestartApi, type RepairClock, replacePod, seconds, systemClock} from './pod-restart.js'
import {BEFORE_SUFFIX, beforeAfterReport, KUBE_PROXY_TARGET, type PodRef} from './pod-restart-plan.js'

export const ACTION_FIX_KUBE_PROXY_MODE = 'fix kube-proxy-mode'
/** Areas whose checks judge every mode's dataplane. */
export const MODE_AREAS: readonly Area[] = ['proxy-mode', 'iptables', 'ipvs', 'nftables']
const CONFIGMAP_NAMES = ['kube-proxy', 'kube-proxy-config']
const NS = 'kube-system'

export type ModeChangeApi = PodRestartApi & Pick<ClusterReader, 'getConfigMap'> & Required<Pick<ClusterWriter, 'updateConfigMap'>>

export interface ModeChangeDeps {
  api: ModeChangeApi
  check: NodeChecker
  confirm: Confirm
  /** Whether to roll back after a node failed (the command: the flag, --yes, or a question on the terminal). */
  confirmRollback: (question: string) => Promise<boolean>
  /** Writes the local backup copy; resolves with where it is. */
  saveBackup: (name: string, content: string) => Promise<string>
  audit: Omit<RecordRepairDeps, 'events'>
  progress: (message: string) => void
  clock?: RepairClock
}

export interface ModeChangeOptions {
  to: ProxyModeName
  nodes: readonly string[]
  force?: boolean
  readyTimeoutMs: number
  verifyTimeoutMs: number
  pollMs: number
  failOn: Severity | 'none'
  metadata: ReportMetadata
  who: AuditActor
}

export interface ModeNodeResult {
  node: string
  outcome: 'switched' | 'failed' | 'rolled-back' | 'not-attempted' | 'skipped'
  message: string
  leftovers: string[]
}

export interface ModeChangeResult {
  decision: 'nothing-to-change' | 'dry-run' | 'declined' | 'applied'
  from?: string
  prerequisites: Prerequisite[]
  planText: string
  results: ModeNodeResult[]
  backupPath?: string
  rolledBack: boolean
  report: Report
  exitCode: ExitCodeValue
}

/** The new mode's prerequisites are not met on some nodes; nothing was changed. Exit 1. */
export class PrerequisitesError extends NodeDoctorError {
  constructor(message: string) {
    super(message, {exitCode: ExitCode.FINDINGS, hint: 'Fix the prerequisites on those nodes first, or pass --force to switch anyway.'})
  }
}

interface NodeTodo {
  node: string
  pod: PodRef
}

export async function runModeChange(deps: ModeChangeDeps, options: ModeChangeOptions): Promise<ModeChangeResult> {
  const clock = deps.clock ?? systemClock
  const to = options.to
  const before = await deps.check(options.nodes, MODE_AREAS)
  refuseOutsideConfigMap(before, to)
  let cm: ConfigMap | undefined
  for (const name of CONFIGMAP_NAMES) if ((cm = await deps.api.getConfigMap(NS, name))) break
  if (!cm) throw new UsageError(`no kube-proxy ConfigMap in ${NS} (looked for ${CONFIGMAP_NAMES.join(', ')})`, 'kube-proxy may be configured by flags only; change --proxy-mode in its DaemonSet instead.')
  const cmName = cm.metadata.name

  // The mode the cluster is configured for, and that no flag overrides what the ConfigMap says.
  const facts = before.nodes.map((n) => ({node: n.node, facts: proxyFacts({cluster: before.cluster, node: n})}))
  const flagged = facts.find((f) => f.facts.configured?.source.startsWith('flag'))
  if (flagged) {
    throw new UsageError(
      `kube-proxy on ${flagged.node} takes its mode from the ${flagged.facts.configured!.source}, which overrides the ConfigMap: changing ${NS}/${cmName} would not change the mode`,
      'Remove --proxy-mode from the kube-proxy DaemonSet (then re-run), or change it there.',
    )
  }
  const from = facts.find((f) => f.facts.configured)?.facts.configured?.mode ?? 'iptables'
  const prerequisites = before.nodes.flatMap((n) => modePrerequisites(before.cluster, n, to))
  const finish = (decision: ModeChangeResult['decision'], extra: Partial<ModeChangeResult>, after: Map<string, Report> = new Map()): ModeChangeResult => {
    const report = beforeAfterReport(before.report, after, options.metadata)
    const now = report.nodes.filter((n) => !n.name.endsWith(BEFORE_SUFFIX)).map((n) => n.name)
    let exitCode = exitCodeForReport(
      {findings: report.findings.filter((f) => now.includes(f.node)), collectionErrors: report.collectionErrors.filter((e) => e.node === undefined || now.includes(e.node))},
      options.failOn,
    )
    const results = extra.results ?? []
    if (results.some((r) => r.outcome === 'failed' || r.outcome === 'rolled-back') && exitCode === ExitCode.OK) exitCode = ExitCode.FINDINGS
    return {decision, from, prerequisites, planText: '', results, rolledBack: false, report, exitCode, ...extra}
  }
  if (from === to) {
    deps.progress(`Nothing to change: kube-proxy is already configured for ${to} (ConfigMap ${NS}/${cmName}).`)
    return finish('nothing-to-change', {})
  }

  const todo: NodeTodo[] = []
  const skipped: ModeNodeResult[] = []
  for (const node of options.nodes) {
    const pod = kubeProxyPodOn(before.cluster, node)
    if (pod?.metadata.uid === undefined) skipped.push({node, outcome: 'skipped', message: 'no kube-proxy pod on the node', leftovers: []})
    else todo.push({node, pod: {namespace: pod.metadata.namespace ?? NS, name: pod.metadata.name, uid: pod.metadata.uid}})
  }
  const change = changedConfigMap(cm, to, from)
  const planText = [
    `Plan: switch kube-proxy from ${from} to ${to} mode`,
    '',
    `Prerequisites of ${to} mode:`,
    formatPrerequisites(prerequisites),
    '',
    `1. Back up ConfigMap ${NS}/${cmName}: a local copy, and its data in the annotation ${Object.keys(change.configMap.metadata.annotations ?? {}).find((k) => k.startsWith('node-doctor.io/'))}`,
    `2. Change ${change.key} (resourceVersion ${cm.metadata.resourceVersion ?? '?'}; nothing else in it changes):`,
    ...modeLineDiff(change.before, change.after).split('\n').map((l) => `     ${l}`),
    `3. Restart kube-proxy one node at a time, verifying ${to} mode on each before the next:`,
    ...todo.map((t, i) => `     ${i + 1}. ${t.node}: delete pod ${t.pod.namespace}/${t.pod.name} (uid ${t.pod.uid})`),
    ...skipped.map((s) => `     -  ${s.node}: skip (${s.message})`),
    `4. On the first node that fails: stop, and roll back (restore the ConfigMap, restart the nodes already switched).`,
  ].join('\n') + '\n'

  const unmet = prerequisites.filter((p) => !p.ok)
  if (unmet.length > 0 && !options.force) {
    deps.progress(planText)
    throw new PrerequisitesError(`${to} mode's prerequisites are not met: ${unmet.map((p) => `${p.node}: ${p.requirement} (${p.found})`).join('; ')}; nothing was changed`)
  }
  const permissions: AccessQuery[] = [
    {verb: 'get', resource: 'configmaps', namespace: NS, name: cmName},
    {verb: 'update', resource: 'configmaps', namespace: NS, name: cmName},
    {verb: 'delete', resource: 'pods', namespace: NS},
    {verb: 'get', resource: 'pods', namespace: NS},
    {verb: 'list', resource: 'pods', namespace: NS},
    ...KUBE_PROXY_TARGET.verificationReads,
  ]
  await checkRepairPermissions(deps.api, permissions, `switch kube-proxy to ${to} mode`)
  const decision = await deps.confirm(planText)
  if (decision !== 'apply') return finish(decision, {planText, results: skipped})

  const stamp = clock.now().toISOString().replace(/[:.]/g, '-')
  const backupPath = await deps.saveBackup(`${NS}-${cmName}-${stamp}.json`, JSON.stringify(cm, null, 2) + '\n')
  deps.progress(`Backed up ConfigMap ${NS}/${cmName} to ${backupPath}`)
  try {
    await deps.api.updateConfigMap(change.configMap)
  } catch (err) {
    if (err instanceof ClusterAccessError && err.status?.code === 409) {
      throw new UsageError(`ConfigMap ${NS}/${cmName} changed since it was read (${err.message}); nothing was changed`, 'Run the command again to plan against the current ConfigMap.')
    }
    throw err
  }
  deps.progress(`Changed mode in ConfigMap ${NS}/${cmName}: ${from} → ${to}`)

  const auditDeps = {...deps.audit, ...(deps.api.recordNodeEvent ? {events: {recordNodeEvent: (e: Parameters<NonNullable<ClusterWriter['recordNodeEvent']>>[0]) => deps.api.recordNodeEvent!(e)}} : {})}
  const record = (node: string, pod: PodRef, outcome: AuditOutcome, before: string, after: string, message: string) =>
    recordRepair(
      {
        who: options.who,
        node,
        action: ACTION_FIX_KUBE_PROXY_MODE,
        target: `Pod ${pod.namespace}/${pod.name}`,
        before,
        after,
        outcome,
        message,
        details: {configMap: `${NS}/${cmName}`, backup: backupPath, podUid: pod.uid, from, to},
        time: clock.now(),
      },
      auditDeps,
    )

  const results: ModeNodeResult[] = [...skipped]
  const after = new Map<string, Report>()
  const switched: NodeTodo[] = []
  let failed: {todo: NodeTodo; message: string} | undefined
  for (const t of todo) {
    if (failed) {
      results.push({node: t.node, outcome: 'not-attempted', message: `not attempted: ${failed.todo.node} failed`, leftovers: []})
      continue
    }
    const outcome = await switchNode(deps, t, to, options, clock)
    if (outcome.after) after.set(t.node, outcome.after)
    if (outcome.ok) {
      switched.push(t)
      results.push({node: t.node, outcome: 'switched', message: outcome.message, leftovers: outcome.leftovers})
      await record(t.node, t.pod, 'applied', `mode ${from}`, `mode ${to}${outcome.leftovers.length > 0 ? ` (${from} leftovers remain)` : ''}`, outcome.message)
    } else {
      failed = {todo: t, message: outcome.message}
      results.push({node: t.node, outcome: 'failed', message: outcome.message, leftovers: outcome.leftovers})
    }
  }
  if (!failed) return finish('applied', {planText, results, backupPath}, after)

  const rollback = await deps.confirmRollback(`${failed.todo.node} failed to switch to ${to}. Roll back to ${from} (restore ConfigMap ${NS}/${cmName}, restart kube-proxy on ${[...switched, failed.todo].map((s) => s.node).join(', ')})`)
  if (!rollback) {
    const how = `Not rolled back: ConfigMap ${NS}/${cmName} says ${to}; ${switched.length} ${switched.length === 1 ? 'node runs' : 'nodes run'} ${to}. To roll back: kubectl replace -f ${backupPath}, then \`kubectl node-doctor fix kube-proxy-mode --to ${from}\`.`
    deps.progress(how)
    await record(failed.todo.node, failed.todo.pod, 'failed', `mode ${from}`, 'unverified', `${failed.message}. ${how}`)
    return finish('applied', {planText, results, backupPath}, after)
  }

  // Roll back: the ConfigMap first (so the restarted pods read the old mode), then the touched nodes one by one.
  const current = await deps.api.getConfigMap(NS, cmName)
  if (!current) throw new NodeDoctorError(`ConfigMap ${NS}/${cmName} disappeared during the mode change; restore it with kubectl create -f ${backupPath}`, {exitCode: ExitCode.FINDINGS})
  await deps.api.updateConfigMap(restoredConfigMap(current, cm))
  deps.progress(`Restored ConfigMap ${NS}/${cmName} (mode ${from})`)
  for (const t of [...switched, failed.todo]) {
    const pods = await deps.api.listPods({namespace: NS, nodeName: t.node})
    const pod = pods.find((p) => KUBE_PROXY_TARGET.isPod(p) && !p.metadata.deletionTimestamp && p.metadata.uid !== undefined)
    let message: string
    let outcome: AuditOutcome = 'rolled-back'
    if (!pod) {
      message = `rolled back the ConfigMap, but found no kube-proxy pod on ${t.node} to restart`
      outcome = 'failed'
    } else {
      const ref = {namespace: pod.metadata.namespace ?? NS, name: pod.metadata.name, uid: pod.metadata.uid!}
      const back = isProxyMode(from) ? await switchNode(deps, {node: t.node, pod: ref}, from, options, clock) : {ok: false, message: `cannot verify mode ${from}`, leftovers: []}
      if (back.after) after.set(t.node, back.after)
      message = back.ok ? `rolled back to ${from} and verified` : `rolled back the ConfigMap and restarted kube-proxy, but ${from} mode did not verify: ${back.message}`
      if (!back.ok) outcome = 'failed'
    }
    const r = results.find((x) => x.node === t.node)!
    r.outcome = outcome === 'rolled-back' ? 'rolled-back' : 'failed'
    r.message = t === failed.todo ? `${failed.message}; ${message}` : message
    await record(t.node, t.pod, outcome, `mode ${from}`, outcome === 'rolled-back' ? `mode ${from}` : 'unverified', r.message)
  }
  return finish('applied', {planText, results, backupPath, rolledBack: true}, after)
}

/**
 * Refuses (UsageError, nothing changed) when a node's layout keeps kube-proxy's mode outside the ConfigMap this
 * command edits (k3s's kube-proxy-arg, RKE2's kube-proxy-arg, a static pod's manifest): the layout is the one the
 * checks resolve (core/layout through the node's facts). Nodes with the same remedy are named together.
 */
export function refuseOutsideConfigMap(before: {cluster: ClusterSnapshot; nodes: readonly NodeSnapshot[]}, to: ProxyModeName): void {
  const byRemedy = new Map<string, {reason: string; nodes: string[]}>()
  for (const n of before.nodes) {
    const facts = NodeFacts.of(before.cluster, n)
    const refusal = modeChangeRefusal(facts.resolvedLayout, configuredModeOf(facts), to)
    if (!refusal) continue
    const group = byRemedy.get(refusal.remedy) ?? {reason: refusal.reason, nodes: []}
    group.nodes.push(n.node)
    byRemedy.set(refusal.remedy, group)
  }
  if (byRemedy.size === 0) return
  const groups = [...byRemedy]
  throw new UsageError(
    `not switching kube-proxy to ${to}: changing its ConfigMap would not change the mode on ${groups.map(([, g]) => `${g.nodes.join(', ')} (${g.reason})`).join('; ')}; nothing was changed`,
    groups.map(([remedy, g]) => `${g.nodes.join(', ')}: ${remedy}.`).join('\n  '),
  )
}

/** Restarts the node's kube-proxy and re-checks until it runs `mode` cleanly or the verify timeout passes. */
async function switchNode(
  deps: ModeChangeDeps,
  t: NodeTodo,
  mode: ProxyModeName,
  options: ModeChangeOptions,
  clock: RepairClock,
): Promise<{ok: boolean; message: string; leftovers: string[]; after?: Report}> {
  const replaced = await replacePod(KUBE_PROXY_TARGET, deps, t.node, t.pod, options, clock)
  if (replaced.deleteFailed !== undefined) return {ok: false, message: replaced.deleteFailed, leftovers: []}
  if (!replaced.replacement) return {ok: false, message: `no Ready kube-proxy pod replaced ${t.pod.name} on ${t.node} within ${seconds(options.readyTimeoutMs)}`, leftovers: []}
  const name = replaced.replacement.metadata.name
  deps.progress(`${t.node}: ${name} is Ready; verifying ${mode} mode`)
  const deadline = clock.now().getTime() + options.verifyTimeoutMs
  for (;;) {
    const now = await deps.check([t.node], MODE_AREAS)
    const verdict = verifyMode(now.report, t.node, mode)
    for (const l of verdict.leftovers) deps.progress(`${t.node}: leftover: ${l}`)
    if (verdict.ok) return {ok: true, message: `${name} runs ${mode} mode`, leftovers: verdict.leftovers, after: now.report}
    if (clock.now().getTime() >= deadline) {
      return {ok: false, message: `${name} does not run ${mode} mode cleanly after ${seconds(options.verifyTimeoutMs)}: ${verdict.problems.join('; ')}`, leftovers: verdict.leftovers, after: now.report}
    }
    await clock.sleep(options.pollMs)
  }
}
