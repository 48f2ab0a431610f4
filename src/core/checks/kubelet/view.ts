// One node's kubelet configuration as the KUBELET checks see it, built once per (cluster, node) snapshot pair:
// the on-disk config (config.yaml → defaults → --config-dir drop-ins), the flags that would be used on the next
// start (unit + kubeadm-flags.env + the KUBELET_EXTRA_ARGS file, else the running command line), the running config (/configz) and the
// cluster's intended config (kubeadm's kube-system/kubelet-config ConfigMap). Defaults follow the node's kubelet
// version, so `0s`/`null`/omitted read as what the kubelet uses.
import type {ConfigMap, Node} from '../../model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import {
  type ConfigIssue,
  formatValue,
  getAt,
  isGoZero,
  type JsonObject,
  type JsonValue,
  normalizeGoDuration,
  type Origin,
  originLocation,
  parseMinorVersion,
  pointer,
} from '../../parse/component-config.js'
import {ABSENT_HEADER, FILE_HEADER, K3S_KUBELET_CONF_D} from '../../collection/plan.js'
import {parseKubeadmFlagsEnv} from '../../parse/kubeadm-flags.js'
import type {LayoutDiscovery} from '../../parse/layout-discovery.js'
import {
  applyKubeletDefaults,
  applyKubeletStartFills,
  type KubeletConfig,
  kubeletFieldSpec,
  mergeKubeletConfigs,
  parseKubeletConfig,
  parseKubeletConfigz,
  withKubeletSetting,
} from '../../parse/kubelet-config.js'
import {
  applyKubeletFlags,
  kubeletArgsFromEnvFiles,
  kubeletArgsFromUnit,
  type KubeletFlag,
  type KubeletFlags,
  parseK3sKubeletArgs,
  parseKubeletArgs,
  parseKubeletCommandLine,
} from '../../parse/kubelet-flags.js'
import type {ArgToken} from '../../parse/pflag.js'
import {parseSystemctlCat} from '../../parse/systemd-unit.js'
import {factKey, type NodeFacts} from '../../facts/node-facts.js'
import type {CheckContext} from '../types.js'
import {factsOf} from '../types.js'

export const KUBELET_CONFIG_PATH = '/var/lib/kubelet/config.yaml'
export const KUBEADM_FLAGS_PATH = '/var/lib/kubelet/kubeadm-flags.env'
/** The user's KUBELET_EXTRA_ARGS files (deb, rpm packages) by plan artifact; 10-kubeadm.conf sources one of them last. */
export const EXTRA_ARGS_FILES: ReadonlyArray<{artifact: string; path: string}> = [
  {artifact: 'kubelet-default-env', path: '/etc/default/kubelet'},
  {artifact: 'kubelet-sysconfig-env', path: '/etc/sysconfig/kubelet'},
]
/** Header line the `kubelet-dropins` plan item prints before each drop-in file. */
export const DROPIN_HEADER = FILE_HEADER

/**
 * The `kubelet-config` artifact: `# node-doctor-file: PATH` and the file the node's kubelet uses; one
 * `# node-doctor-absent: why` line where the layout has no config file (RKE2, k3s); or, from bundles written before
 * the header existed, the bare /var/lib/kubelet/config.yaml.
 */
export function readKubeletConfigArtifact(text: string): {path: string; body: string} | {absent: string} {
  if (text.startsWith(ABSENT_HEADER)) return {absent: text.slice(ABSENT_HEADER.length).split('\n')[0]!.trim()}
  if (text.startsWith(FILE_HEADER)) {
    const nl = text.indexOf('\n')
    return {path: text.slice(FILE_HEADER.length, nl < 0 ? undefined : nl).trim(), body: nl < 0 ? '' : text.slice(nl + 1)}
  }
  return {path: KUBELET_CONFIG_PATH, body: text}
}

/** Why an artifact holds nothing on this layout (`# node-doctor-absent: why`), if it says so. */
export function absentReason(text: string | undefined): string | undefined {
  return text?.startsWith(ABSENT_HEADER) ? text.slice(ABSENT_HEADER.length).split('\n')[0]!.trim() : undefined
}

