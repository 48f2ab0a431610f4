// `trace`: a packet through the node's iptables rules and through the rules kube-proxy should have programmed,
// offline (--objects, --node, --iptables-save) or live for a NODE. The dashboard's Service trace uses the same
// walk (traceThrough) over snapshots it already has.
import {type IptablesDump, parseIptablesSave} from '../core/parse/iptables-save.js'
import {formatFullKubeProxyVersion, formatKubeProxyVersion} from '../core/proxier/config.js'
import {generateIptablesRestore} from '../core/proxier/iptables/generate.js'
import type {RenderInput} from '../core/proxier/render-input.js'
import {compareTraces, expectedTraceRules, parseTraceDestination, traceIptables, type TraceRules} from '../core/trace/iptables-trace.js'
import {type TraceSetup, traceSetup} from '../core/trace/setup.js'
import {inFile, UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import type {TraceView} from '../render/trace.js'
import type {LiveFlags} from './live/targets.js'
import {describeRender, type ProxierFlagValues, type ProxyIO, resolveProxierInput} from './proxy/input.js'
import {checkProxierForm, liveProxier} from './proxy/live.js'

export interface TraceFlagValues extends ProxierFlagValues, Partial<LiveFlags> {
  'iptables-save'?: string
  /** IP:PORT[/PROTO] or [IPv6]:PORT[/PROTO]. */
  to: string
  /** An IP, or pod, host, external. */
  from: string
}

/** kube-proxy's expected rules for `render` in the form the tracer walks: the generated ruleset's model, read directly. */
export function expectedRules(render: RenderInput): TraceRules {
  return expectedTraceRules(generateIptablesRestore(render.input).ruleset)
}

/** The packet of `setup` through the node's rules (`actual`, named `source`) and the expected ones, compared. */
export function traceThrough(render: RenderInput, actualDump: IptablesDump, expected: TraceRules, setup: TraceSetup, source: string): TraceView {
  const actual = traceIptables(actualDump, setup.packet, setup.node)
  const want = traceIptables(expected, setup.packet, setup.node)
  return {
    node: render.node.metadata.name,
    packet: setup.packet,
    origin: setup.origin,
    actual: {source, result: actual},
    expected: {
      source: `kube-proxy ${formatKubeProxyVersion(render.version)} rules from the objects${render.newerThanKnown ? ` (the newest layout known, for ${formatFullKubeProxyVersion(render.newerThanKnown)})` : ''}`,
      result: want,
    },
    comparison: compareTraces(actual, want),
  }
}

/** `trace`: validates --to/--from against the inputs, reads them (files or live) and traces. */
export async function tracePacket(nodeArg: string | undefined, flags: TraceFlagValues, env: Environment, io: ProxyIO): Promise<TraceView> {
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
  checkProxierForm(nodeArg, flags, '--iptables-save', flags['iptables-save'])
  let dump
  let render
  let source: string
  if (nodeArg !== undefined) {
    if (family === 'ipv6') throw new UsageError('live traces are IPv4 for now', 'Collect ip6tables-save and trace it with --iptables-save.')
    const live = await liveProxier(nodeArg, flags, env)
    dump = live.dump
    render = live.render
    source = `${nodeArg}:iptables-save`
  } else {
    const file = flags['iptables-save']!
    source = file === '-' ? '<stdin>' : file
    const text = env.readInput(file)
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
    render = resolveProxierInput(flags, env, family)
  }
  if (io.verbose) io.note(describeRender(render))
  if (!io.quiet) for (const n of render.notes) io.note(`note: ${n}`)

  const setup = traceSetup(render, flags.from, target, family)
  if ('error' in setup) throw new UsageError(setup.error, 'Use --from IP, --from pod, --from host or --from external.')
  return traceThrough(render, dump, expectedRules(render), setup, source)
}
