import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags, liveShowFlags, proxierFlags} from '../cli/flags.js'
import {ExitCode} from '../exit-codes.js'
import type {TraceFormat} from '../render/trace.js'

export default class Trace extends BaseCommand {
  static override summary = "Follow a packet from a real source through a node's iptables rules and routes to every endpoint."
  static override description =
    'Traces a new connection from its source (a pod, the node, or the network) through nat PREROUTING (OUTPUT for ' +
    'traffic from the node) to its DNAT, then the filter verdict (INPUT, FORWARD or OUTPUT) and the masquerade ' +
    "decision in nat POSTROUTING, once through the node's iptables-save and once through the expected rules " +
    'regenerated from the API objects (as `proxy render` does). Random load balancing forks the trace, so each side ' +
    "is a distribution over endpoints. For every endpoint it then looks up the node's route (a local pod interface, " +
    'a tunnel to the owner node\'s block, a route via that node or the network, a blackhole or none) and reads its ' +
    'readiness from the EndpointSlices, and gives a verdict per endpoint with the first step that fails (rule, ' +
    'route, not ready). Interface matches (-i cali+) are decided against the real interface the packet arrives on. ' +
    'Only iptables rules are followed. Exit 0 when every endpoint works and the rules agree with kube-proxy\'s, 1 when an ' +
    'endpoint fails or the rules differ, 3 when a drop depends on rule matches the trace cannot evaluate (e.g. ipsets).'

  static override examples = [
    '<%= config.bin %> trace worker-1 --from pod/shop/web-7d9f --to svc/kube-system/kube-dns:dns/udp',
    '<%= config.bin %> trace worker-1 --to svc/shop/web',
    '<%= config.bin %> trace worker-1 --from external --in-interface eth0 --to 192.168.0.2:30080',
    '<%= config.bin %> trace --objects objs.yaml --node worker-1 --iptables-save worker-1.iptables --routes worker-1.routes --to 172.30.0.10:80',
    '<%= config.bin %> trace --objects objs.yaml --node worker-1 --iptables-save dump6.txt --to [fd00::10]:53/udp --from host -o json',
  ]

  static override args = {node: Args.string({ignoreStdin: true, description: 'Node to trace live: its rules and routes over SSH, the objects from the API (instead of --objects/--node/--iptables-save).'})}

  static override flags = {
    ...proxierFlags,
    'iptables-save': Flags.string({summary: "The node's `iptables-save` (or `ip6tables-save`) output; - for stdin. Not with a NODE argument."}),
    routes: Flags.string({summary: "The node's `ip route` output (`ip -d route show table all` is best), for the route lookup and the pods' interfaces. Not with a NODE argument."}),
    to: Flags.string({
      summary: 'Destination: svc/NAMESPACE/NAME[:PORT][/PROTO] (PORT a name or number; default the only port), IP:PORT[/PROTO], [IPv6]:PORT[/PROTO] or NODEIP:NODEPORT; PROTO is tcp (default), udp or sctp.',
      required: true,
    }),
    from: Flags.string({
      summary: 'Source: pod/NAMESPACE/NAME, an IP (a pod, the node, or anything else = from the network), host, or external. Default: a running pod on the node, else the node.',
    }),
    'in-interface': Flags.string({summary: 'With --from external or an outside IP: the interface the packet arrives on (default: the interface of the route back to the source).'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    strict: Flags.boolean({summary: 'Read --iptables-save as iptables-save prints it: no leniency for pasted input (indentation, CRLF, prompt lines, fences).'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Trace)
    const [{tracePacket}, {renderTrace}, {environmentFor}] = await Promise.all([import('../app/trace.js'), import('../render/trace.js'), import('../transports/environment-for.js')])
    const io = {note: (m: string) => this.note(m), verbose: flags.verbose, quiet: flags.quiet, strict: flags.strict}
    const view = await tracePacket(args.node, flags, await environmentFor(args.node, flags), io)
    const format = flags.output as TraceFormat
    const out = renderTrace(view, format, {color: format === 'table' && this.useColor(flags['no-color']), ...(process.stdout.isTTY ? {width: process.stdout.columns} : {})})
    process.stdout.write(out)
    const verdict = view.verdicts?.verdict ?? 'works'
    // unknown (rules the walk cannot evaluate decide it) is neither healthy nor a finding: exit 3, as a partial run.
    process.exitCode = !view.comparison.same || verdict === 'broken' || verdict === 'partly broken' ? ExitCode.FINDINGS : verdict === 'unknown' ? ExitCode.PARTIAL : ExitCode.OK
  }
}