/** An empty configuration: a layout whose kubelet has no --config file (defaults, drop-ins and flags only). */
function noFile(reason: string): KubeletConfig {
  return {format: 'yaml', source: `no config file (${reason})`, values: {}, origins: {}, issues: [], defaults: []}
}

export type Loaded<T> = {ok: true; value: T} | {ok: false; reason: string}

export interface KubeletView {
  /**
   * The kubelet config file the node's kubelet uses (the path the `kubelet-config` item read), or where its
   * configuration lives on a layout without one (k3s/RKE2: the --config-dir): findings name it in subject.in.
   */
  configPath: string
  /** Set when the layout has no config file: why (the collection script's words). */
  noConfigFile?: string
  /** The kubelet runs inside k3s (no process, unit or command line of its own). */
  embeddedInK3s: boolean
  /** `1.30` from the Node's status.nodeInfo.kubeletVersion, when known. */
  version?: string
  minor?: number
  nodeObject?: Node
  /** config.yaml as parsed (issues included), before defaults. */
  file: Loaded<KubeletConfig>
  dropIns: KubeletConfig[]
  /** Defaults → config.yaml → drop-ins: the configuration files on disk. */
  disk: Loaded<KubeletConfig>
  /** Flags the kubelet is (or will be) started with; `source` says where they were read. */
  flags: Loaded<KubeletFlags & {source: 'unit' | 'kubeadm-flags' | 'command-line' | 'k3s'; issuesFromUnit: ConfigIssue[]}>
  /** disk + flags: what the kubelet would run with after a restart. */
  next: Loaded<KubeletConfig>
  /** /configz: what runs now. */
  running: Loaded<KubeletConfig>
  /** kubeadm's kube-system/kubelet-config ConfigMap, defaulted. */
  intended: Loaded<KubeletConfig & {configMapName: string}>
}

const KUBELET_VIEW = factKey<KubeletView>('kubelet view')

/** Built once per node and kept on its facts: every KUBELET check reads the same view. */
export function kubeletView(ctx: CheckContext): KubeletView {
  return factsOf(ctx).derive(KUBELET_VIEW, (f) => buildView(f.cluster, f.node, f))
}

function errText(err: unknown): string {
  const e = err as {message?: string; line?: number}
  return `${e.message ?? String(err)}${typeof e.line === 'number' ? ` (line ${e.line})` : ''}`
}

/** Splits the `kubelet-dropins` artifact into files. */
export function splitDropIns(text: string): Array<{name: string; text: string}> {
  const out: Array<{name: string; text: string}> = []
  let cur: {name: string; lines: string[]} | undefined
  for (const line of text.split('\n')) {
    if (line.startsWith(DROPIN_HEADER)) {
      if (cur) out.push({name: cur.name, text: cur.lines.join('\n')})
      cur = {name: line.slice(DROPIN_HEADER.length).trim(), lines: []}
    } else cur?.lines.push(line)
  }
  if (cur) out.push({name: cur.name, text: cur.lines.join('\n')})
  return out
}

/** The kubeadm ConfigMap holding the cluster-wide KubeletConfiguration (`kubelet-config`, or `kubelet-config-1.NN` before 1.24). */
export function kubeletConfigMap(cluster: ClusterSnapshot, minor: number | undefined): ConfigMap | undefined {
  const cms = cluster.configMaps.filter((c) => c.metadata.namespace === 'kube-system' && /^kubelet-config(-1\.\d+)?$/.test(c.metadata.name))
  return cms.find((c) => c.metadata.name === 'kubelet-config') ?? cms.find((c) => minor !== undefined && c.metadata.name === `kubelet-config-1.${minor}`) ?? cms[0]
}

