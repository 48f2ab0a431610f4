import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags} from '../cli/flags.js'
import {readInputFile} from '../cli/input.js'
import {liveShowFlags} from '../cli/node-artifact.js'
import {checkProxierForm, liveProxier} from '../cli/proxy-live.js'
import {describeRender, proxierFlags, resolveProxierInput} from '../cli/proxy-input.js'
import {parseIptablesSave} from '../core/parse/iptables-save.js'
import {formatKubeProxyVersion} from '../core/proxier/config.js'
import {generateIptablesRestore} from '../core/proxier/iptables/generate.js'
import {serializeSave} from '../core/proxier/iptables/save.js'
import {compareTraces, parseTraceDestination, traceIptables} from '../core/trace/iptables-trace.js'
import {traceSetup} from '../core/trace/setup.js'
import {inFile, UsageError} from '../errors.js'
import {ExitCode} from '../exit-codes.js'
import {renderTrace, type TraceFormat} from '../render/trace.js'

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
    const target = parseTraceDestination(flags.to)
    if (!target) {
      throw new UsageError(
        `--to ${JSON.stringify(flags.to)} is not IP:PORT[/PROTO]`,
        'Use e.g. --to 172.30.0.10:80, --to 172.30.0.10:53/udp or --to [fd00::10]:443/tcp (PROTO: tcp, udp, sctp).',
      )
    }
    const family = target.dst.includes(':') ? 'ipv6' : 'ipv4'
    if (flags['ip-family'] !== undefined && flags['ip-family'] !== family) {
      throw new UsageError(`--ip-family ${flags['ip-family']} but --to ${flags.to} is ${family}`)
    }
    checkProxierForm(args.node, flags, '--iptables-save', flags['iptables-save'])
    let dump
    let render
    let source: string
    if (args.node !== undefined) {
      if (family === 'ipv6') throw new UsageError('live traces are IPv4 for now', 'Collect ip6tables-save and trace it with --iptables-save.')
      const live = await liveProxier(args.node, flags)
      dump = live.dump
      render = live.render
      source = `${args.node}:iptables-save`
    } else {
      const file = flags['iptables-save']!
      source = file === '-' ? '<stdin>' : file
      const text = readInputFile(file)
      try {
        dump = parseIptablesSave(text)
        // Without a header or addresses the family is a guess: take the destination's.
        if (dump.familySource === 'default' && dump.family !== family) dump = parseIptablesSave(text, {family})
      } catch (err) {
        throw inFile(source, err)
      }
      if (dump.family !== family) {
        throw new UsageError(
          `--to ${flags.to} is ${family} but ${source} is ${dump.family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output`,
          `Trace ${family} destinations through ${family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output.`,
        )
      }
      render = resolveProxierInput(flags, family)
    }
    if (flags.verbose) this.note(describeRender(render))
    if (!flags.quiet) for (const n of render.notes) this.note(`note: ${n}`)

    const setup = traceSetup(render, flags.from, target, family)
    if ('error' in setup) throw new UsageError(setup.error, 'Use --from IP, --from pod, --from host or --from external.')
    const {packet, node} = setup
    const expectedDump = parseIptablesSave(serializeSave(generateIptablesRestore(render.input).ruleset))
    const actual = traceIptables(dump, packet, node)
    const expected = traceIptables(expectedDump, packet, node)
    const comparison = compareTraces(actual, expected)
    const format = flags.output as TraceFormat
    const out = renderTrace(
      {
        node: render.node.metadata.name,
        packet,
        origin: setup.origin,
        actual: {source, result: actual},
        expected: {source: `kube-proxy ${formatKubeProxyVersion(render.version)} rules from the objects`, result: expected},
        comparison,
      },
      format,
      {color: format === 'table' && this.useColor(flags['no-color']), ...(process.stdout.isTTY ? {width: process.stdout.columns} : {})},
    )
    process.stdout.write(out)
    process.exitCode = comparison.same ? ExitCode.OK : ExitCode.FINDINGS
  }
}
