// Wiring shared by `fix kube-proxy`, `fix calico-node` and `fix kube-proxy-mode`: flags, the node list, the live
// re-check (collect + analyze) the repairs verify with, confirmation, the audit log, and rendering the result.
import {mkdir, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {Flags} from '@oclif/core'
import {analyzeSnapshots} from '../app/analyze.js'
import {type NodeChecker, runPodRestart} from '../app/repair/pod-restart.js'
import type {RestartTarget} from '../app/repair/pod-restart-plan.js'
import {CATALOG} from '../core/checks/registry.js'
import type {Report, Severity} from '../core/model/report.js'
import {UsageError} from '../errors.js'
import {ExitCode} from '../exit-codes.js'
import {type OutputFormat, renderReport} from '../render/index.js'
import {KubeClusterClient} from '../transports/kube/client.js'
import {type KubeAccess, loadKubeConfig} from '../transports/kube/kubeconfig.js'
import {openAuditLog, repairActor} from './audit-log.js'
import {type ConfirmFlags, confirmPlan} from './confirm.js'
import {parseDuration} from './flags.js'
import {checkSelection, collectLive, type LiveFlags} from './live.js'

/** How a pod restart is paced and verified. */
export const podRestartFlags = {
  'max-unavailable': Flags.integer({summary: 'Nodes restarted at the same time.', default: 1, min: 1, helpGroup: 'REPAIR'}),
  'continue-on-failure': Flags.boolean({summary: 'Go on with the next nodes after a node fails to verify (default: stop).', helpGroup: 'REPAIR'}),
  'ready-timeout': Flags.string({summary: 'How long to wait for the replacement pod to be Ready.', default: '2m', helpGroup: 'REPAIR'}),
  'verify-timeout': Flags.string({summary: 'How long to keep re-checking a node after its new pod is Ready.', default: '1m', helpGroup: 'REPAIR'}),
  'poll-interval': Flags.string({summary: 'Pause between polls and re-checks.', default: '2s', helpGroup: 'REPAIR'}),
}

export interface PacingFlags {
  'ready-timeout': string
  'verify-timeout': string
  'poll-interval': string
}

export function pacing(flags: PacingFlags): {readyTimeoutMs: number; verifyTimeoutMs: number; pollMs: number} {
  return {
    readyTimeoutMs: parseDuration(flags['ready-timeout'], 'ready-timeout'),
    verifyTimeoutMs: parseDuration(flags['verify-timeout'], 'verify-timeout'),
    pollMs: parseDuration(flags['poll-interval'], 'poll-interval'),
  }
}

/** NODE names as given, or the nodes -l / --all select (sorted), checked to be one way of choosing. */
export async function fixNodeNames(names: string[], flags: {selector?: string; all?: boolean}, client: KubeClusterClient): Promise<string[]> {
  checkSelection(names, flags)
  if (names.length > 0) return [...new Set(names)]
  const nodes = await client.listNodes(flags.selector === undefined ? {} : {labelSelector: flags.selector})
  const out = nodes.map((n) => n.metadata.name).sort()
  if (out.length === 0) throw new UsageError(flags.selector === undefined ? 'the cluster has no nodes' : `no nodes match the selector "${flags.selector}"`)
  return out
}

/** Collects the nodes live (quietly) and runs the checks of the given areas: the repairs' before and after. */
export function liveChecker(flags: LiveFlags, command: string, version: string, access: KubeAccess): NodeChecker {
  return async (nodes, areas) => {
    const live = await collectLive([...nodes], {...flags, selector: undefined, all: false, quiet: true} as LiveFlags, {areas: [...areas]})
    const report = analyzeSnapshots(live.cluster, live.nodes, {
      areas: [...areas],
      metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version}, command, context: access.context},
    })
    return {cluster: live.cluster, nodes: live.nodes, report}
  }
}

export function machineOutput(format: string): boolean {
  return format !== 'table' && format !== 'wide'
}