function buildView(cluster: ClusterSnapshot, node: NodeSnapshot, facts?: NodeFacts): KubeletView {
  const nodeObject = cluster.nodes.find((n) => n.metadata.name === node.node)
  const raw = nodeObject?.status?.nodeInfo?.kubeletVersion
  const minor = parseMinorVersion(raw)
  const version = minor === undefined ? undefined : `1.${minor}`
  const vopt = version === undefined ? {} : {version}
  const parsedDiscovery = facts?.layoutDiscovery()
  const discovery = parsedDiscovery?.ok ? parsedDiscovery.value : undefined
  const embeddedInK3s = discovery?.kubelet?.embeddedIn === 'k3s'

  let file: KubeletView['file']
  let configPath = KUBELET_CONFIG_PATH
  let noConfigFile: string | undefined
  const fileText = artifactText(node, 'kubelet-config')
  if (fileText === undefined) file = {ok: false, reason: 'missing input: kubelet-config'}
  else {
    const read = readKubeletConfigArtifact(fileText)
    if ('absent' in read) {
      noConfigFile = read.absent
      configPath = discovery?.kubelet?.configDir ?? (embeddedInK3s ? K3S_KUBELET_CONF_D : 'the kubelet --config-dir')
      file = {ok: true, value: noFile(read.absent)}
    } else {
      configPath = read.path
      try {
        file = {ok: true, value: parseKubeletConfig(read.body, {source: read.path, ...vopt})}
      } catch (err) {
        file = {ok: false, reason: `${read.path} cannot be read as YAML: ${errText(err)}`}
      }
    }
  }

  const dropIns: KubeletConfig[] = []
  const dropInIssues: ConfigIssue[] = []
  for (const f of splitDropIns(artifactText(node, 'kubelet-dropins') ?? '')) {
    if (!f.name.endsWith('.conf')) continue
    try {
      dropIns.push(parseKubeletConfig(f.text, {source: f.name, originKind: 'drop-in', ...vopt}))
    } catch (err) {
      dropInIssues.push({severity: 'error', code: 'drop-in-unreadable', source: f.name, message: `${f.name} cannot be read as YAML: ${errText(err)}; the kubelet exits`})
    }
  }

  // Without --config the kubelet starts from its flag defaults (applyLegacyDefaults: anonymous auth, AlwaysAllow,
  // read-only port 10255) before the drop-ins, not from the v1beta1 file defaults.
  let disk: KubeletView['disk'] = file.ok ? {ok: true, value: mergeKubeletConfigs(applyKubeletDefaults(file.value, version, {legacyFlagDefaults: noConfigFile !== undefined}), dropIns)} : file
  if (disk.ok && dropInIssues.length > 0) disk = {ok: true, value: {...disk.value, issues: [...disk.value.issues, ...dropInIssues]}}

  const flags = readFlags(node, version, embeddedInK3s ? discovery : undefined)
  // The kubelet's start-time fills come last: they depend on flags (--cert-dir) and on the merged config.
  const withFlags = (cfg: KubeletConfig) => (flags.ok ? applyKubeletFlags(cfg, flags.value.flags) : cfg)
  // RKE2 starts its kubelet with k3s's agent arguments, --read-only-port=0 among them: without its command line that
  // flag is implied, not the kubelet's flag default 10255.
  const rke2Implied = !embeddedInK3s && facts?.resolvedLayout.distribution === 'rke2' && !(flags.ok && flags.value.source === 'command-line')
  const fills = (cfg: KubeletConfig) => (embeddedInK3s ? k3sFills(cfg, node, discovery) : rke2Implied ? rke2Fills(cfg) : cfg)
  const next: KubeletView['next'] = !disk.ok ? disk : {ok: true, value: applyKubeletStartFills(fills(withFlags(disk.value)), flags.ok ? certDirOf(flags.value.flags) : undefined)}

  let running: KubeletView['running']
  const configz = cluster.configz[node.node]
  if (configz === undefined) running = {ok: false, reason: `missing input: /configz of ${node.node} (no nodes/proxy access, or the kubelet was unreachable)`}
  else {
    try {
      running = {ok: true, value: parseKubeletConfigz(configz, {source: `/api/v1/nodes/${node.node}/proxy/configz`, ...vopt})}
    } catch (err) {
      running = {ok: false, reason: `the /configz body of ${node.node} cannot be read: ${errText(err)}`}
    }
  }

  let intended: KubeletView['intended']
  const cm = kubeletConfigMap(cluster, minor)
  const cmText = cm?.data?.['kubelet']
  if (!cm) intended = {ok: false, reason: 'not applicable: no kube-system/kubelet-config ConfigMap (not a kubeadm cluster)'}
  else if (cmText === undefined) intended = {ok: false, reason: `ConfigMap kube-system/${cm.metadata.name} has no "kubelet" key`}
  else {
    const source = `configmap kube-system/${cm.metadata.name}[kubelet]`
    try {
      intended = {ok: true, value: {...applyKubeletDefaults(parseKubeletConfig(cmText, {source, ...vopt}), version), configMapName: cm.metadata.name}}
    } catch (err) {
      intended = {ok: false, reason: `ConfigMap kube-system/${cm.metadata.name} does not hold a readable KubeletConfiguration: ${errText(err)}`}
    }
  }

  const view: KubeletView = {configPath, embeddedInK3s, file, dropIns, disk, flags, next, running, intended}
  if (noConfigFile !== undefined) view.noConfigFile = noConfigFile
  if (version !== undefined) view.version = version
  if (minor !== undefined) view.minor = minor
  if (nodeObject) view.nodeObject = nodeObject
  return view
}

