import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, reportFlags} from '../../cli/flags.js'
import {parseInputFile, readInputFile} from '../../cli/input.js'
import {dualBackendResult} from '../../core/checks/proxy-mode/dual-backend-report.js'
import {liveShowFlags} from '../../cli/node-artifact.js'
import {checkProxierForm, liveProxier} from '../../cli/proxy-live.js'
import {diffIpvsReport, ipvsDiffFlags} from '../../cli/proxy-ipvs.js'
import {diffNftablesCommand} from '../../cli/proxy-nft.js'
import {describeRender, proxierFlags, resolveProxierInput} from '../../cli/proxy-input.js'
import {diffRulesetAgainstDump} from '../../core/checks/iptables/diff.js'
import {buildReport} from '../../core/model/report.js'
import {type IptablesDump, parseIptablesSave} from '../../core/parse/iptables-save.js'
import type {IptablesRuleset} from '../../core/proxier/iptables/ruleset.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import {formatKubeProxyVersion} from '../../core/proxier/config.js'
import {generateIptablesRestore} from '../../core/proxier/iptables/generate.js'
import {UsageError} from '../../errors.js'

export default class ProxyDiff extends BaseCommand {
  static override summary = "Diff the rules kube-proxy should have programmed on a node against the node's iptables-save."
  static override description =
    "Regenerates kube-proxy's expected rules from the API objects (as `proxy render` does) and compares them " +
    'semantically with a real iptables-save dump: canonical forms, counters and non-Kubernetes chains ignored, the ' +
    'randomly ordered service lists compared as sets (the KUBE-NODEPORTS jump must still be last). Each difference is ' +
    'a finding, grouped by Service port.'

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
    ...reportFlags,
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ProxyDiff)
    if (flags.mode === 'ipvs') {
      const io = {note: (m: string) => this.note(m), verbose: flags.verbose, quiet: flags.quiet}
      return this.emitReport(await diffIpvsReport(args.node, flags, io, {toolVersion: this.config.version, command: this.commandLine()}), flags)
    }
    if (flags.mode === 'nftables') {
      const io = {note: (m: string) => this.note(m), verbose: flags.verbose, quiet: flags.quiet}
      return this.emitReport(await diffNftablesCommand(args.node, flags, io, {toolVersion: this.config.version, command: this.commandLine()}), flags)
    }
    checkProxierForm(args.node, flags, '--iptables-save', flags['iptables-save'])
    if (args.node !== undefined) {
      const live = await liveProxier(args.node, flags)
      const {ruleset} = generateIptablesRestore(live.render.input)
      return this.emitDiff(ruleset, live.dump, live.render, flags, live.context)
    }
    const dump = parseInputFile(flags['iptables-save']!, (text) => parseIptablesSave(text))
    const family = flags['ip-family'] as 'ipv4' | 'ipv6' | undefined
    if (family && dump.familySource === 'header' && dump.family !== family) {
      throw new UsageError(`--ip-family ${family} but ${flags['iptables-save']} is ${dump.family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output`)
    }
    const render = resolveProxierInput(flags, family ?? (dump.familySource === 'default' ? undefined : dump.family))
    if (render.input.options.family !== dump.family && dump.familySource !== 'default') {
      throw new UsageError(`the dump is ${dump.family} but the proxier renders ${render.input.options.family}`, 'Pass --ip-family to choose.')
    }
    if (flags.verbose) this.note(describeRender(render))
    if (!flags.quiet) for (const n of render.notes) this.note(`note: ${n}`)
    const {ruleset} = generateIptablesRestore(render.input)
    const other = flags['other-backend-save'] === undefined ? undefined : readInputFile(flags['other-backend-save'])
    this.emitDiff(ruleset, dump, render, flags, undefined, other)
  }

  private emitDiff(
    ruleset: IptablesRuleset,
    dump: IptablesDump,
    render: RenderInput,
    flags: Parameters<BaseCommand['emitReport']>[1],
    context?: string,
    otherBackend?: string,
  ): void {
    const node = render.node.metadata.name
    const outcome = diffRulesetAgainstDump(ruleset, dump, node)
    if (otherBackend !== undefined) {
      const dual = dualBackendResult(node, dump, otherBackend)
      outcome.results.push(dual.result)
      outcome.findings.push(...dual.findings)
    }
    const report = buildReport({
      metadata: {
        generatedAt: new Date().toISOString(),
        tool: {name: 'node-doctor', version: this.config.version},
        command: this.commandLine(),
        ...(context ? {context} : {}),
        annotations: {
          kubeProxyVersion: formatKubeProxyVersion(render.version),
          kubeProxyVersionSource: render.versionSource,
          ipFamily: ruleset.family,
          ...(dump.backend ? {iptablesBackend: dump.backend} : {}),
        },
      },
      nodes: [{name: node}],
      results: outcome.results,
      findings: outcome.findings,
    })
    this.emitReport(report, flags)
  }
}
