import {Args, Flags} from '@oclif/core'
import {CALICO_NODE_TARGET} from '../../app/repair/pod-restart-plan.js'
import {BaseCommand} from '../../cli/base-command.js'
import {podRestartFix} from '../../app/fix/pod-restart.js'
import {confirmer} from '../../cli/confirm.js'
import {commonFlags, fixFlags, kubeFlags, podRestartFlags, reportFlags, selectionFlags, transportFlags} from '../../cli/flags.js'
import {environment} from '../../transports/connect.js'

export default class FixCalicoNode extends BaseCommand {
  static override summary = "Restart a node's calico-node pod when its routes are missing or stale, and verify they are right again."
  static override description =
    'The same loop as `fix kube-proxy` for Calico: plans which calico-node pod (k8s-app=calico-node in kube-system ' +
    'or calico-system) on which node is deleted and which route findings (RT-*) justify it, checks permissions, ' +
    'asks (or --yes), deletes exactly that pod (uid precondition), waits for the Ready replacement on the same node, ' +
    'then re-collects the node until the route findings are gone or --verify-timeout passes. Prints the node before ' +
    'and after; the exit code says whether it is healthy afterwards. Every restart is appended to the audit log.'

  static override examples = [
    '<%= config.bin %> fix calico-node worker-1 --dry-run',
    '<%= config.bin %> fix calico-node worker-1 worker-2 --yes',
    '<%= config.bin %> fix calico-node --all --yes --max-unavailable 2 --continue-on-failure',
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
    const {argv, flags} = await this.parse(FixCalicoNode)
    const outcome = await podRestartFix(CALICO_NODE_TARGET, argv as string[], flags, environment(flags), {
      commandLine: this.commandLine(),
      version: this.config.version,
      confirm: (question) => confirmer(flags, question),
    })
    this.emitRepairOutcome(outcome, flags)
  }
}