/** The last `--cert-dir` among the flags, if any. */
function certDirOf(flags: readonly KubeletFlag[]): string | undefined {
  return flags.filter((f) => f.name === 'cert-dir').at(-1)?.value
}

/** A file with nothing but comments and blank lines (the packages ship /etc/default/kubelet like that, or empty). */
function onlyComments(text: string): boolean {
  return text.split('\n').every((l) => l.trim() === '' || l.trim().startsWith('#'))
}

/** Without the unit: the arguments in 10-kubeadm.conf's order, KUBELET_KUBEADM_ARGS then KUBELET_EXTRA_ARGS. */
function fromEnvFiles(files: ReadonlyArray<{path: string; text: string}>): ArgToken[] {
  return kubeletArgsFromEnvFiles(files.filter((f) => !onlyComments(f.text)).map((f) => parseKubeadmFlagsEnv(f.text, {source: f.path})))
}

/** The k3s/RKE2 config files the `rancher-config` item printed, by path. */
export function rancherConfigFiles(node: NodeSnapshot, product?: 'k3s' | 'rke2'): Array<{name: string; text: string}> {
  return splitDropIns(artifactText(node, 'rancher-config') ?? '').filter((f) => product === undefined || f.name.startsWith(`/etc/rancher/${product}/`))
}

/** `key: value` (a scalar) from k3s config files, the last file that sets it winning; else `--key=value` on the k3s command line. */
export function k3sSetting(node: NodeSnapshot, discovery: LayoutDiscovery | undefined, key: string): {value: string; where: string} | undefined {
  let out: {value: string; where: string} | undefined
  const argv = discovery?.kubelet?.embeddedIn === 'k3s' ? discovery.kubelet.argv : []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a.startsWith(`--${key}=`)) out = {value: a.slice(key.length + 3), where: 'the k3s command line'}
    else if (a === `--${key}` && argv[i + 1] !== undefined) out = {value: argv[i + 1]!, where: 'the k3s command line'}
  }
  if (out) return out
  for (const f of rancherConfigFiles(node, 'k3s')) {
    const m = new RegExp(`^${key}:\\s*["']?([^"'#\\s]+)`, 'm').exec(f.text)
    if (m) out = {value: m[1]!, where: f.name}
  }
  return out
}

