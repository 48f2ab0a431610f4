import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags, liveShowFlags, proxierFlags} from '../cli/flags.js'
import {ExitCode} from '../exit-codes.js'
import type {TraceFormat} from '../render/trace.js'

export default class Trace extends BaseCommand {
  static override summary = "Follow a packet through a node's iptables rules and through the rules kube-proxy should have programmed."
  static override description =
    'Traces a new connection through nat PREROUTING (OUTPUT for --from host) to its DNAT, then the filter verdict ' +
    '(INPUT, FORWARD or OUTPUT) and the masquerade decision in nat POSTROUTING, once through the node\'s iptables-save ' +
    'and once through the expected rules regenerated from the API objects (as `proxy render` does). Random load ' +
    'balancing forks the trace, so each side is a distribution over endpoints. Prints both side by side with the ' +
    'rule path of every branch and a one-line conclusion. Exit 0 when both agree, 1 when they differ.'

  static override examples = [
    '<%= config.bin %> trace --objects objs.yaml --node worker-1 --iptables-save worker-1.iptables --to 172.30.0.10:80',
    '<%= config.bin %> trace --objects objs.yaml --node worker-1 --iptables-save dump.txt --to 192.168.0.2:30080 --from 203.0.113.7',
    '<%= config.bin %> trace --objects objs.yaml --node worker-1 --iptables-save dump6.txt --to [fd00::10]:53/udp --from host -o json',
  ]

  static override args = {node: Args.string({ignoreStdin: true, description: 'Node to trace live: its rules over SSH, the objects from the API (instead of --objects/--node/--iptables-save).'})}

  static override flags = {
    ...proxierFlags,
    'iptables-save': Flags.string({summary: "The node's `iptables-save` (or `ip6tables-save`) output; - for stdin. Not with a NODE argument."}),
    to: Flags.string({summary: 'Destination as IP:PORT[/PROTO] or [IPv6]:PORT[/PROTO]; PROTO is tcp (default), udp or sctp.', required: true}),
    from: Flags.string({
      summary: 'Source: an IP (the node, a pod on it, or anything else = from the network), or pod, host, external.',
      default: 'pod',
    }),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Trace)
    const [{tracePacket}, {renderTrace}, {environment}] = await Promise.all([import('../app/trace.js'), import('../render/trace.js'), import('../transports/connect.js')])
    const io = {note: (m: string) => this.note(m), verbose: flags.verbose, quiet: flags.quiet}
    const view = await tracePacket(args.node, flags, environment(flags), io)
    const format = flags.output as TraceFormat
    const out = renderTrace(view, format, {color: format === 'table' && this.useColor(flags['no-color']), ...(process.stdout.isTTY ? {width: process.stdout.columns} : {})})
    process.stdout.write(out)
    process.exitCode = view.comparison.same ? ExitCode.OK : ExitCode.FINDINGS
  }
}
