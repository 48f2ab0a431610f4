// Parser for the `layout` artifact: the `key=value` lines printed by the discovery script of the collection plan
// (core/collection/plan.ts layoutDiscoveryScript). Strict about the line shape (a line that is not `key=value`
// with a lower-case key is an error with its line number); keys it does not know are kept, not fatal, so an older
// node-doctor reads a newer bundle.
import {parse as parseYaml} from 'yaml'
import {ParseError} from '../../errors.js'

export const LAYOUT_DISCOVERY_FORMAT = 'node-doctor-layout/1'

/** One process the script found, by /proc/PID/comm, with its command line (arguments joined by single spaces). */
export interface DiscoveredProcess {
  pid: number
  /** /proc/PID/comm: `kubelet`, `kube-proxy`, `k3s`, `k3s-server`, `rke2`, `containerd`, ... */
  name: string
  /** The arguments; an argument that held a space is split (the script joins NULs with spaces). */
  argv: string[]
}

/** The kubelet as discovered: its own process, or the k3s process that embeds it. */
export interface DiscoveredKubelet {
  pid: number
  /** `kubelet` for a kubelet process; `k3s` when it runs inside `k3s server|agent`. */
  embeddedIn?: 'k3s'
  /** `server` or `agent` for k3s. */
  role?: string
  config?: string
  configDir?: string
  kubeconfig?: string
  argv: string[]
}

export interface LayoutDiscovery {
  format: string
  osRelease?: {source: string; id?: string; versionId?: string; prettyName?: string}
  processes: DiscoveredProcess[]
  /** Well-known paths that exist, in the script's order. */
  paths: string[]
  /** Entries of the listed directories (static pod manifests, kubelet drop-ins), as full paths. */
  files: string[]
  cni: {files: string[]; first?: string; firstType?: string}
  /** CNI and Services links present (tunl0, flannel.1, cilium_host, kube-ipvs0, eni…). */
  links: string[]
  kubelet?: DiscoveredKubelet
  /** The kube-proxy process's arguments, when one runs on the host (its own process; not k3s's embedded one). */
  kubeProxy?: {pid: number; argv: string[]}
  /** Keys this version does not know, with their line numbers. */
  unknownKeys: Array<{key: string; line: number}>
}

const LINE = /^([a-z][a-z0-9-]*)=(.*)$/

/** Parses the discovery output. Throws ParseError (with the line) for a line that is not `key=value` or a bad process line. */
export function parseLayoutDiscovery(text: string): LayoutDiscovery {
  const out: LayoutDiscovery = {format: '', processes: [], paths: [], files: [], cni: {files: []}, links: [], unknownKeys: []}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '')
    if (raw.trim() === '') continue
    const m = LINE.exec(raw)
    if (!m) throw new ParseError(`not a key=value line: ${JSON.stringify(raw.slice(0, 80))}`, i + 1)
    const key = m[1]!
    const value = m[2]!
    const os = () => (out.osRelease ??= {source: ''})
    switch (key) {
      case 'format':
        out.format = value
        break
      case 'os-release':
        os().source = value
        break
      case 'os-id':
        os().id = value
        break
      case 'os-version-id':
        os().versionId = value
        break
      case 'os-pretty-name':
        os().prettyName = value
        break
      case 'process': {
        const pm = /^(\d+) (\S+)(?: (.*))?$/.exec(value)
        if (!pm) throw new ParseError(`process line is not "PID NAME ARGS": ${JSON.stringify(value.slice(0, 80))}`, i + 1)
        out.processes.push({pid: Number(pm[1]), name: pm[2]!, argv: (pm[3] ?? '').split(' ').filter((a) => a !== '')})
        break
      }
      case 'path':
        pushPath(out.paths, value, i + 1)
        break
      case 'file':
        pushPath(out.files, value, i + 1)
        break
      case 'cni-file':
        pushPath(out.cni.files, value, i + 1)
        break
      case 'cni-first':
        out.cni.first = value
        break
      case 'cni-first-type':
        out.cni.firstType = value
        break
      case 'link':
        if (value === '' || /\s|\//.test(value)) throw new ParseError(`not a link name: ${JSON.stringify(value.slice(0, 80))}`, i + 1)
        if (!out.links.includes(value)) out.links.push(value)
        break
      default:
        out.unknownKeys.push({key, line: i + 1})
    }
  }
  if (out.format !== '' && !out.format.startsWith('node-doctor-layout/')) throw new ParseError(`not a layout discovery output (format=${out.format})`, 1)
  const kubelet = findKubelet(out.processes)
  if (kubelet) out.kubelet = kubelet
  const kp = out.processes.find((p) => p.name === 'kube-proxy')
  if (kp) out.kubeProxy = {pid: kp.pid, argv: kp.argv}
  return out
}

function pushPath(list: string[], value: string, line: number): void {
  if (!value.startsWith('/')) throw new ParseError(`not an absolute path: ${JSON.stringify(value.slice(0, 80))}`, line)
  if (!list.includes(value)) list.push(value)
}

/** The kubelet: a `kubelet` process (the oldest, lowest pid), else a `k3s server|agent` process that embeds it. */
function findKubelet(processes: readonly DiscoveredProcess[]): DiscoveredKubelet | undefined {
  const own = processes.filter((p) => p.name === 'kubelet').sort((a, b) => a.pid - b.pid)[0]
  if (own) return withFlags({pid: own.pid, argv: own.argv}, own.argv)
  // NOTE: k3s shows as `k3s`, `k3s-server` or `k3s-agent` depending on the version; its role is the first
  // non-flag argument. Whether k3s keeps its flags in /proc/PID/cmdline after renaming itself is unverified.
  for (const p of [...processes].sort((a, b) => a.pid - b.pid)) {
    if (!/^k3s(-server|-agent)?$/.test(p.name)) continue
    const role = p.name.startsWith('k3s-') ? p.name.slice(4) : p.argv.slice(1).find((a) => !a.startsWith('-'))
    if (role !== 'server' && role !== 'agent') continue
    return withFlags({pid: p.pid, embeddedIn: 'k3s', role, argv: p.argv}, kubeletArgsOfK3s(p.argv))
  }
  return undefined
}

