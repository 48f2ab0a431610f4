import {Flags} from '@oclif/core'
import {parse as parseYaml} from 'yaml'
import {BaseCommand} from '../../cli/base-command.js'
import {commonFlags} from '../../cli/flags.js'
import {readInputFile} from '../../cli/input.js'
import {formatKubeProxyVersion, parseKubeProxyVersion} from '../../core/proxier/config.js'
import {generateIptablesRestore} from '../../core/proxier/iptables/generate.js'
import {serializeSave} from '../../core/proxier/iptables/save.js'
import {loadObjects, ObjectsParseError} from '../../core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText} from '../../core/proxier/render-input.js'
import {InputError, ParseError, UsageError} from '../../errors.js'

const CONFIG_SOURCE = 'kube-system/kube-proxy ConfigMap (config.conf)'

export default class ProxyRender extends BaseCommand {
  static override summary = 'Print the iptables rules kube-proxy would program on a node, computed offline from API objects.'
  static override description =
    'Regenerates what kube-proxy writes for a full sync: the exact iptables-restore input (--format restore), or the ' +
    'state iptables-save would then print, including the jumps from built-in chains (--format save). Services, ' +
    'EndpointSlices, the Node, the kube-proxy ConfigMap and DaemonSet are read from `kubectl get -o yaml|json` output. ' +
    'kube-proxy orders services randomly; here they are sorted by service-port name.'

  static override examples = [
    'kubectl get svc,endpointslices,nodes -A -o yaml > objs.yaml\nkubectl get cm,ds -n kube-system kube-proxy -o yaml > kp.yaml\n<%= config.bin %> proxy render --objects objs.yaml --objects kp.yaml --node worker-1',
    '<%= config.bin %> proxy render --objects objs.yaml --node worker-1 --kube-proxy-version v1.30 --ip-family ipv6 --format save',
  ]

  static override flags = {
    objects: Flags.string({summary: 'File with API objects (`kubectl get … -o yaml|json`; - for stdin). Repeatable.', required: true, multiple: true}),
    node: Flags.string({summary: 'Name of the Node to render for (decides local endpoints, node IPs, zone).', required: true}),
    mode: Flags.string({summary: 'kube-proxy mode.', options: ['iptables'], default: 'iptables'}),
    'kube-proxy-version': Flags.string({summary: 'kube-proxy minor, e.g. v1.31 (default: the kube-proxy DaemonSet image tag in the objects).'}),
    'ip-family': Flags.string({summary: "Which proxier to render (default: the node's primary family).", options: ['ipv4', 'ipv6']}),
    'node-address': Flags.string({
      summary: 'An address on the node, as IP or IP/len (default: the Node\'s InternalIP/ExternalIP plus 127.0.0.1 and ::1). Repeatable; used with nodePortAddresses.',
      multiple: true,
    }),
    'random-fully': Flags.boolean({summary: 'iptables supports --random-fully (default: yes).', allowNo: true}),
    nfacct: Flags.boolean({summary: "kube-proxy could create its nfacct counters (default: yes; needs the kernel's nfnetlink_acct).", allowNo: true}),
    'tcp-be-liberal': Flags.boolean({summary: 'net.netfilter.nf_conntrack_tcp_be_liberal was set when kube-proxy started (default: the config\'s conntrack.tcpBeLiberal).', allowNo: true}),
    format: Flags.string({summary: 'restore: the exact iptables-restore input; save: the resulting iptables-save view.', options: ['restore', 'save'], default: 'restore'}),
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(ProxyRender)
    const texts = flags.objects.map((path) => ({name: path === '-' ? '<stdin>' : path, text: readInputFile(path)}))
    let objects
    try {
      objects = loadObjects(texts)
    } catch (err) {
      if (err instanceof ObjectsParseError) throw new InputError(err.source, err.message, err.line)
      throw err
    }

    let version
    if (flags['kube-proxy-version'] !== undefined) {
      version = parseKubeProxyVersion(flags['kube-proxy-version'])
      if (!version) throw new UsageError(`--kube-proxy-version ${JSON.stringify(flags['kube-proxy-version'])} is not a version`, 'Use a form like v1.31.')
    }

    const configText = kubeProxyConfigText(objects)
    let kubeProxyConfig: Record<string, unknown> | undefined
    if (configText !== undefined) {
      let parsed: unknown
      try {
        parsed = parseYaml(configText)
      } catch (err) {
        throw new InputError(CONFIG_SOURCE, `not valid YAML: ${(err as Error).message.split('\n')[0]}`)
      }
      if (parsed !== null && parsed !== undefined) {
        if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError(CONFIG_SOURCE, 'expected a KubeProxyConfiguration mapping')
        kubeProxyConfig = parsed as Record<string, unknown>
      }
    }

    const facts = {
      ...(flags['ip-family'] ? {family: flags['ip-family'] as 'ipv4' | 'ipv6'} : {}),
      ...(flags['node-address'] ? {nodeInterfaceAddresses: flags['node-address']} : {}),
      ...(flags['random-fully'] !== undefined ? {randomFully: flags['random-fully']} : {}),
      ...(flags.nfacct !== undefined ? {nfacct: flags.nfacct} : {}),
      ...(flags['tcp-be-liberal'] !== undefined ? {tcpBeLiberal: flags['tcp-be-liberal']} : {}),
    }
    let render
    try {
      render = buildRenderInput(objects, {nodeName: flags.node, ...(version ? {version} : {}), ...(kubeProxyConfig ? {kubeProxyConfig} : {}), facts})
    } catch (err) {
      if (err instanceof ParseError) throw new InputError(CONFIG_SOURCE, err.message.replace(/^kube-proxy configuration: /, ''))
      throw err
    }
    if (flags.verbose) this.note(`kube-proxy ${formatKubeProxyVersion(render.version)} (from ${render.versionSource}), ${render.input.options.family}, node ${render.node.metadata.name}`)
    if (!flags.quiet) for (const n of render.notes) this.note(`note: ${n}`)

    const out = generateIptablesRestore(render.input)
    process.stdout.write(flags.format === 'save' ? serializeSave(out.ruleset) : out.text)
  }
}
