import {Args, Flags} from '@oclif/core'
import {showKubelet} from '../../app/kubelet-show.js'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags, liveShowFlags} from '../../cli/flags.js'
import {ArtifactUnavailableError, readNodeArtifacts} from '../../app/live/node-artifact.js'
import {UsageError} from '../../errors.js'
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
    const files = flags['from-file'] ?? []
    let texts: Array<{name: string; text: string}>
    if (files.length > 0) texts = files.map((name) => ({name: name === '-' ? '<stdin>' : name, text: environment(flags).readInput(name)}))
    else if (args.node !== undefined) {
      // Live: the node's files over the transport, and the running config through the API's nodes/proxy.
      const live = await readNodeArtifacts(args.node, ['kubelet-config', 'kubelet-unit', 'kubeadm-flags'], flags, environment(flags))
      texts = live.texts
      for (const m of live.missing) if (!flags.quiet) this.note(`note: ${args.node}: ${m}`)
      try {
        texts.push({name: `${args.node}:/configz`, text: await live.client.getNodeConfigz(args.node)})
      } catch (err) {
        if (!flags.quiet) this.note(`note: ${args.node}: running config (/configz) not read: ${(err as Error).message}`)
      }
      if (texts.length === 0) throw new ArtifactUnavailableError(`nothing could be read from node ${args.node}`)
    } else {
      throw new UsageError('no input given', 'Give a NODE to read live, or pass --from-file FILE (repeatable), e.g. /var/lib/kubelet/config.yaml and `systemctl cat kubelet` output.')
    }
    const result = showKubelet(texts, {
      ...(args.node === undefined ? {} : {node: args.node}),
      ...(flags['kubelet-version'] === undefined ? {} : {version: flags['kubelet-version']}),
    })
    const format = flags.output as ShowFormat
    process.stdout.write(renderKubeletShow(result, format, {color: format === 'table' && this.useColor(flags['no-color']), all: flags.all}))
  }
}
