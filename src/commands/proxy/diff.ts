import {Args, Flags} from '@oclif/core'
import type {ProxyMode} from '../../app/proxy/service.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, ipvsDiffFlags, liveShowFlags, proxierFlags, reportFlags} from '../../cli/flags.js'

export default class ProxyDiff extends BaseCommand {
  static override summary = "Diff the rules kube-proxy should have programmed on a node against the node's iptables-save."
  static override description =
    "Regenerates kube-proxy's expected rules from the API objects (as `proxy render` does) and compares them " +
    'semantically with a real iptables-save dump: canonical forms, counters and non-Kubernetes chains ignored, the ' +
    'randomly ordered service lists compared as sets (the KUBE-NODEPORTS jump must still be last). Each difference is ' +
    'a finding, grouped by Service port, saying what it breaks (the Service port and the endpoints lost, as `check` says it); ' +
    'the table views print the differences as -/+ rule lines per Service port above the findings (in IPVS mode per virtual ' +
    'server: its scheduler and real servers, then kube-ipvs0 addresses, ipset members and iptables rules).'

  static override examples = [
    'ssh worker-1 sudo iptables-save > worker-1.iptables\n<%= config.bin %> proxy diff --objects objs.yaml --node worker-1 --iptables-save worker-1.iptables',
    '<%= config.bin %> proxy diff --objects objs.yaml --node worker-1 --iptables-save dump.txt -o json',
    '<%= config.bin %> proxy diff worker-1          # live: objects from the API, the dump over SSH',
  ]

  static override args = {node: Args.string({ignoreStdin: true, description: 'Node to diff live (instead of --objects/--node/--iptables-save).'})}

  static override flags = {
    ...proxierFlags,
    mode: Flags.string({summary: 'kube-proxy mode.', options: ['iptables', 'ipvs', 'nftables'], default: 'iptables'}),
    'iptables-save': Flags.string({summary: 'The node\'s `iptables-save` (or `ip6tables-save`) output; - for stdin.'}),
    'other-backend-save': Flags.string({
      summary: "The node's dump from the other iptables backend (iptables-legacy-save when the host uses nf_tables, or iptables-nft-save): KUBE-* chains there are reported (PROXY-010).",
    }),
    ...ipvsDiffFlags,
    nft: Flags.string({summary: "nftables mode: the node's `nft list table ip kube-proxy` (or ip6) or `nft -j list ruleset` output; - for stdin."}),
    strict: Flags.boolean({summary: 'Read the dump files as the tools print them: no leniency for pasted input (indentation, CRLF, prompt lines, fences, cut headers).'}),
    ...reportFlags,
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ProxyDiff)
    const [{diffProxy}, {environmentFor}] = await Promise.all([import('../../app/proxy/service.js'), import('../../transports/environment-for.js')])
    const io = {note: (m: string) => this.note(m), verbose: flags.verbose, quiet: flags.quiet, strict: flags.strict}
    const {report, ruleDiff, ipvsDiff} = await diffProxy(flags.mode as ProxyMode, args.node, flags, await environmentFor(args.node, flags), io, {toolVersion: this.config.version, command: this.commandLine()})
    // The table views show the rule diff itself above the findings; machine formats carry the findings only.
    const format = flags.json ? 'json' : flags.output
    if ((ruleDiff || ipvsDiff) && (format === 'table' || format === 'wide')) {
      const {renderIpvsRuleDiff, renderRuleDiff} = await import('../../render/rule-diff.js')
      const options = {color: this.useColor(flags['no-color']), node: report.nodes[0]?.name}
      process.stdout.write(ruleDiff ? renderRuleDiff(ruleDiff, options) : renderIpvsRuleDiff(ipvsDiff!, options))
    }
    await this.emitReport(report, flags)
  }
}
