// The service behind `fix kube-proxy`, `fix calico-node` and (its helpers) `fix kube-proxy-mode`: the node list, the
// live re-check (collect + analyze) the repairs verify with, the audit log, and what to tell the user at the end.
// The restart itself is src/app/repair/pod-restart.ts; confirmation is the command's (src/cli/confirm.ts).
import type {Report, Severity} from '../../core/model/report.js'
import {parseDuration} from '../../duration.js'
import {UsageError} from '../../errors.js'
import {ExitCode} from '../../exit-codes.js'
import type {ApiAccess, ClusterApi, Environment} from '../../ports/environment.js'
import {analyzeSnapshots} from '../analyze.js'
import {collectLive} from '../live/collect.js'
import {checkSelection, type LiveFlags} from '../live/targets.js'
import {type NodeChecker, type PodRestartDeps, runPodRestart} from '../repair/pod-restart.js'
import type {RestartTarget} from '../repair/pod-restart-plan.js'
import {stillBrokenNotes} from './still-broken.js'

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
export async function fixNodeNames(names: string[], flags: {selector?: string; all?: boolean}, client: Pick<ClusterApi, 'listNodes'>): Promise<string[]> {
  checkSelection(names, flags)
  if (names.length > 0) return [...new Set(names)]
  const nodes = await client.listNodes(flags.selector === undefined ? {} : {labelSelector: flags.selector})
  const out = nodes.map((n) => n.metadata.name).sort()
  if (out.length === 0) throw new UsageError(flags.selector === undefined ? 'the cluster has no nodes' : `no nodes match the selector "${flags.selector}"`)
  return out
}

/** Collects the nodes live (quietly) and runs the checks of the given areas: the repairs' before and after. */
export function liveChecker(flags: LiveFlags, command: string, version: string, access: ApiAccess, env: Environment): NodeChecker {
  return async (nodes, areas) => {
    const live = await collectLive([...nodes], {...flags, selector: undefined, all: false, quiet: true} as LiveFlags, env, {areas: [...areas]})
    const report = analyzeSnapshots(live.cluster, live.nodes, {
      areas: [...areas],
      metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version}, command, context: access.context},
    })
    return {cluster: live.cluster, nodes: live.nodes, report}
  }
}

export type PodRestartFlags = LiveFlags &
  PacingFlags & {
    'fail-on': string
    force?: boolean
    'max-unavailable': number
    'continue-on-failure'?: boolean
    'audit-log'?: string
  }

/** How a pod restart ended: the exit code, and the Report to print (always, or only for machine formats). */
export interface PodRestartOutcome {
  exitCode: number
  print?: {report: Report; when: 'always' | 'machine-output'}
}

/**
 * The whole of `fix kube-proxy` / `fix calico-node` after flag parsing: resolve nodes, run the restart (asking
 * `confirm` with the plan), tell on stderr what happened per node, and say which Report to print.
 */
export async function podRestartFix(
  target: RestartTarget,
  names: string[],
  flags: PodRestartFlags,
  env: Environment,
  ctx: {commandLine: string; version: string; confirm: (question: string) => PodRestartDeps['confirm']},
): Promise<PodRestartOutcome> {
  const connection = env.cluster()
  const {access, api: client} = connection
  const nodes = await fixNodeNames(names, flags, client)
  const audit = env.auditLog(flags['audit-log'])
  const warn = (m: string) => void env.stderr.write(`${m}\n`)
  const command = ctx.commandLine
  const result = await runPodRestart(
    target,
    {
      api: client,
      check: liveChecker(flags, command, ctx.version, access, env),
      confirm: ctx.confirm(`Restart ${target.component} on ${nodes.length === 1 ? `node ${nodes[0]}` : `${nodes.length} nodes`}`),
      audit: {audit, warn},
      progress: (m) => {
        if (!flags.quiet) env.stderr.write(`${m}\n`)
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
      who: env.actor(access),
    },
  )
  if (result.decision === 'nothing-to-fix') {
    const lost = result.plan.nodes.filter((n) => n.skip?.startsWith('the node could not be collected'))
    for (const n of lost) env.stderr.write(`${n.node}: ${n.skip}\n`)
    env.stderr.write(lost.length > 0 ? 'nothing to fix on the nodes that could be collected\n' : 'nothing to fix\n')
    return {exitCode: lost.length > 0 ? ExitCode.PARTIAL : ExitCode.OK, print: {report: result.report, when: 'machine-output'}}
  }
  if (result.decision !== 'applied') return {exitCode: 0}
  for (const r of result.results) env.stderr.write(`${r.node}: ${r.outcome}: ${r.message}\n`)
  // A verified repair is not a working Service: say what else still breaks the Services it touched (app/fix/still-broken.ts).
  const repaired = result.results.filter((r) => r.outcome === 'repaired').map((r) => r.node)
  if (repaired.length > 0) {
    const notes = await stillBrokenNotes(result.report.findings, repaired, target.areas, liveChecker(flags, command, ctx.version, access, env)).catch((err: Error) => [`could not check the rest of the Service path: ${err.message}`])
    for (const line of notes) env.stderr.write(`${line}\n`)
  }
  const failed = result.results.some((r) => r.outcome !== 'repaired' && r.outcome !== 'skipped') && result.exitCode === 0
  return {exitCode: failed ? 1 : result.exitCode, print: {report: result.report, when: 'always'}}
}
