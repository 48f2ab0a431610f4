// containerd's /etc/containerd/config.toml: which runtimes the CRI plugin has, whether the default runtime uses
// the systemd cgroup driver (must match the kubelet's cgroupDriver), the sandbox (pause) image and CNI paths.
// Config versions (containerd docs/cri/config.md): 1 = containerd 1.0–1.x `plugins.cri`; 2 = containerd 1.3+
// `plugins."io.containerd.grpc.v1.cri"`; 3 = containerd 2.x, split into `io.containerd.cri.v1.runtime` and
// `io.containerd.cri.v1.images`.
import {parse as parseToml, TomlError} from 'smol-toml'
import {ParseError} from '../../errors.js'
import type {ConfigIssue} from './component-config.js'

export interface ContainerdRuntime {
  name: string
  runtimeType?: string
  /** `options.SystemdCgroup` as written (undefined = unset, which means false). */
  systemdCgroup?: boolean
  options: Record<string, unknown>
  /** Dotted TOML path of the runtime table. */
  path: string
  line?: number
}

export interface ContainerdConfig {
  version: 1 | 2 | 3
  /** Plugin table holding the runtimes and CNI settings for this version. */
  runtimePlugin: string
  /** Plugin table holding the sandbox image and snapshotter for this version. */
  imagesPlugin: string
  /** `disabled_plugins` disables the CRI plugin: the kubelet cannot use this containerd at all. */
  criDisabled: boolean
  disabledPlugins: string[]
  defaultRuntimeName: string
  runtimes: ContainerdRuntime[]
  defaultRuntime?: ContainerdRuntime
  /** The cgroup driver containerd uses for the default runtime. `explicit: false` means unset (→ cgroupfs). */
  cgroupDriver: {value: 'systemd' | 'cgroupfs'; explicit: boolean; line?: number}
  sandboxImage?: {value: string; key: string; line?: number}
  cni: {binDirs: string[]; confDir?: string}
  snapshotter?: string
  /** `imports = [...]`: other files merged into this one, not read here. */
  imports: string[]
  issues: ConfigIssue[]
}

type Table = Record<string, unknown>

function table(v: unknown): Table | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) ? (v as Table) : undefined
}

/** Splits a TOML key path (`plugins."io.containerd.grpc.v1.cri".containerd`) into segments. */
export function splitTomlKey(key: string): string[] {
  const out: string[] = []
  let cur = ''
  let quote: string | undefined
  for (const c of key.trim()) {
    if (quote) {
      if (c === quote) quote = undefined
      else cur += c
    } else if (c === '"' || c === "'") quote = c
    else if (c === '.') {
      out.push(cur.trim())
      cur = ''
    } else cur += c
  }
  out.push(cur.trim())
  return out
}

/** Line of every `key = value` and `[table]` in the text, by full dotted path (segments joined with U+0000). */
function keyLines(text: string): Map<string, number> {
  const out = new Map<string, number>()
  let prefix: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const header = /^\[\[?\s*(.+?)\s*\]\]?(?:\s*#.*)?$/.exec(line)
    if (header) {
      prefix = splitTomlKey(header[1] ?? '')
      out.set(prefix.join('\u0000'), i + 1)
      return
    }
    const kv = /^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_.\- ])+?)\s*=/.exec(line)
    if (kv) out.set([...prefix, ...splitTomlKey(kv[1] ?? '')].join('\u0000'), i + 1)
  })
  return out
}

/**
 * Parses config.toml. Throws ParseError (with the line) for invalid TOML; returns issues for configurations
 * containerd accepts but that break Kubernetes (CRI disabled, missing default runtime, settings under the
 * plugin name of another config version).
 */