/**
 * What k3s gives its embedded kubelet besides the files we read: --cluster-dns and --cluster-domain from its own
 * settings (defaults 10.43.0.10, k3s-io/k3s pkg/daemons/control defaults, and cluster.local), when no drop-in or
 * kubelet-arg set them. NOTE: k3s v1.32+ writes them into 00-k3s-defaults.conf, which the drop-ins already hold.
 */
function k3sFills(cfg: KubeletConfig, node: NodeSnapshot, discovery: LayoutDiscovery | undefined): KubeletConfig {
  let out = cfg
  const dns = getAt(cfg.values, '/clusterDNS')
  if (!Array.isArray(dns) || dns.length === 0) {
    const s = k3sSetting(node, discovery, 'cluster-dns')
    out = withKubeletSetting(out, '/clusterDNS', [s?.value ?? '10.43.0.10'], {kind: 'default', detail: s ? `k3s cluster-dns at ${s.where}` : 'k3s default cluster-dns 10.43.0.10'})
  }
  // k3s passes --read-only-port=0 on its own (k3s-io/k3s pkg/daemons/agent/agent_linux.go; older releases set it in
  // the config it generates): the kubelet's flag default 10255 never applies there unless a kubelet-arg sets it.
  if (!['file', 'drop-in', 'flag'].includes(cfg.origins['/readOnlyPort']?.kind ?? '')) {
    out = withKubeletSetting(out, '/readOnlyPort', 0, {kind: 'default', detail: 'k3s passes --read-only-port=0'})
  }
  const domain = getAt(cfg.values, '/clusterDomain')
  if (typeof domain !== 'string' || domain === '') {
    const s = k3sSetting(node, discovery, 'cluster-domain')
    out = withKubeletSetting(out, '/clusterDomain', s?.value ?? 'cluster.local', {kind: 'default', detail: s ? `k3s cluster-domain at ${s.where}` : 'k3s default cluster-domain cluster.local'})
  }
  return out
}

/**
 * What RKE2 passes its kubelet when the command line was not read: --read-only-port=0 (rancher/rke2
 * pkg/podexecutor/staticpod.go runs the kubelet with k3s's agent arguments; k3s-io/k3s pkg/daemons/agent/agent_linux.go
 * kubeletArgsAndConfig adds --read-only-port=0), unless a config file, drop-in or flag sets the port.
 */
function rke2Fills(cfg: KubeletConfig): KubeletConfig {
  if (['file', 'drop-in', 'flag'].includes(cfg.origins['/readOnlyPort']?.kind ?? '')) return cfg
  return withKubeletSetting(cfg, '/readOnlyPort', 0, {kind: 'default', detail: "rke2 starts the kubelet with k3s's --read-only-port=0 (its command line was not read)"})
}

/** k3s's kubelet flags: kubelet-arg in /etc/rancher/k3s/config.yaml and config.yaml.d (in order), then --kubelet-arg on its command line. */
function k3sKubeletArgs(node: NodeSnapshot, discovery: LayoutDiscovery): ArgToken[] {
  const out: ArgToken[] = []
  for (const f of rancherConfigFiles(node, 'k3s')) {
    // NOTE: `kubelet-arg+:` (append) vs `kubelet-arg:` (replace) across config.yaml.d files is not modelled: all append.
    try {
      out.push(...parseK3sKubeletArgs(f.text, {source: f.name}))
    } catch {
      // no kubelet-arg in this file (or not YAML: the k3s process would not have started with it)
    }
  }
  const argv = discovery.kubelet?.argv ?? []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const v = a.startsWith('--kubelet-arg=') ? a.slice('--kubelet-arg='.length) : a === '--kubelet-arg' ? argv[++i] : undefined
    if (v !== undefined) out.push({text: `--${v.replace(/^-+/, '')}`, origin: {kind: 'flag', source: 'the k3s command line'}})
  }
  return out
}

