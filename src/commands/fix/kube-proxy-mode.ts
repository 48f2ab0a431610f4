import {Flags} from '@oclif/core'
import {PROXY_MODES} from '../../core/model/kube-proxy-state.js'
import {BaseCommand} from '../../cli/base-command.js'
import {confirmer, confirmPlan} from '../../cli/confirm.js'
import {commonFlags, fixFlags, kubeFlags, podRestartFlags, reportFlags, transportFlags} from '../../cli/flags.js'

export default class FixKubeProxyMode extends BaseCommand {
  static override summary = "Switch kube-proxy's mode (nftables, iptables, ipvs) for the whole cluster, one verified node at a time."
  static override description =
    'Shows the new mode\'s prerequisites per node first (kernel, nft, kube-proxy version for nftables; ip_vs modules ' +
    'and ipset for IPVS) and refuses when one is not met (unless --force). Then backs up the kube-system/kube-proxy ' +
    'ConfigMap (a local copy next to the audit log, and the old data in an annotation), changes only the `mode` ' +
    'value (update with resourceVersion precondition), and restarts kube-proxy one node at a time, verifying that ' +
    'each runs the new mode cleanly (proxy-mode checks; the rule diff for iptables) and reporting the old mode\'s ' +
    'leftovers. On the first node that fails it stops and rolls back: the ConfigMap is restored byte for byte and the ' +
    'nodes already switched are restarted (--rollback-on-failure, on by default with --yes; asked on a terminal). ' +
    'The ConfigMap is kube-system/kube-proxy, or kube-proxy-config (key `config`) on EKS. Where no ConfigMap sets ' +
    'the mode (k3s and RKE2: kube-proxy-arg in /etc/rancher/{k3s,rke2}/config.yaml; a static pod: its manifest\'s ' +
    'flags) it refuses (exit 2, nothing changed) and says what to edit on the nodes.'

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
    const [{proxyModeFix}, {environment}] = await Promise.all([import('../../app/fix/mode-change.js'), import('../../transports/connect.js')])
    const outcome = await proxyModeFix(flags, environment(flags), {
      commandLine: this.commandLine(),
      version: this.config.version,
      confirm: (question) => confirmer(flags, question),
      confirmRollback: async (question) => {
        if (flags['rollback-on-failure'] !== undefined) return flags['rollback-on-failure']
        if (flags.yes) return true
        return (await confirmPlan(`${question}.\n`, {}, {question: 'Roll back', io: {stdin: process.stdin, stdout: process.stderr, stderr: process.stderr}})) === 'apply'
      },
    })
    await this.emitRepairOutcome(outcome, flags)
  }
}
