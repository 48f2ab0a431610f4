import {Flags} from '@oclif/core'
import {runModeChange} from '../../app/repair/mode.js'
import {PROXY_MODES, type ProxyModeName} from '../../app/repair/mode-plan.js'
import {BaseCommand} from '../../cli/base-command.js'
import {confirmPlan} from '../../cli/confirm.js'
import {auditDeps, backupSaver, confirmer, fixNodeNames, liveChecker, machineOutput, pacing, podRestartFlags, printReport, repairActor} from '../../cli/fix-pods.js'
import {commonFlags, fixFlags, kubeFlags, reportFlags, transportFlags} from '../../cli/flags.js'
import type {Severity} from '../../core/model/report.js'
import {KubeClusterClient} from '../../transports/kube/client.js'
import {loadKubeConfig} from '../../transports/kube/kubeconfig.js'

export default class FixKubeProxyMode extends BaseCommand {
  static override summary = "Switch kube-proxy's mode (nftables, iptables, ipvs) for the whole cluster, one verified node at a time."
  static override description =
    'Shows the new mode\'s prerequisites per node first (kernel, nft, kube-proxy version for nftables; ip_vs modules ' +
    'and ipset for IPVS) and refuses when one is not met (unless --force). Then backs up the kube-system/kube-proxy ' +
    'ConfigMap (a local copy next to the audit log, and the old data in an annotation), changes only the `mode` ' +
    'value (update with resourceVersion precondition), and restarts kube-proxy one node at a time, verifying that ' +
    'each runs the new mode cleanly (proxy-mode checks; the rule diff for iptables) and reporting the old mode\'s ' +
    'leftovers. On the first node that fails it stops and rolls back: the ConfigMap is restored byte for byte and the ' +
    'nodes already switched are restarted (--rollback-on-failure, on by default with --yes; asked on a terminal).'

  static override examples = [
    '<%= config.bin %> fix kube-proxy-mode --to nftables --dry-run',
    '<%= config.bin %> fix kube-proxy-mode --to nftables --yes',
    '<%= config.bin %> fix kube-proxy-mode --to iptables --yes --no-rollback-on-failure',
  ]

  static override flags = {
    to: Flags.string({summary: 'The mode to switch to.', options: [...PROXY_MODES], required: true, helpGroup: 'REPAIR'}),
    ...fixFlags,
    force: Flags.boolean({summary: "Switch even where the new mode's prerequisites are not met.", helpGroup: 'REPAIR'}),
    'rollback-on-failure': Flags.boolean({
      summary: 'Roll back when a node fails to verify (default: yes with --yes, else asked).',
      allowNo: true,
      helpGroup: 'REPAIR',
    }),
    'ready-timeout': podRestartFlags['ready-timeout'],
    'verify-timeout': podRestartFlags['verify-timeout'],
    'poll-interval': podRestartFlags['poll-interval'],
    ...transportFlags,
    ...reportFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(FixKubeProxyMode)
    const access = loadKubeConfig(flags)
    const client = new KubeClusterClient(access)
    const nodes = await fixNodeNames([], {all: true}, client)
    const {audit, warn} = auditDeps(flags['audit-log'])
    const command = this.commandLine()
    const progress = (m: string) => {
      if (!flags.quiet) process.stderr.write(m.endsWith('\n') ? m : `${m}\n`)
    }
    const result = await runModeChange(
      {
        api: client,
        check: liveChecker({...flags, all: true}, command, this.config.version, access),
        confirm: confirmer(flags, `Switch kube-proxy to ${flags.to} mode on ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}`),
        confirmRollback: async (question) => {
          if (flags['rollback-on-failure'] !== undefined) return flags['rollback-on-failure']
          if (flags.yes) return true
          return (await confirmPlan(`${question}.\n`, {}, {question: 'Roll back', io: {stdin: process.stdin, stdout: process.stderr, stderr: process.stderr}})) === 'apply'
        },
        saveBackup: backupSaver(audit.location),
        audit: {audit, warn},
        progress,
      },
      {
        to: flags.to as ProxyModeName,
        nodes,
        force: Boolean(flags.force),
        ...pacing(flags),
        failOn: flags['fail-on'] as Severity | 'none',
        metadata: {generatedAt: new Date().toISOString(), tool: {name: 'node-doctor', version: this.config.version}, command, context: access.context},
        who: repairActor(access),
      },
    )
    if (result.decision !== 'applied') {
      if (result.decision === 'nothing-to-change' && machineOutput(flags.output)) printReport(result.report, flags.output, false)
      process.exitCode = 0
      return
    }
    for (const r of result.results) {
      process.stderr.write(`${r.node}: ${r.outcome}: ${r.message}\n`)
      for (const l of r.leftovers) process.stderr.write(`  leftover of the old mode: ${l}\n`)
    }
    if (result.rolledBack) process.stderr.write(`Rolled back to ${result.from}; the ConfigMap backup is ${result.backupPath}\n`)
    printReport(result.report, flags.output, this.useColor(flags['no-color']))
    process.exitCode = result.exitCode
  }
}
