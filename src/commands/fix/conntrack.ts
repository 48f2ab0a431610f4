import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {confirmPlan} from '../../cli/confirm.js'
import {commonFlags, fixFlags, kubeFlags, transportFlags} from '../../cli/flags.js'
import {UsageError} from '../../errors.js'

export default class FixConntrack extends BaseCommand {
  static override summary = "Delete a Service's stale UDP conntrack entries on a node (only those; never a flush)."
  static override description = [
    'Lists the node\'s UDP conntrack table and finds, as check CT-001 does, the entries for the Service that still go to an address that is no longer one of its endpoints (or were never NATed).',
    'Each group is deleted with one targeted `conntrack -D -p udp --orig-dst IP --orig-port-dst PORT --reply-src STALE_IP`; the rest of the table is untouched. Then the table is listed again: if stale entries are back, kube-proxy still programs the old endpoint and the command exits 1.',
    'Every applied repair is appended to the audit log and posted as an Event on the Node (a refused Event is only a warning).',
  ].join('\n')

  static override examples = [
    '<%= config.bin %> fix conntrack worker-1 --service kube-system/kube-dns --dry-run',
    '<%= config.bin %> fix conntrack worker-1 --service kube-system/kube-dns --yes --sudo',
  ]

  static override args = {
    node: Args.string({description: 'The node whose conntrack table to clean.', required: true}),
  }

  static override flags = {
    service: Flags.string({summary: 'The UDP Service, as NAMESPACE/NAME.', required: true, helpGroup: 'REPAIR'}),
    ...fixFlags,
    ...transportFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FixConntrack)
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)$/.exec(flags.service)
    if (!m) throw new UsageError(`--service ${flags.service}: expected NAMESPACE/NAME`, 'For example --service kube-system/kube-dns.')
    const req = {node: args.node, namespace: m[1]!, name: m[3]!}
    const [{fixConntrack}, {environment}] = await Promise.all([import('../../app/fix/node-repairs.js'), import('../../transports/connect.js')])
    const outcome = await fixConntrack(req, flags, environment(flags), (text, question) => confirmPlan(text, flags, {question}))
    this.emitNodeRepair(args.node, outcome, flags)
  }
}
