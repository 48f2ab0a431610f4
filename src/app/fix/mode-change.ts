// The service behind `fix kube-proxy-mode`: every node, the live re-check, the ConfigMap backup next to the audit
// log, the switch itself (src/app/repair/mode.ts), and what to tell the user at the end.
import type {Severity} from '../../core/model/report.js'
import type {Environment} from '../../ports/environment.js'
import type {LiveFlags} from '../live/targets.js'
import {runModeChange, type ModeChangeDeps} from '../repair/mode.js'
import type {ProxyModeName} from '../repair/mode-plan.js'
import {fixNodeNames, liveChecker, pacing, type PacingFlags, type PodRestartOutcome} from './pod-restart.js'

export type ModeChangeFlags = LiveFlags &
  PacingFlags & {
    to: string
    'fail-on': string
    force?: boolean
    'audit-log'?: string
  }

export async function proxyModeFix(
  flags: ModeChangeFlags,
  env: Environment,
  ctx: {
    commandLine: string
    version: string
    confirm: (question: string) => ModeChangeDeps['confirm']
    confirmRollback: ModeChangeDeps['confirmRollback']
  },
): Promise<PodRestartOutcome> {
  const {access, api: client} = env.cluster()
  const nodes = await fixNodeNames([], {all: true}, client)
  const audit = env.auditLog(flags['audit-log'])
  const warn = (m: string) => void env.stderr.write(`${m}\n`)
  const command = ctx.commandLine
  const progress = (m: string) => {
    if (!flags.quiet) env.stderr.write(m.endsWith('\n') ? m : `${m}\n`)
  }
  const result = await runModeChange(
    {
      api: client,
      check: liveChecker({...flags, all: true}, command, ctx.version, access, env),
      confirm: ctx.confirm(`Switch kube-proxy to ${flags.to} mode on ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}`),
      confirmRollback: ctx.confirmRollback,
      saveBackup: env.backupSaver(audit.location),
      audit: {audit, warn},
      progress,
    },
    {
      to: flags.to as ProxyModeName,
      nodes,
      force: Boolean(flags.force),
      ...pacing(flags),
      failOn: flags['fail-on'] as Severity | 'none',
      metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version: ctx.version}, command, context: access.context},
      who: env.actor(access),
    },
  )
  if (result.decision !== 'applied') {
    return result.decision === 'nothing-to-change' ? {exitCode: 0, print: {report: result.report, when: 'machine-output'}} : {exitCode: 0}
  }
  for (const r of result.results) {
    env.stderr.write(`${r.node}: ${r.outcome}: ${r.message}\n`)
    for (const l of r.leftovers) env.stderr.write(`  leftover of the old mode: ${l}\n`)
  }
  if (result.rolledBack) env.stderr.write(`Rolled back to ${result.from}; the ConfigMap backup is ${result.backupPath}\n`)
  return {exitCode: result.exitCode, print: {report: result.report, when: 'always'}}
}