/** k3s passes kubelet flags as `--kubelet-arg=config=/x` / `--kubelet-arg config=/x`; they become `--config=/x`. */
function kubeletArgsOfK3s(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const v = a.startsWith('--kubelet-arg=') ? a.slice('--kubelet-arg='.length) : a === '--kubelet-arg' ? argv[++i] : undefined
    if (v !== undefined) out.push(`--${v.replace(/^-+/, '')}`)
  }
  return out
}

function withFlags(k: DiscoveredKubelet, argv: readonly string[]): DiscoveredKubelet {
  const config = flagValue(argv, 'config')
  const configDir = flagValue(argv, 'config-dir')
  const kubeconfig = flagValue(argv, 'kubeconfig')
  if (config !== undefined) k.config = config
  if (configDir !== undefined) k.configDir = configDir
  if (kubeconfig !== undefined) k.kubeconfig = kubeconfig
  return k
}

/** The last value of `--name=v` or `--name v` (pflag: the last occurrence wins). */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  let v: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === `--${name}` || a === `-${name}`) {
      const next = argv[i + 1]
      if (next !== undefined && !next.startsWith('-')) v = next
    } else if (a.startsWith(`--${name}=`)) v = a.slice(name.length + 3)
    else if (a.startsWith(`-${name}=`)) v = a.slice(name.length + 2)
  }
  return v
}

/** One `<component>-arg` entry of k3s/RKE2 (`proxy-mode=ipvs`), as the flag it becomes, and where it was written. */
export interface RancherArg {
  /** `--proxy-mode=ipvs`. */
  flag: string
  /** `/etc/rancher/k3s/config.yaml` or `the k3s command line`. */
  source: string
}

export interface RancherSettings {
  kubeletArgs: RancherArg[]
  kubeProxyArgs: RancherArg[]
  /** `disable-kube-proxy: true` (or --disable-kube-proxy), with where it was set. */
  disableKubeProxy?: string
  /** Scalar settings the layout reads (cluster-cidr, service-cidr, cluster-dns, cluster-domain), the last source winning. */
  scalars: Record<string, {value: string; source: string}>
  /** Files that could not be read as YAML, with the reason (k3s would refuse to start with them). */
  problems: string[]
}

const RANCHER_FILE_HEADER = '# node-doctor-file: '
const RANCHER_SCALARS = ['cluster-cidr', 'service-cidr', 'cluster-dns', 'cluster-domain'] as const

/**
 * k3s/RKE2 settings from the `rancher-config` artifact (config.yaml and config.yaml.d files, each after a
 * "# node-doctor-file: PATH" line) and the k3s process's command line. List keys from later files append (k3s
 * documents `key+:` for appending and plain keys for replacing; NOTE: the replacing form is read as appending here).
 * Command-line flags come last, as k3s applies them over the files.
 */
export function parseRancherSettings(configText: string | undefined, argv: readonly string[] = []): RancherSettings {
  const out: RancherSettings = {kubeletArgs: [], kubeProxyArgs: [], problems: [], scalars: {}}
  const files: Array<{name: string; lines: string[]}> = []
  for (const line of (configText ?? '').split('\n')) {
    if (line.startsWith(RANCHER_FILE_HEADER)) files.push({name: line.slice(RANCHER_FILE_HEADER.length).trim(), lines: []})
    else files.at(-1)?.lines.push(line)
  }
  const asFlag = (v: string) => `--${v.replace(/^-+/, '')}`
  for (const f of files) {
    let doc: unknown
    try {
      doc = parseYaml(f.lines.join('\n'))
    } catch (err) {
      out.problems.push(`${f.name}: ${(err as Error).message.split('\n')[0]}`)
      continue
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) continue
    const m = doc as Record<string, unknown>
    const list = (key: string) => {
      const v = m[key] ?? m[`${key}+`]
      return (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).map((x) => String(x))
    }
    for (const a of list('kubelet-arg')) out.kubeletArgs.push({flag: asFlag(a), source: f.name})
    for (const a of list('kube-proxy-arg')) out.kubeProxyArgs.push({flag: asFlag(a), source: f.name})
    if (m['disable-kube-proxy'] === true || m['disable-kube-proxy'] === 'true') out.disableKubeProxy = f.name
    for (const key of RANCHER_SCALARS) {
      const v = m[key]
      if (typeof v === 'string' || typeof v === 'number') out.scalars[key] = {value: String(v), source: f.name}
    }
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    for (const [name, into] of [['kubelet-arg', out.kubeletArgs], ['kube-proxy-arg', out.kubeProxyArgs]] as const) {
      const v = a.startsWith(`--${name}=`) ? a.slice(name.length + 3) : a === `--${name}` ? argv[i + 1] : undefined
      if (v !== undefined) into.push({flag: asFlag(v), source: 'the k3s command line'})
    }
    if (a === '--disable-kube-proxy' || a === '--disable-kube-proxy=true') out.disableKubeProxy = 'the k3s command line'
    for (const key of RANCHER_SCALARS) {
      const v = a.startsWith(`--${key}=`) ? a.slice(key.length + 3) : a === `--${key}` ? argv[i + 1] : undefined
      if (v !== undefined) out.scalars[key] = {value: v, source: 'the k3s command line'}
    }
  }
  return out
}
