// Shared by `proxy render`, `proxy diff` and `trace`: the --objects files and runtime-fact flags → the proxier input.
import {Flags} from '@oclif/core'
import {parse as parseYaml} from 'yaml'
import {formatKubeProxyVersion, parseKubeProxyVersion} from '../core/proxier/config.js'
import {loadObjects, ObjectsParseError} from '../core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText, type RenderInput} from '../core/proxier/render-input.js'
import {InputError, ParseError, UsageError} from '../errors.js'
import {readInputFile} from './input.js'

const CONFIG_SOURCE = 'kube-system/kube-proxy ConfigMap (config.conf)'

export const proxierFlags = {
  objects: Flags.string({summary: 'File with API objects (`kubectl get … -o yaml|json`; - for stdin). Repeatable. Not with a NODE argument.', multiple: true}),
  node: Flags.string({summary: 'Name of the Node in the objects (decides local endpoints, node IPs, zone). Not with a NODE argument.'}),
  'kube-proxy-version': Flags.string({summary: 'kube-proxy minor, e.g. v1.31 (default: the kube-proxy DaemonSet image tag in the objects).'}),
  'ip-family': Flags.string({summary: "Which proxier (default: the node's primary family, or the dump's).", options: ['ipv4', 'ipv6']}),
  'node-address': Flags.string({
    summary: "An address on the node, as IP or IP/len (default: the Node's InternalIP/ExternalIP plus loopback). Repeatable; used with nodePortAddresses.",
    multiple: true,
  }),
  'random-fully': Flags.boolean({summary: 'iptables supports --random-fully (default: yes).', allowNo: true}),
  nfacct: Flags.boolean({summary: "kube-proxy could create its nfacct counters (default: yes; needs the kernel's nfnetlink_acct).", allowNo: true}),
  'tcp-be-liberal': Flags.boolean({summary: "net.netfilter.nf_conntrack_tcp_be_liberal was set when kube-proxy started (default: the config's conntrack.tcpBeLiberal).", allowNo: true}),
}

export interface ProxierFlagValues {
  objects?: string[]
  node?: string
  'kube-proxy-version'?: string
  'ip-family'?: string
  'node-address'?: string[]
  'random-fully'?: boolean
  nfacct?: boolean
  'tcp-be-liberal'?: boolean
}

/** Reads the objects files and resolves node, version, configuration and runtime facts. */
export function resolveProxierInput(flags: ProxierFlagValues, familyHint?: 'ipv4' | 'ipv6', extra: {nodeAddresses?: string[]} = {}): RenderInput {
  if (!flags.objects?.length || !flags.node) throw new UsageError('--objects and --node are required for offline rendering', 'Or give a NODE argument to read the cluster and the node live.')
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
  const family = (flags['ip-family'] as 'ipv4' | 'ipv6' | undefined) ?? familyHint
  const addresses = flags['node-address'] ?? extra.nodeAddresses
  const facts = {
    ...(family ? {family} : {}),
    ...(addresses ? {nodeInterfaceAddresses: addresses} : {}),
    ...(flags['random-fully'] !== undefined ? {randomFully: flags['random-fully']} : {}),
    ...(flags.nfacct !== undefined ? {nfacct: flags.nfacct} : {}),
    ...(flags['tcp-be-liberal'] !== undefined ? {tcpBeLiberal: flags['tcp-be-liberal']} : {}),
  }
  try {
    return buildRenderInput(objects, {nodeName: flags.node!, ...(version ? {version} : {}), ...(kubeProxyConfig ? {kubeProxyConfig} : {}), facts})
  } catch (err) {
    if (err instanceof ParseError) throw new InputError(CONFIG_SOURCE, err.message.replace(/^kube-proxy configuration: /, ''))
    throw err
  }
}

export function describeRender(r: RenderInput): string {
  return `kube-proxy ${formatKubeProxyVersion(r.version)} (from ${r.versionSource}), ${r.input.options.family}, node ${r.node.metadata.name}`
}
