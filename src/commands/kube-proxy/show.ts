import {Args, Flags} from '@oclif/core'
import {kubeProxyShow} from '../../app/config-show.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags} from '../../cli/flags.js'
import {renderKubeProxyShow} from '../../render/kube-proxy-show.js'
import {SHOW_FORMATS, type ShowFormat} from '../../render/kubelet-show.js'
import {environment} from '../../transports/connect.js'

export default class KubeProxyShow extends BaseCommand {
  static override summary = "Show kube-proxy's effective settings, with defaults marked, and the mode it really runs."
  static override description = [
  'Prints the settings that change the generated rules, marking defaults and naming the file and line (or flag) behind every value, and compares the configured mode with the one kube-proxy really runs.',
  '',
  'Each --from-file is recognised by its content:',
  '  - a KubeProxyConfiguration, or the ConfigMap holding one (keys config.conf, config, config.yaml, kube-proxy-config.yaml)',
  '  - the kube-proxy DaemonSet or Pod manifest: with --config the file wins except --hostname-override and logging flags; without --config the flags apply',
  '  - the /proxyMode body, or a kube-proxy log ("Using ipvs Proxier"): the mode it really runs',
  "  - kube-proxy's /metrics: sync timestamps and restore failures",
].join('\n')

  static override examples = [
    '<%= config.bin %> kube-proxy show --from-file kube-proxy-cm.yaml',
    '<%= config.bin %> kube-proxy show --from-file kube-proxy-cm.yaml --from-file kube-proxy-ds.yaml --from-file proxymode.txt',
    '<%= config.bin %> kube-proxy show --from-file config.conf -o json',
  ]

  static override args = {
    node: Args.string({ignoreStdin: true, description: 'Node to read live (ConfigMap and pod from the API, mode and metrics from the node); with --from-file, only a label.', required: false}),
  }

  static override flags = {
    'from-file': Flags.string({summary: "A file ('-' for stdin). Repeatable.", multiple: true}),
    'kube-proxy-version': Flags.string({summary: 'kube-proxy version (e.g. 1.30): selects version-specific defaults and removed fields.'}),
    all: Flags.boolean({summary: 'Also list defaults that are not among the highlighted settings.'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: [...SHOW_FORMATS], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(KubeProxyShow)
    const result = await kubeProxyShow({node: args.node, files: flags['from-file'] ?? [], version: flags['kube-proxy-version'], note: (m) => this.note(m)}, flags, environment(flags))
    const format = flags.output as ShowFormat
    process.stdout.write(renderKubeProxyShow(result, format, {color: format === 'table' && this.useColor(flags['no-color']), all: flags.all}))
  }
}