export function parseContainerdConfig(text: string, options: {source?: string} = {}): ContainerdConfig {
  let doc: Table
  try {
    doc = parseToml(text) as Table
  } catch (err) {
    if (err instanceof TomlError) throw new ParseError(`invalid TOML: ${err.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'syntax error'}`, err.line)
    throw err
  }
  const lines = keyLines(text)
  const lineOf = (...path: string[]): number | undefined => lines.get(path.join('\u0000'))
  const src = options.source === undefined ? {} : {source: options.source}
  const issues: ConfigIssue[] = []
  const rawVersion = doc['version']
  let version: 1 | 2 | 3
  if (rawVersion === undefined) {
    version = 1
    issues.push({severity: 'warning', code: 'no-version', ...src, message: 'no `version` key: containerd 1.x reads this as config version 1; containerd 2.x no longer supports version 1. Add `version = 2` (containerd 1.x) or `version = 3` (containerd 2.x)'})
  } else if (rawVersion === 1 || rawVersion === 1n || rawVersion === 2 || rawVersion === 2n || rawVersion === 3 || rawVersion === 3n) {
    version = Number(rawVersion) as 1 | 2 | 3
  } else {
    throw new ParseError(`unsupported config version ${String(rawVersion)} (expected 1, 2 or 3)`, lineOf('version') ?? 1)
  }
  const plugins = table(doc['plugins']) ?? {}
  const runtimePlugin = version === 3 ? 'io.containerd.cri.v1.runtime' : version === 2 ? 'io.containerd.grpc.v1.cri' : 'cri'
  const imagesPlugin = version === 3 ? 'io.containerd.cri.v1.images' : runtimePlugin
  const rt = table(plugins[runtimePlugin]) ?? {}
  const img = table(plugins[imagesPlugin]) ?? {}

  const disabledPlugins = Array.isArray(doc['disabled_plugins']) ? (doc['disabled_plugins'] as unknown[]).map(String) : []
  const criNames = ['cri', 'io.containerd.grpc.v1.cri', 'io.containerd.cri.v1.runtime', 'io.containerd.cri.v1.images']
  const criDisabled = disabledPlugins.some((p) => criNames.includes(p))
  if (criDisabled) {
    issues.push({
      severity: 'error',
      code: 'cri-disabled',
      ...src,
      ...(lineOf('disabled_plugins') === undefined ? {} : {line: lineOf('disabled_plugins')}),
      message: `disabled_plugins = [${disabledPlugins.map((p) => JSON.stringify(p)).join(', ')}] turns off the CRI plugin (the config Docker's containerd package ships): the kubelet cannot run pods. Remove "cri" and restart containerd`,
    })
  }

  // Settings written under another version's plugin name are silently ignored by containerd.
  if (version === 3) {
    const old = table(plugins['io.containerd.grpc.v1.cri'])
    for (const k of ['containerd', 'sandbox_image', 'cni', 'registry']) {
      if (old && old[k] !== undefined) {
        issues.push({
          severity: 'warning',
          code: 'wrong-plugin-for-version',
          ...src,
          ...(lineOf('plugins', 'io.containerd.grpc.v1.cri', k) === undefined ? {} : {line: lineOf('plugins', 'io.containerd.grpc.v1.cri', k)}),
          message: `plugins."io.containerd.grpc.v1.cri".${k} is a version 2 setting; in a version 3 file it belongs under ${k === 'sandbox_image' ? `plugins."io.containerd.cri.v1.images".pinned_images.sandbox` : k === 'registry' ? 'plugins."io.containerd.cri.v1.images".registry' : `plugins."io.containerd.cri.v1.runtime".${k}`} and is not read here`,
        })
      }
    }
  } else {
    for (const k of ['io.containerd.cri.v1.runtime', 'io.containerd.cri.v1.images']) {
      if (plugins[k] !== undefined) {
        issues.push({
          severity: 'warning',
          code: 'wrong-plugin-for-version',
          ...src,
          ...(lineOf('plugins', k) === undefined ? {} : {line: lineOf('plugins', k)}),
          message: `plugins."${k}" is a version 3 (containerd 2.x) table in a version ${version} file; containerd 1.x ignores it`,
        })
      }
    }
  }

  const containerdTable = table(rt['containerd']) ?? {}
  const defaultRuntimeName = typeof containerdTable['default_runtime_name'] === 'string' ? containerdTable['default_runtime_name'] : 'runc'
  const runtimes: ContainerdRuntime[] = []
  for (const [name, value] of Object.entries(table(containerdTable['runtimes']) ?? {})) {
    const t = table(value) ?? {}
    const opts = table(t['options']) ?? {}
    const r: ContainerdRuntime = {name, options: opts, path: `plugins."${runtimePlugin}".containerd.runtimes.${name}`}
    if (typeof t['runtime_type'] === 'string') r.runtimeType = t['runtime_type']
    if (typeof opts['SystemdCgroup'] === 'boolean') r.systemdCgroup = opts['SystemdCgroup']
    const line = lineOf('plugins', runtimePlugin, 'containerd', 'runtimes', name, 'options', 'SystemdCgroup') ?? lineOf('plugins', runtimePlugin, 'containerd', 'runtimes', name)
    if (line !== undefined) r.line = line
    runtimes.push(r)
  }
  // Config version 1 could name the default runtime inline instead of by name.
  const inline = table(containerdTable['default_runtime'])
  if (inline && !runtimes.some((r) => r.name === defaultRuntimeName)) {
    const opts = table(inline['options']) ?? {}
    const r: ContainerdRuntime = {name: defaultRuntimeName, options: opts, path: `plugins."${runtimePlugin}".containerd.default_runtime`}
    if (typeof inline['runtime_type'] === 'string') r.runtimeType = inline['runtime_type']
    if (typeof opts['SystemdCgroup'] === 'boolean') r.systemdCgroup = opts['SystemdCgroup']
    const line = lineOf('plugins', runtimePlugin, 'containerd', 'default_runtime')
    if (line !== undefined) r.line = line
    runtimes.push(r)
  }
  const defaultRuntime = runtimes.find((r) => r.name === defaultRuntimeName)
  if (!defaultRuntime && runtimes.length > 0) {
    issues.push({
      severity: 'error',
      code: 'default-runtime-missing',
      ...src,
      message: `default_runtime_name is ${JSON.stringify(defaultRuntimeName)} but no runtime of that name is defined (defined: ${runtimes.map((r) => r.name).join(', ')})`,
    })
  }
  // Legacy: systemd_cgroup at the plugin level applies only to the io.containerd.runtime.v1.linux shim.
  const legacySystemd = rt['systemd_cgroup']
  let cgroupDriver: ContainerdConfig['cgroupDriver']
  if (defaultRuntime?.systemdCgroup !== undefined) {
    cgroupDriver = {value: defaultRuntime.systemdCgroup ? 'systemd' : 'cgroupfs', explicit: true}
    const l = lineOf('plugins', runtimePlugin, 'containerd', 'runtimes', defaultRuntime.name, 'options', 'SystemdCgroup')
    if (l !== undefined) cgroupDriver.line = l
  } else if (typeof legacySystemd === 'boolean' && (defaultRuntime?.runtimeType === undefined || defaultRuntime.runtimeType === 'io.containerd.runtime.v1.linux')) {
    cgroupDriver = {value: legacySystemd ? 'systemd' : 'cgroupfs', explicit: true}
    const l = lineOf('plugins', runtimePlugin, 'systemd_cgroup')
    if (l !== undefined) cgroupDriver.line = l
  } else {
    cgroupDriver = {value: 'cgroupfs', explicit: false}
  }
  if (typeof legacySystemd === 'boolean' && defaultRuntime?.runtimeType === 'io.containerd.runc.v2') {
    issues.push({
      severity: 'warning',
      code: 'legacy-systemd-cgroup',
      ...src,
      ...(lineOf('plugins', runtimePlugin, 'systemd_cgroup') === undefined ? {} : {line: lineOf('plugins', runtimePlugin, 'systemd_cgroup')}),
      message: `systemd_cgroup = ${legacySystemd} has no effect on the io.containerd.runc.v2 runtime; set SystemdCgroup under ${defaultRuntime.path}.options`,
    })
  }

  let sandboxImage: ContainerdConfig['sandboxImage']
  if (version === 3) {
    const pinned = table(img['pinned_images'])
    if (typeof pinned?.['sandbox'] === 'string') {
      sandboxImage = {value: pinned['sandbox'], key: `plugins."${imagesPlugin}".pinned_images.sandbox`}
      const l = lineOf('plugins', imagesPlugin, 'pinned_images', 'sandbox')
      if (l !== undefined) sandboxImage.line = l
    }
  } else if (typeof rt['sandbox_image'] === 'string') {
    sandboxImage = {value: rt['sandbox_image'], key: `plugins."${runtimePlugin}".sandbox_image`}
    const l = lineOf('plugins', runtimePlugin, 'sandbox_image')
    if (l !== undefined) sandboxImage.line = l
  }

  const cniTable = table(rt['cni']) ?? {}
  const binDirs = Array.isArray(cniTable['bin_dirs']) ? (cniTable['bin_dirs'] as unknown[]).map(String) : typeof cniTable['bin_dir'] === 'string' ? [cniTable['bin_dir']] : ['/opt/cni/bin']
  const cni: ContainerdConfig['cni'] = {binDirs, confDir: typeof cniTable['conf_dir'] === 'string' ? cniTable['conf_dir'] : '/etc/cni/net.d'}
  const snapshotter = version === 3 ? img['snapshotter'] : containerdTable['snapshotter']
  const imports = Array.isArray(doc['imports']) ? (doc['imports'] as unknown[]).map(String) : []
  if (imports.length > 0) {
    issues.push({severity: 'info', code: 'imports', ...src, message: `settings may also come from imported files: ${imports.join(', ')}`})
  }
  const out: ContainerdConfig = {
    version,
    runtimePlugin,
    imagesPlugin,
    criDisabled,
    disabledPlugins,
    defaultRuntimeName,
    runtimes,
    cgroupDriver,
    cni,
    imports,
    issues,
  }
  if (defaultRuntime) out.defaultRuntime = defaultRuntime
  if (sandboxImage) out.sandboxImage = sandboxImage
  if (typeof snapshotter === 'string') out.snapshotter = snapshotter
  return out
}
