import {Args, Flags} from '@oclif/core'
import {KUBE_PROXY_TARGET} from '../../app/repair/pod-restart-plan.js'
import {BaseCommand} from '../../cli/base-command.js'
import {podRestartFix} from '../../app/fix/pod-restart.js'
import {confirmer} from '../../cli/confirm.js'
import {commonFlags, fixFlags, kubeFlags, podRestartFlags, reportFlags, selectionFlags, transportFlags} from '../../cli/flags.js'
import {environment} from '../../transports/connect.js'

export default class FixKubeProxy extends BaseCommand {
  static override summary = "Restart a node's kube-proxy pod when its rules drifted, and verify the rules are right again."
  static override description =
    'Plans first: which kube-proxy pod on which node is deleted and which findings (IPT-*, PROXY-*) justify it. ' +
    'Checks with SelfSubjectAccessReview that you may delete and read what the run needs, asks for confirmation ' +
    '(or --yes), deletes exactly that pod (uid precondition), waits for the DaemonSet to start a Ready replacement ' +
    'on the same node, then re-collects the node until the findings are gone or --verify-timeout passes. Prints the ' +
    'node before and after; the exit code says whether the node is healthy afterwards. Never runs ' +
    '`kube-proxy --cleanup` and never flushes tables. Every restart is appended to the audit log.'

  static override examples = [
    '<%= config.bin %> fix kube-proxy worker-1 --dry-run',
    '<%= config.bin %> fix kube-proxy worker-1 worker-2 --yes',
    '<%= config.bin %> fix kube-proxy --all --yes --max-unavailable 2 --continue-on-failure',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
  static override flags = {
    ...fixFlags,
    force: Flags.boolean({summary: 'Restart even when no finding justifies it.', helpGroup: 'REPAIR'}),
    ...podRestartFlags,
    ...selectionFlags,
    ...transportFlags,
    ...reportFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(FixKubeProxy)
    const outcome = await podRestartFix(KUBE_PROXY_TARGET, argv as string[], flags, environment(flags), {
      commandLine: this.commandLine(),
      version: this.config.version,
      confirm: (question) => confirmer(flags, question),
    })
    this.emitRepairOutcome(outcome, flags)
  }
}