/** The confirm step with the plan on the right stream. */
export function confirmer(flags: ConfirmFlags & {output: string}, question: string): (plan: string) => ReturnType<typeof confirmPlan> {
  return (plan) =>
    confirmPlan(plan, flags, {
      question,
      io: {stdin: process.stdin, stdout: machineOutput(flags.output) ? process.stderr : process.stdout, stderr: process.stderr},
    })
}

export function auditDeps(flag: string | undefined): {audit: ReturnType<typeof openAuditLog>; warn: (m: string) => void} {
  return {audit: openAuditLog(flag), warn: (m) => process.stderr.write(`${m}\n`)}
}

export {repairActor}

/** Writes a backup file (0600, never overwriting) into `backups/` next to the audit log; resolves with its path. */
export function backupSaver(auditLocation: string): (name: string, content: string) => Promise<string> {
  return async (name, content) => {
    const path = join(dirname(auditLocation), 'backups', name)
    await mkdir(dirname(path), {recursive: true, mode: 0o700})
    await writeFile(path, content, {mode: 0o600, flag: 'wx'})
    return path
  }
}

/** Renders a repair's Report (before/after) to stdout. */
export function printReport(report: Report, format: string, color: boolean): void {
  process.stdout.write(renderReport(report, format as OutputFormat, {color, width: process.stdout.isTTY ? process.stdout.columns : undefined, catalog: CATALOG}))
}

export type PodRestartFlags = LiveFlags &
  PacingFlags &
  ConfirmFlags & {
    output: string
    'fail-on': string
    'no-color'?: boolean
    force?: boolean
    'max-unavailable': number
    'continue-on-failure'?: boolean
    'audit-log'?: string
  }

/**
 * The whole of `fix kube-proxy` / `fix calico-node` after flag parsing: resolve nodes, run the restart, print the
 * before/after Report (or only the plan), and return the exit code.
 */
export async function podRestartCommand(target: RestartTarget, names: string[], flags: PodRestartFlags, ctx: {commandLine: string; version: string; color: boolean}): Promise<number> {
  const access = loadKubeConfig(flags)
  const client = new KubeClusterClient(access)
  const nodes = await fixNodeNames(names, flags, client)
  const {audit, warn} = auditDeps(flags['audit-log'])
  const command = ctx.commandLine
  const result = await runPodRestart(
    target,
    {
      api: client,
      check: liveChecker(flags, command, ctx.version, access),
      confirm: confirmer(flags, `Restart ${target.component} on ${nodes.length === 1 ? `node ${nodes[0]}` : `${nodes.length} nodes`}`),
      audit: {audit, warn},
      progress: (m) => {
        if (!flags.quiet) process.stderr.write(`${m}\n`)
      },
    },
    {
      nodes,
      force: Boolean(flags.force),
      maxUnavailable: flags['max-unavailable'],
      continueOnFailure: Boolean(flags['continue-on-failure']),
      ...pacing(flags),
      failOn: flags['fail-on'] as Severity | 'none',
      metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version: ctx.version}, command, context: access.context},
      who: repairActor(access),
    },
  )
  if (result.decision === 'nothing-to-fix') {
    const lost = result.plan.nodes.filter((n) => n.skip?.startsWith('the node could not be collected'))
    for (const n of lost) process.stderr.write(`${n.node}: ${n.skip}\n`)
    process.stderr.write(lost.length > 0 ? 'nothing to fix on the nodes that could be collected\n' : 'nothing to fix\n')
    if (machineOutput(flags.output)) printReport(result.report, flags.output, false)
    return lost.length > 0 ? ExitCode.PARTIAL : ExitCode.OK
  }
  if (result.decision !== 'applied') return 0
  for (const r of result.results) process.stderr.write(`${r.node}: ${r.outcome}: ${r.message}\n`)
  printReport(result.report, flags.output, ctx.color)
  if (result.results.some((r) => r.outcome !== 'repaired' && r.outcome !== 'skipped') && result.exitCode === 0) return 1
  return result.exitCode
}
