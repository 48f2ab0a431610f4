import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: "Show the kubelet's effective settings and where each one comes from.",
  description: [
    'Reads files collected from a node and prints the settings that matter, marking defaults and naming the file and line (or flag) behind every value. Precedence, lowest first: built-in defaults, the --config file, --config-dir drop-ins, command-line flags.',
    '',
    'Each --from-file is recognised by its content:',
    '  - a KubeletConfiguration (YAML, JSON, or the kubelet-config ConfigMap): the first is the --config file, further ones are drop-ins',
    '  - a /configz body {"kubeletconfig": {...}}: the running configuration; differences from the files are reported',
    '  - `systemctl cat kubelet` output: the effective ExecStart with $VARIABLES expanded',
    '  - kubeadm-flags.env, /etc/default/kubelet or /etc/sysconfig/kubelet',
    '  - a k3s/RKE2 config.yaml with kubelet-arg, or a kubelet command line (ps, "Running kubelet" log line)',
    '',
    'Pasted input is read too: a KubeletConfiguration fragment without apiVersion/kind (a few known fields), the kubelet-config ConfigMap cut off before its kind:/metadata: lines, indented, quoted or between prompt and fence lines. What was assumed is listed as warning issues (code pasted-input, file:line). --strict turns that off.',
  ].join('\n'),
  examples: [
    '<%= config.bin %> kubelet show --from-file config.yaml --from-file systemctl-cat-kubelet.txt --from-file kubeadm-flags.env',
    '<%= config.bin %> kubelet show --from-file configz.json --from-file config.yaml -o json',
    '<%= config.bin %> kubelet show --from-file kubelet-config.json --kubelet-version 1.29',
  ],
  node: 'Node to read live (its files over SSH, its running config through the API); with --from-file, only a label.',
  fromFile: Flags.string({summary: "A file collected from the node ('-' for stdin). Repeatable.", multiple: true}),
  flags: {
    'kubelet-version': Flags.string({summary: 'Kubelet version (e.g. 1.30): selects version-specific defaults and removed flags.'}),
    all: Flags.boolean({summary: 'Also list defaults that are not among the highlighted settings.'}),
    strict: Flags.boolean({summary: 'Read --from-file as the tools print it: no leniency for a cut-off ConfigMap or a fragment without apiVersion/kind.'}),
  },
  async show({node, flags, format, color, note}) {
    const [{kubeletShow}, {environmentFor}, {renderKubeletShow}] = await Promise.all([import('../../app/config-show.js'), import('../../transports/environment-for.js'), import('../../render/kubelet-show.js')])
    const result = await kubeletShow({node, files: flags['from-file'] ?? [], version: flags['kubelet-version'], note, strict: flags.strict}, flags, await environmentFor(node, flags))
    return [renderKubeletShow(result, format, {color, all: flags.all})]
  },
})
