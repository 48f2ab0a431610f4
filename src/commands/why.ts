import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags, kubeFlags, profileFlags, transportFlags} from '../cli/flags.js'
import type {ProfileSelection} from '../core/checks/registry.js'
import {ExitCode} from '../exit-codes.js'
import type {WhyFormat} from '../render/why.js'

export default class Why extends BaseCommand {
  static override summary = 'Answer why a Service, a pod or DNS does not work from a node: the verdict, each cause, and the next command.'
  static override description =
    'Collects only what the question needs on the node (kube-proxy\'s rules, routes, DNS, endpoints, conntrack), runs those checks and ' +
    'says whether TARGET works from there: works, partly broken (k of n endpoints) or broken, with each cause\'s finding id and evidence ' +
    'and the one command to run next. TARGET is svc/NAMESPACE/NAME[:PORT], pod/NAMESPACE/NAME or dns (clusterDNS, the kube-dns Service, ' +
    'CoreDNS endpoints and their reachability, node-local-dns, stale UDP conntrack entries). With --bundle it reads a bundle written by ' +
    '`collect` instead. Exit 0 when it works, 1 when it is broken or partly broken.'

  static override examples = [
    '<%= config.bin %> why svc/shop/web --from worker-2',
    '<%= config.bin %> why svc/kube-system/kube-dns:dns --from worker-2 -o json',
    '<%= config.bin %> why dns --from worker-2',
    '<%= config.bin %> why pod/shop/web-7d9f8 --from worker-1',
    '<%= config.bin %> why dns --from worker-2 --bundle ./node-doctor-bundle',
  ]

  static override args = {target: Args.string({ignoreStdin: true, description: 'svc/NAMESPACE/NAME[:PORT], pod/NAMESPACE/NAME or dns.', required: true})}

  static override flags = {
    from: Flags.string({summary: 'The node the traffic starts from (its pods).', required: true}),
    bundle: Flags.string({summary: 'Read a bundle directory or .tgz written by `collect` instead of collecting live.'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table', helpGroup: 'OUTPUT'}),
    ...profileFlags('incident'),
    ...transportFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Why)
    const [{explainWhy}, {renderWhy}, {environment}] = await Promise.all([import('../app/why.js'), import('../render/why.js'), import('../transports/connect.js')])
    const {verdict} = await explainWhy(args.target, flags, environment(flags), {
      profile: flags.profile as ProfileSelection,
      tool: {name: 'node-doctor', version: this.config.version},
      command: this.commandLine(),
    })
    const format = flags.output as WhyFormat
    process.stdout.write(renderWhy(verdict, format, {color: format === 'table' && this.useColor(flags['no-color'])}))
    process.exitCode = verdict.verdict === 'works' ? ExitCode.OK : ExitCode.FINDINGS
  }
}
