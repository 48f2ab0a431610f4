import {Args, Flags} from '@oclif/core'
import {AUTOMATED_KUBELET_REMEDIES} from '../../app/repair/kubelet-remedy-ids.js'
import {BaseCommand} from '../../cli/base-command.js'
import {askChoice, canAsk, type ConfirmIO, confirmPlan} from '../../cli/confirm.js'
import {commonFlags, fixFlags, kubeFlags, parseDuration, transportFlags} from '../../cli/flags.js'
import {UsageError} from '../../errors.js'

export default class FixKubelet extends BaseCommand {
  static override summary = "Change a kubelet setting on a node: validate, diff, back up, write atomically, restart, verify, roll back on failure."
  static override description = [
    "Edits the kubelet's config file (the --config of its unit, else /var/lib/kubelet/config.yaml; a --config-dir drop-in when one sets the field) over the node transport, keeping comments and layout.",
    'The result is validated like the KUBELET checks do (schema and startup validation) and shown as a diff. Once confirmed: the old file is backed up next to it (FILE.node-doctor-backup-TIME), the new one written atomically with the same mode and owner, the kubelet restarted, and its /healthz and the Node\'s Ready condition awaited.',
    'If any step fails, the backup is restored, the kubelet restarted again, and the command exits 1 saying so. Every applied change is appended to the audit log and posted as an Event on the Node (a refused Event is only a warning).',
    '',
    `--from-finding applies a catalog remedy whose value the cluster itself tells: ${Object.entries(AUTOMATED_KUBELET_REMEDIES).map(([k, v]) => `${k}: ${v}`).join('; ')}.`,
  ].join('\n')

  static override examples = [
    '<%= config.bin %> fix kubelet worker-1 --set clusterDNS=10.96.0.10 --dry-run',
    '<%= config.bin %> fix kubelet worker-1 --from-finding KUBELET-016',
    '<%= config.bin %> fix kubelet worker-1 --set readOnlyPort=0 --set authentication.anonymous.enabled=false --yes',
  ]

  static override args = {
    node: Args.string({description: 'The node whose kubelet to change.', required: true}),
  }

  static override flags = {
    set: Flags.string({summary: 'FIELD=VALUE in KubeletConfiguration names (lists: a,b). Repeatable.', multiple: true, helpGroup: 'REPAIR'}),
    'from-finding': Flags.string({summary: `Apply the remedy of this check id (${Object.keys(AUTOMATED_KUBELET_REMEDIES).join(', ')}).`, helpGroup: 'REPAIR'}),
    'apply-pending': Flags.boolean({
      summary:
        'Also apply the differences between the files and the running kubelet that the restart would apply (listed in the plan) without asking about each; --yes refuses them without it. On a terminal each is asked: apply, keep the running value (written back to its file), or abort.',
      helpGroup: 'REPAIR',
    }),
    output: Flags.string({char: 'o', summary: 'Output format: the plan and outcome as text, or as JSON on stdout (the plan then goes to stderr).', options: ['table', 'json'], default: 'table', helpGroup: 'OUTPUT'}),
    'wait-timeout': Flags.string({summary: 'How long to wait for the kubelet to be healthy and the node Ready after a restart.', default: '2m', helpGroup: 'REPAIR'}),
    ...fixFlags,
    ...transportFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FixKubelet)
    const sets = flags.set ?? []
    if ((sets.length > 0) === (flags['from-finding'] !== undefined)) {
      throw new UsageError('give either --set FIELD=VALUE (repeatable) or --from-finding ID', 'For example --set clusterDNS=10.96.0.10, or --from-finding KUBELET-016.')
    }
    const {parseSetArg} = await import('../../app/repair/kubelet-edit.js')
    const edits = sets.map(parseSetArg)
    const waitTimeoutMs = parseDuration(flags['wait-timeout'], 'wait-timeout')
    const [{fixKubelet, kubeletFixJson}, {environment}, {describePending, pendingQuestion}] = await Promise.all([
      import('../../app/fix/node-repairs.js'),
      import('../../transports/connect.js'),
      import('../../app/repair/kubelet-pending.js'),
    ])
    const json = flags.output === 'json'
    const io: ConfirmIO = {stdin: process.stdin, stdout: json ? process.stderr : process.stdout, stderr: process.stderr}
    // Each pending difference is asked on a terminal (not with --yes, which never asks, nor in a dry run).
    const choose =
      canAsk(io) && !flags.yes && !flags['dry-run']
        ? async (d: Parameters<typeof pendingQuestion>[0], i: number, n: number) => {
            const q = pendingQuestion(d, i, n)
            if (i === 0) io.stderr.write(`The kubelet restart this change needs would also apply ${n} difference${n === 1 ? '' : 's'} between its files and the running kubelet (changed on disk, never restarted); for each:\n`)
            io.stderr.write(`${q.text}\n`)
            return (await askChoice(`${d.field}:`, q.choices, io)) ?? 'abort'
          }
        : undefined
    const outcome = await fixKubelet(
      {node: args.node, set: edits, fromFinding: flags['from-finding'], waitTimeoutMs, applyPending: flags['apply-pending']},
      flags,
      environment(flags),
      (text, question) => confirmPlan(text, flags, {question, io}),
      choose,
    )
    if (json) {
      if (outcome.status === 'unchanged') process.stderr.write(outcome.plan)
      process.stdout.write(`${JSON.stringify(kubeletFixJson(args.node, outcome, {dryRun: flags['dry-run']}), null, 2)}\n`)
      if (outcome.status === 'applied' && !flags.quiet) this.note(`Recorded in the audit log ${outcome.auditLocation}${outcome.eventPosted ? ' and as an Event on the node' : ''}.`)
      return
    }
    this.emitNodeRepair(args.node, outcome, flags)
    if (outcome.status === 'applied' && outcome.kubeletPlan) {
      for (const p of [...outcome.kubeletPlan.pending, ...outcome.kubeletPlan.kept]) process.stdout.write(`${args.node}: pending ${describePending(p)}\n`)
    }
  }
}
