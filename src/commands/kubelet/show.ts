import {Args, Flags} from '@oclif/core'
import {kubeletShow} from '../../app/config-show.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags} from '../../cli/flags.js'
import {renderKubeletShow, SHOW_FORMATS, type ShowFormat} from '../../render/kubelet-show.js'
import {environment} from '../../transports/connect.js'

export default class KubeletShow extends BaseCommand {
  static override summary = "Show the kubelet's effective settings and where each one comes from."
  static override description = [
  'Reads files collected from a node and prints the settings that matter, marking defaults and naming the file and line (or flag) behind every value. Precedence, lowest first: built-in defaults, the --config file, --config-dir drop-ins, command-line flags.',
  '',
  'Each --from-file is recognised by its content:',
  '  - a KubeletConfiguration (YAML, JSON, or the kubelet-config ConfigMap): the first is the --config file, further ones are drop-ins',
  '  - a /configz body {"kubeletconfig": {...}}: the running configuration; differences from the files are reported',
  '  - `systemctl cat kubelet` output: the effective ExecStart with $VARIABLES expanded',
  '  - kubeadm-flags.env, /etc/default/kubelet or /etc/sysconfig/kubelet',
  '  - a k3s/RKE2 config.yaml with kubelet-arg, or a kubelet command line (ps, "Running kubelet" log line)',
].join('\n')

  static override examples = [
    '<%= config.bin %> kubelet show --from-file config.yaml --from-file systemctl-cat-kubelet.txt --from-file kubeadm-flags.env',
    '<%= config.bin %> kubelet show --from-file configz.json --from-file config.yaml -o json',
    '<%= config.bin %> kubelet show --from-file kubelet-config.json --kubelet-version 1.29',
  ]

  static override args = {
    node: Args.string({ignoreStdin: true, description: 'Node to read live (its files over SSH, its running config through the API); with --from-file, only a label.', required: false}),
  }

  static override flags = {
    'from-file': Flags.string({summary: "A file collected from the node ('-' for stdin). Repeatable.", multiple: true}),
    'kubelet-version': Flags.string({summary: 'Kubelet version (e.g. 1.30): selects version-specific defaults and removed flags.'}),
    all: Flags.boolean({summary: 'Also list defaults that are not among the highlighted settings.'}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: [...SHOW_FORMATS], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(KubeletShow)
    const result = await kubeletShow({node: args.node, files: flags['from-file'] ?? [], version: flags['kubelet-version'], note: (m) => this.note(m)}, flags, environment(flags))
    const format = flags.output as ShowFormat
    process.stdout.write(renderKubeletShow(result, format, {color: format === 'table' && this.useColor(flags['no-color']), all: flags.all}))
  }
}