function readFlags(node: NodeSnapshot, version: string | undefined, k3s?: LayoutDiscovery): KubeletView['flags'] {
  const vopt = version === undefined ? {} : {version}
  const envText = artifactText(node, 'kubeadm-flags')
  const unitRaw = artifactText(node, 'kubelet-unit')
  const unitText = absentReason(unitRaw) === undefined ? unitRaw : undefined
  const cmdlineRaw = artifactText(node, 'kubelet-cmdline')
  const cmdline = absentReason(cmdlineRaw) === undefined ? cmdlineRaw : undefined
  const extraFiles = EXTRA_ARGS_FILES.flatMap((f) => {
    const text = artifactText(node, f.artifact)
    return text === undefined ? [] : [{path: f.path, text}]
  })
  let args: ArgToken[] | undefined
  let source: 'unit' | 'kubeadm-flags' | 'command-line' | 'k3s' | undefined
  const issuesFromUnit: ConfigIssue[] = []
  try {
    // The unit and its environment files are what the next start uses; the command line is what runs now.
    if (unitText !== undefined && unitText.trim() !== '') {
      const unit = parseSystemctlCat(unitText, {source: 'systemctl cat kubelet'})
      // systemd reads only the extra-args file the unit names (deb units: /etc/default/kubelet; rpm and pkgs.k8s.io
      // units: /etc/sysconfig/kubelet), so the other one must not stand in for it by file name.
      const named = extraFiles.filter((f) => unit.environmentFiles.some((r) => r.path === f.path))
      const r = kubeletArgsFromUnit(unit, [...(envText === undefined ? [] : [{path: KUBEADM_FLAGS_PATH, text: envText}]), ...named])
      args = r.args
      issuesFromUnit.push(...r.issues)
      source = 'unit'
    } else if (envText !== undefined) {
      args = fromEnvFiles([{path: KUBEADM_FLAGS_PATH, text: envText}, ...extraFiles])
      source = 'kubeadm-flags'
    } else if (cmdline !== undefined && cmdline.trim() !== '') {
      args = parseKubeletCommandLine(cmdline, {source: 'kubelet command line'}).args
      source = 'command-line'
    } else if (k3s) {
      args = k3sKubeletArgs(node, k3s)
      source = 'k3s'
    } else {
      // A lone extra-args file tells something only when it sets flags (the packaged one is empty).
      const extra = fromEnvFiles(extraFiles)
      if (extra.length > 0) {
        args = extra
        source = 'kubeadm-flags'
      }
    }
  } catch (err) {
    return {ok: false, reason: `the kubelet's command line cannot be reconstructed: ${errText(err)}`}
  }
  if (!args || !source) return {ok: false, reason: 'missing input: kubelet-unit, kubeadm-flags, kubelet-default-env, kubelet-sysconfig-env or kubelet-cmdline'}
  return {ok: true, value: {...parseKubeletArgs(args, vopt), source, issuesFromUnit}}
}

// ---------------------------------------------------------------------------------------------------------------
// Reading and comparing values

/** The configuration a setting check judges: the running one when /configz was read, else files + flags. */
export function effectiveConfig(v: KubeletView): Loaded<{cfg: KubeletConfig; basis: string}> {
  if (v.running.ok) return {ok: true, value: {cfg: v.running.value, basis: 'running (/configz)'}}
  if (v.next.ok) return {ok: true, value: {cfg: v.next.value, basis: `${v.noConfigFile === undefined ? v.configPath : 'defaults'}${v.dropIns.length > 0 ? ' + drop-ins' : ''}${v.flags.ok ? ' + flags' : ''}`}}
  return {ok: false, reason: `${v.next.reason}; ${v.running.reason}`}
}

/** Where a value came from, for evidence: `config.yaml:12`, `flag --x=1 at /var/lib/kubelet/kubeadm-flags.env:1`, `default`. */
export function describeOrigin(cfg: KubeletConfig, ptr: string): string {
  const o: Origin | undefined = cfg.origins[ptr] ?? Object.entries(cfg.origins).find(([k]) => k.startsWith(ptr + '/'))?.[1]
  if (!o) return cfg.format === 'configz' ? 'running kubelet (/configz)' : 'not set (Go zero value)'
  const loc = originLocation(o)
  switch (o.kind) {
    case 'default':
      return `kubelet default (${o.detail ?? 'defaults.go'})`
    case 'flag':
      return `flag ${o.detail ?? ''}${loc ? ` at ${loc}` : ''}`
    case 'configz':
      return 'running kubelet (/configz)'
    default:
      return loc ?? o.kind
  }
}

