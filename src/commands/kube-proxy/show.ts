import {Flags} from '@oclif/core'
import {showCommand} from '../../cli/base-command.js'

export default showCommand({
  summary: "Show kube-proxy's effective settings, with defaults marked, and the mode it really runs.",
  description: [
    'Prints the settings that change the generated rules, marking defaults and naming the file and line (or flag) behind every value, and compares the configured mode with the one kube-proxy really runs.',
    '',
    'Each --from-file is recognised by its content:',
    '  - a KubeProxyConfiguration, or the ConfigMap holding one (keys config.conf, config, config.yaml, kube-proxy-config.yaml)',
    '  - the kube-proxy DaemonSet or Pod manifest: with --config the file wins except --hostname-override and logging flags; without --config the flags apply',
    '  - the /proxyMode body, or a kube-proxy log ("Using ipvs Proxier"): the mode it really runs',
    "  - kube-proxy's /metrics: sync timestamps and restore failures",
    '',
    'Pasted input is read too: a ConfigMap cut off before its kind:/metadata: lines (or just its `config.conf: |` block), a KubeProxyConfiguration without apiVersion/kind, indented, quoted or between prompt and fence lines. What was assumed is listed as warning issues (code pasted-input, file:line). --strict turns that off.',
  ].join('\n'),
  examples: [
    '<%= config.bin %> kube-proxy show --from-file kube-proxy-cm.yaml',
    '<%= config.bin %> kube-proxy show --from-file kube-proxy-cm.yaml --from-file kube-proxy-ds.yaml --from-file proxymode.txt',
    '<%= config.bin %> kube-proxy show --from-file config.conf -o json',
  ],
  node: 'Node to read live (ConfigMap and pod from the API, mode and metrics from the node); with --from-file, only a label.',
  fromFile: Flags.string({summary: "A file ('-' for stdin). Repeatable.", multiple: true}),
  flags: {
    'kube-proxy-version': Flags.string({summary: 'kube-proxy version (e.g. 1.30): selects version-specific defaults and removed fields.'}),
    all: Flags.boolean({summary: 'Also list defaults that are not among the highlighted settings.'}),
    strict: Flags.boolean({summary: 'Read --from-file as the tools print it: no leniency for a cut-off ConfigMap or a fragment without apiVersion/kind.'}),
  },
  async show({node, flags, format, color, note}) {
    const [{kubeProxyShow}, {environmentFor}, {renderKubeProxyShow}] = await Promise.all([import('../../app/config-show.js'), import('../../transports/environment-for.js'), import('../../render/kube-proxy-show.js')])
    const result = await kubeProxyShow({node, files: flags['from-file'] ?? [], version: flags['kube-proxy-version'], note, strict: flags.strict}, flags, await environmentFor(node, flags))
    return [renderKubeProxyShow(result, format, {color, all: flags.all})]
  },
})