/** The value at a dotted path, reading an unset non-pointer scalar as its Go zero value (what /configz omits). */
export function valueAt(cfg: KubeletConfig, path: string): JsonValue | undefined {
  const ptr = path.startsWith('/') ? path : pointer(...path.split('.'))
  const v = getAt(cfg.values, ptr)
  if (v !== undefined && v !== null) return v
  const spec = kubeletFieldSpec(ptr)
  if (!spec || spec.pointer) return v ?? undefined
  switch (spec.type) {
    case 'bool':
      return false
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'float':
      return 0
    case 'duration':
      return '0s'
    case 'string':
    case 'quantity':
      return ''
    default:
      return v ?? undefined
  }
}

function stable(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return ''
  if (typeof v === 'string') return normalizeGoDuration(v) ?? v
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`
  if (typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${k}:${stable((v as JsonObject)[k])}`).join(',')}}`
  return JSON.stringify(v)
}

/** Equality as the kubelet sees it: durations normalised (`4h` = `4h0m0s`), maps by key, unset = Go zero. */
export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const za = a === undefined || a === null || isGoZero(a) || (typeof a === 'object' && Object.keys(a).length === 0)
  const zb = b === undefined || b === null || isGoZero(b) || (typeof b === 'object' && Object.keys(b).length === 0)
  if (za && zb) return true
  return stable(a) === stable(b)
}

/**
 * Fields not compared: /configz reports values the files never hold (logging defaults from component-base,
 * the runtime endpoint a flag usually sets, Go TLS defaults), so they would differ on every healthy node.
 */
const NOT_COMPARED = new Set(['/logging', '/tlsCipherSuites', '/tlsMinVersion', '/containerRuntimeEndpoint', '/imageServiceEndpoint', '/featureGates'])

export interface FieldDifference {
  ptr: string
  path: string
  a: JsonValue | undefined
  b: JsonValue | undefined
}

/**
 * Field-by-field differences between two kubelet configurations. Structs are walked; maps and lists compare
 * whole (a drop-in or flag replaces them whole). A field one side leaves unset is compared as its Go zero value
 * for non-pointer scalars, lists and maps, and skipped for pointer fields (their default is unknowable here).
 */
export function diffConfigs(a: KubeletConfig, b: KubeletConfig, skip: ReadonlySet<string> = NOT_COMPARED): FieldDifference[] {
  const out: FieldDifference[] = []
  const walk = (av: JsonObject | undefined, bv: JsonObject | undefined, ptr: string): void => {
    const keys = [...new Set([...Object.keys(av ?? {}), ...Object.keys(bv ?? {})])].sort()
    for (const k of keys) {
      const p = ptr + pointer(k)
      if (skip.has(p)) continue
      const spec = kubeletFieldSpec(p)
      if (!spec) continue // unknown fields are the schema check's business
      const x = av?.[k]
      const y = bv?.[k]
      const isStruct = typeof spec.type === 'object' && 'struct' in spec.type
      if (isStruct) {
        const xo = x && typeof x === 'object' && !Array.isArray(x) ? x : undefined
        const yo = y && typeof y === 'object' && !Array.isArray(y) ? y : undefined
        walk(xo, yo, p)
        continue
      }
      if ((x === undefined || x === null || y === undefined || y === null) && spec.pointer) continue
      if (!sameValue(x, y)) out.push({ptr: p, path: p.slice(1).replaceAll('/', '.'), a: x, b: y})
    }
  }
  walk(a.values, b.values, '')
  return out
}

export function show(v: JsonValue | undefined): string {
  return v === undefined || v === null ? '<unset>' : formatValue(v)
}
