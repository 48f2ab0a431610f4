// `kubelet show`: turns the files a user collected from a node (config.yaml, drop-ins, /configz, `systemctl cat
// kubelet`, kubeadm-flags.env, /etc/default/kubelet, a k3s config or a `ps` line) into the kubelet's effective
// settings, each with its value and where it came from. Pure: texts in, result out.
import {isMap, isScalar} from 'yaml'
import {UsageError} from '../errors.js'
import {parsingFile} from './input-file.js'
import {
  type ConfigIssue,
  displayPath,
  formatValue,
  getAt,
  isGoZero,
  type JsonValue,
  loadYaml,
  normalizeGoDuration,
  type Origin,
  parseMinorVersion,
  pointer,
} from '../core/parse/component-config.js'
import {type KubeletInputKind, type KubeletShowResult, SETTINGS_API_VERSION, type ShowFlag, type ShowSetting} from '../core/model/component-settings.js'
import {parseKubeadmFlagsEnv} from '../core/parse/kubeadm-flags.js'
import {
  applyKubeletDefaults,
  detectKubeletDocument,
  KUBELET_API_VERSION,
  KUBELET_CONFIGMAP_KEYS,
  KUBELET_KIND,
  KUBELET_SCHEMA,
  type KubeletConfig,
  kubeletFieldSpec,
  mergeKubeletConfigs,
  parseKubeletConfig,
  parseKubeletConfigz,
} from '../core/parse/kubelet-config.js'
import {
  applyKubeletFlags,
  kubeletArgsFromEnvFiles,
  kubeletArgsFromUnit,
  type KubeletFlags,
  parseK3sKubeletArgs,
  parseKubeletArgs,
  parseKubeletCommandLine,
} from '../core/parse/kubelet-flags.js'
import type {ArgToken} from '../core/parse/pflag.js'
import {ABSENT_HEADER, FILE_HEADER} from '../core/collection/plan.js'
import {splitDropIns} from '../core/checks/kubelet/view.js'
import {type ComponentSpec, isMalformedYaml, readPastedComponentConfig} from '../core/parse/pasted-config.js'
import {parseEnvironmentFile, parseSystemctlCat, type SystemdUnit} from '../core/parse/systemd-unit.js'

export interface NamedText {
  name: string
  text: string
}

/** Settings shown first, in this order (node-state.md E.4). */
export const KUBELET_IMPORTANT_SETTINGS = [
  'authentication.anonymous.enabled',
  'authentication.webhook.enabled',
  'authentication.x509.clientCAFile',
  'authorization.mode',
  'address',
  'port',
  'readOnlyPort',
  'healthzBindAddress',
  'healthzPort',
  'clusterDNS',
  'clusterDomain',
  'resolvConf',
  'cgroupDriver',
  'cgroupsPerQOS',
  'cgroupRoot',
  'containerRuntimeEndpoint',
  'failSwapOn',
  'maxPods',
  'podPidsLimit',
  'eventRecordQPS',
  'streamingConnectionIdleTimeout',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'nodeLeaseDurationSeconds',
  'imageGCHighThresholdPercent',
  'imageGCLowThresholdPercent',
  'evictionHard',
  'hairpinMode',
  'makeIPTablesUtilChains',
  'iptablesMasqueradeBit',
  'rotateCertificates',
  'serverTLSBootstrap',
  'protectKernelDefaults',
  'tlsCipherSuites',
  'tlsMinVersion',
  'seccompDefault',
  'registerNode',
  'enforceNodeAllocatable',
  'staticPodPath',
  'containerLogMaxSize',
  'containerLogMaxFiles',
  'serializeImagePulls',
  'featureGates',
] as const

// ---------------------------------------------------------------------------------------------------------------
// Input detection

function isEnvFileText(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !/^\s*[#;]/.test(l))
  return lines.length > 0 && lines.every((l) => /^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/.test(l) || /^\s/.test(l) || /\\$/.test(l))
}

function isUnitText(text: string): boolean {
  return /^\s*\[(Service|Unit)\]\s*$/m.test(text) && /^\s*(ExecStart|Environment|EnvironmentFile)\s*=/m.test(text)
}

function isK3sConfig(text: string): boolean {
  try {
    const root = loadYaml(text)?.doc.contents
    return isMap(root) && root.items.some((p) => isScalar(p.key) && p.key.value === 'kubelet-arg')
  } catch {
    return false
  }
}

/** What kind of kubelet input a file is; undefined when none fits. */
export function detectKubeletInput(text: string): Exclude<KubeletInputKind, 'drop-in'> | undefined {
  const doc = detectKubeletDocument(text)
  if (doc) return doc
  if (isUnitText(text)) return 'systemd-unit'
  if (isK3sConfig(text)) return 'k3s-config'
  if (isEnvFileText(text)) return 'env-file'
  if (/Running kubelet |(?:^|\s)(?:\/\S*\/)?kubelet\s+--/m.test(text)) return 'command-line'
  return undefined
}

function location(o: Origin | undefined): string | undefined {
  if (!o) return undefined
  if (o.kind === 'default') return o.detail
  if (!o.source) return o.detail
  return o.line === undefined ? o.source : `${o.source}:${o.line}`
}

function basename(p: string): string {
  return p.split('/').at(-1) ?? p
}

const KUBELET_SPEC: ComponentSpec = {
  component: 'kubelet',
  kind: KUBELET_KIND,
  apiVersion: KUBELET_API_VERSION,
  fields: Object.keys(KUBELET_SCHEMA),
  configMapKeys: KUBELET_CONFIGMAP_KEYS,
}

// ---------------------------------------------------------------------------------------------------------------

export interface KubeletShowOptions {
  /** Read the files as the tools print them: no pasted-input leniency (a KubeletConfiguration fragment). */
  strict?: boolean
  node?: string
  /** Kubelet version (`1.30`): version-specific defaults and removed flags. */
  version?: string
}

/**
 * Builds the kubelet's effective settings from the given files. Throws UsageError when a file's kind cannot be
 * told, and InputError (file:line) when one cannot be parsed.
 */
export function showKubelet(files: readonly NamedText[], options: KubeletShowOptions = {}): KubeletShowResult {
  if (files.length === 0) throw new UsageError('no input files', 'Pass --from-file FILE (a kubelet config, /configz body, `systemctl cat kubelet` output or kubeadm-flags.env).')
  if (options.version !== undefined && parseMinorVersion(options.version) === undefined) {
    throw new UsageError(`invalid kubelet version ${JSON.stringify(options.version)}`, 'Use a version such as 1.30 or v1.30.2.')
  }
  const version = options.version
  const vopt = version === undefined ? {} : {version}
  const inputs: KubeletShowResult['inputs'] = []
  const issues: ConfigIssue[] = []
  const configs: Array<{name: string; cfg: KubeletConfig}> = []
  let configz: KubeletConfig | undefined
  const units: Array<{name: string; unit: SystemdUnit}> = []
  const envFiles: NamedText[] = []
  const commandLines: Array<{name: string; args: ArgToken[]}> = []
  const k3s: Array<{name: string; args: ArgToken[]}> = []

  for (const input of nodeArtifactFiles(files, issues)) {
    let f = input
    let kind = detectKubeletInput(f.text)
    if (!options.strict && (kind === undefined || (kind === 'kubelet-config' && isMalformedYaml(f.text)))) {
      // A pasted KubeletConfiguration fragment without apiVersion/kind (or a ConfigMap cut off before kind:).
      const pasted = readPastedComponentConfig(f.text, KUBELET_SPEC)
      if (pasted) {
        f = {name: f.name, text: pasted.text}
        kind = detectKubeletInput(f.text)
        for (const w of pasted.warnings) issues.push({severity: 'warning', code: 'pasted-input', source: f.name, line: w.line, message: w.message})
      }
    }
    switch (kind) {
      case 'kubelet-config':
        configs.push({name: f.name, cfg: parsingFile(f.name, () => parseKubeletConfig(f.text, {source: f.name, ...vopt}))})
        inputs.push({file: f.name, kind})
        break
      case 'configz':
        if (configz) throw new UsageError(`more than one /configz body given (${configz.source ?? ''} and ${f.name})`)
        configz = parsingFile(f.name, () => parseKubeletConfigz(f.text, {source: f.name, ...vopt}))
        inputs.push({file: f.name, kind, detail: 'running configuration (merged and defaulted by the kubelet)'})
        break
      case 'systemd-unit': {
        const unit = parsingFile(f.name, () => parseSystemctlCat(f.text, {source: f.name}))
        units.push({name: f.name, unit})
        const dropIns = unit.files.filter((u) => u.kind === 'drop-in').length
        inputs.push({file: f.name, kind, detail: `${unit.name ?? 'unit'}${dropIns > 0 ? ` + ${dropIns} drop-in${dropIns === 1 ? '' : 's'}` : ''}`})
        break
      }
      case 'env-file':
        envFiles.push(f)
        inputs.push({file: f.name, kind})
        break
      case 'k3s-config':
        k3s.push({name: f.name, args: parsingFile(f.name, () => parseK3sKubeletArgs(f.text, {source: f.name}))})
        inputs.push({file: f.name, kind, detail: 'kubelet-arg entries'})
        break
      case 'command-line': {
        const cl = parsingFile(f.name, () => parseKubeletCommandLine(f.text, {source: f.name}))
        commandLines.push({name: f.name, args: cl.args})
        inputs.push({file: f.name, kind, detail: `line ${cl.line}`})
        break
      }
      default:
        throw new UsageError(
          `cannot tell what ${f.name} is`,
          'Expected a KubeletConfiguration (YAML/JSON), a /configz body, `systemctl cat kubelet` output, kubeadm-flags.env or /etc/default/kubelet, a k3s config.yaml with kubelet-arg, or a kubelet command line.',
        )
    }
  }
  if (units.length > 1) throw new UsageError(`more than one systemd unit given (${units.map((u) => u.name).join(', ')})`)

  // Command line: a captured command line beats the unit (it is what runs); the unit beats bare env files.
  let args: ArgToken[] | undefined
  const unit = units[0]
  if (commandLines.length > 0) {
    args = commandLines.flatMap((c) => c.args)
    if (unit) issues.push({severity: 'info', code: 'command-line-preferred', message: `the captured command line (${commandLines.map((c) => c.name).join(', ')}) is used; the unit ${unit.name} is shown for reference only`})
  } else if (unit) {
    const matched = matchEnvFiles(unit.unit, envFiles, inputs)
    const r = kubeletArgsFromUnit(unit.unit, matched)
    args = r.args
    issues.push(...r.issues)
  } else if (envFiles.length > 0) {
    const parsed = envFiles.map((e) => parsingFile(e.name, () => parseKubeadmFlagsEnv(e.text, {source: e.name})))
    parsed.forEach((p, i) => {
      issues.push(...p.issues)
      const idx = inputs.findIndex((x) => x.file === envFiles[i]?.name)
      const vars = [p.kubeadmArgs.length > 0 ? 'KUBELET_KUBEADM_ARGS' : '', p.extraArgs.length > 0 ? 'KUBELET_EXTRA_ARGS' : ''].filter((v) => v !== '')
      if (idx !== -1) inputs[idx] = {file: envFiles[i]?.name ?? '', kind: 'env-file', detail: vars.length > 0 ? vars.join(', ') : 'no kubelet arguments'}
    })
    args = kubeletArgsFromEnvFiles(parsed)
    issues.push({severity: 'info', code: 'no-unit', message: "no systemd unit given: the environment files' KUBELET_KUBEADM_ARGS and KUBELET_EXTRA_ARGS are used in kubeadm's order"})
  }
  if (k3s.length > 0) args = [...(args ?? []), ...k3s.flatMap((k) => k.args)]
  const flags: KubeletFlags | undefined = args === undefined ? undefined : parseKubeletArgs(args, vopt)
  if (flags) issues.push(...flags.issues)

  // Which KubeletConfiguration is the --config file, which are drop-ins.
  let base: KubeletConfig | undefined
  const dropIns: KubeletConfig[] = []
  if (configs.length > 0) {
    let baseIdx = 0
    if (flags?.configFile) {
      const cf = flags.configFile
      const exact = configs.findIndex((c) => c.name === cf || basename(c.name) === basename(cf))
      if (exact !== -1) baseIdx = exact
      else if (configs.length > 0) {
        issues.push({severity: 'info', code: 'config-name-differs', message: `the kubelet reads --config=${cf}; assuming ${configs[0]?.name ?? ''} is that file`})
      }
    }
    configs.forEach((c, i) => {
      const idx = inputs.findIndex((x) => x.file === c.name)
      if (i === baseIdx) {
        base = c.cfg
        if (idx !== -1) inputs[idx] = {file: c.name, kind: 'kubelet-config', detail: flags?.configFile ? `--config=${flags.configFile}` : 'main configuration file'}
      } else {
        const dropIn = parseKubeletConfig(files.find((f) => f.name === c.name)?.text ?? '', {source: c.name, originKind: 'drop-in', ...vopt})
        dropIns.push(dropIn)
        if (idx !== -1) inputs[idx] = {file: c.name, kind: 'drop-in', detail: flags?.configDir ? `--config-dir=${flags.configDir}` : 'drop-in (assumed in --config-dir)'}
      }
    })
    if (dropIns.length > 0 && flags && flags.configDir === undefined) {
      issues.push({severity: 'warning', code: 'drop-ins-unused', message: `the kubelet has no --config-dir, so ${dropIns.map((d) => d.source).join(', ')} would not be read; merged here anyway`})
    }
  }

  // Intended configuration: defaults → file → drop-ins → flags.
  let intended: KubeletConfig | undefined
  if (base) intended = applyKubeletDefaults(base, version)
  else if (flags && !configz) {
    const empty: KubeletConfig = {format: 'yaml', values: {}, origins: {}, issues: [], defaults: []}
    const noConfig = flags.configFile === undefined
    intended = applyKubeletDefaults(empty, version, {legacyFlagDefaults: noConfig})
    issues.push(
      noConfig
        ? {severity: 'warning', code: 'no-config-file', message: 'the kubelet runs without --config: unless flags set them, flag defaults apply (anonymous auth on, authorization AlwaysAllow, read-only port 10255)'}
        : {severity: 'info', code: 'config-not-provided', message: `the kubelet reads --config=${flags.configFile}, which was not provided; fields it sets are shown as defaults`},
    )
  }
  if (intended && dropIns.length > 0) intended = mergeKubeletConfigs(intended, dropIns)
  if (intended && flags) intended = applyKubeletFlags(intended, flags.flags)
  if (intended) issues.unshift(...intended.issues)
  if (configz) issues.unshift(...configz.issues)

  const effective = configz ?? intended
  if (!effective) throw new UsageError('nothing to show: no kubelet configuration, /configz body or command line among the inputs')
  const result: KubeletShowResult = {
    apiVersion: SETTINGS_API_VERSION,
    kind: 'KubeletSettings',
    inputs,
    basis: configz ? 'configz' : 'files',
    flags: (flags?.flags ?? []).map((f) => {
      const sf: ShowFlag = {flag: f.written, name: f.name, value: f.value, status: f.status}
      const loc = location(f.origin)
      if (loc !== undefined) sf.location = loc
      if (f.via !== undefined) sf.via = f.via
      if (f.configPath !== undefined) sf.overrides = displayPath(f.configPath)
      if (f.note !== undefined) sf.note = f.note
      return sf
    }),
    settings: settingsOf(effective, version),
    drift: configz && intended ? driftBetween(configz, intended) : [],
    issues: dedupe(issues),
  }
  if (options.node !== undefined) result.node = options.node
  if (version !== undefined) result.version = version
  if (flags?.configFile !== undefined) result.configFile = flags.configFile
  if (flags?.configDir !== undefined) result.configDir = flags.configDir
  for (const d of result.drift) {
    result.issues.push({
      severity: 'warning',
      code: 'running-differs',
      message: `${d.path}: the running kubelet has ${d.running} but the files and flags give ${d.intended}${d.intendedLocation ? ` (${d.intendedLocation})` : ''}; restart the kubelet after changing its configuration, or find what overrides it`,
    })
  }
  return result
}

/** Pairs environment files with the unit's EnvironmentFile= entries: by path or name, then by the variables they set. */
function matchEnvFiles(unit: SystemdUnit, envFiles: readonly NamedText[], inputs: KubeletShowResult['inputs']): Array<{path: string; text: string}> {
  const out: Array<{path: string; text: string}> = []
  const taken = new Set<string>()
  for (const f of envFiles) {
    let ref = unit.environmentFiles.find((r) => !taken.has(r.path) && (r.path === f.name || basename(r.path) === basename(f.name)))
    if (!ref) {
      const vars = new Set(parseEnvironmentFile(f.text).vars.map((v) => v.name))
      ref = unit.environmentFiles.find(
        (r) =>
          !taken.has(r.path) &&
          ((vars.has('KUBELET_KUBEADM_ARGS') && basename(r.path) === 'kubeadm-flags.env') ||
            (vars.has('KUBELET_EXTRA_ARGS') && /\/(default|sysconfig)\/kubelet$/.test(r.path))),
      )
    }
    const idx = inputs.findIndex((x) => x.file === f.name)
    if (!ref) {
      if (idx !== -1) inputs[idx] = {file: f.name, kind: 'env-file', detail: 'not referenced by the unit (ignored)'}
      continue
    }
    taken.add(ref.path)
    out.push({path: ref.path, text: f.text})
    if (idx !== -1) inputs[idx] = {file: f.name, kind: 'env-file', detail: `EnvironmentFile=${ref.optional ? '-' : ''}${ref.path}`}
  }
  return out
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>()
  return issues.filter((i) => {
    const k = `${i.severity}|${i.code}|${i.source ?? ''}|${i.line ?? ''}|${i.message}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

function settingOf(cfg: KubeletConfig, path: string, important: boolean): ShowSetting {
  const ptr = pointer(...path.split('.'))
  const value = getAt(cfg.values, ptr)
  const own = cfg.origins[ptr]
  const under = Object.entries(cfg.origins).filter(([k]) => k.startsWith(ptr + '/'))
  // A map assembled from several sources reports its highest-precedence one.
  const rank: Record<Origin['kind'], number> = {default: 0, configz: 1, file: 2, 'drop-in': 3, flag: 4}
  const origin = own ?? under.map(([, o]) => o).sort((a, b) => rank[b.kind] - rank[a.kind])[0]
  // Unset fields without a default hold the Go zero value (readOnlyPort 0 = disabled, protectKernelDefaults false).
  const display = value === undefined ? zeroDisplay(ptr) : value === null ? '<unset>' : formatValue(value)
  const s: ShowSetting = {
    path,
    value: value ?? null,
    display,
    source: origin ? origin.kind : cfg.format === 'configz' ? 'configz' : 'unset',
    important,
  }
  const loc = origin?.kind === 'flag' ? `${origin.detail ?? ''}${origin.source ? ` at ${location({...origin, detail: undefined}) ?? ''}` : ''}` : location(origin)
  if (loc) s.location = loc
  const applied = [...cfg.defaults].reverse().find((d) => d.path === ptr)
  if (origin?.kind === 'default' && applied && applied.reason !== 'omitted') {
    s.written = applied.reason === 'null' ? 'null' : applied.reason === 'normalized' ? formatValue(applied.written) : formatValue(applied.written)
    const at = location(applied.writtenAt)
    if (at) s.written += ` at ${at}`
  }
  return s
}

/** What /configz omits: the Go zero value (omitempty). */
function zeroDisplay(ptr: string): string {
  const spec = kubeletFieldSpec(ptr)
  if (spec?.pointer) return '<unset>'
  const t = spec?.type
  if (t === 'bool') return 'false'
  if (t === 'int32' || t === 'int64' || t === 'uint32' || t === 'float') return '0'
  if (t === 'duration') return '0s'
  if (t === 'string' || t === 'quantity') return '""'
  return '<unset>'
}

function settingsOf(cfg: KubeletConfig, version: string | undefined): ShowSetting[] {
  // /configz lists every field; beyond the highlighted ones, only values that differ from the defaults matter.
  const defaults =
    cfg.format === 'configz' ? applyKubeletDefaults({format: 'yaml', values: {}, origins: {}, issues: [], defaults: []}, version).values : undefined
  const important = new Set<string>(KUBELET_IMPORTANT_SETTINGS)
  const out = KUBELET_IMPORTANT_SETTINGS.map((p) => settingOf(cfg, p, true))
  // Other fields set explicitly (not defaults) are shown after the important ones.
  const others = new Set<string>()
  for (const [ptr, o] of Object.entries(cfg.origins)) {
    if (o.kind === 'default') continue
    const top = ptr.split('/')[1] ?? ''
    const spec = kubeletFieldSpec(pointer(top))
    const t = spec?.type
    const path = typeof t === 'object' && 'struct' in t ? displayPath(ptr).split('[')[0] ?? '' : top
    if (!important.has(path) && ![...important].some((i) => path.startsWith(i + '.'))) others.add(path)
  }
  // Explicit zero values (kubeadm writes many) would only add noise.
  for (const p of [...others].sort()) {
    const v = getAt(cfg.values, pointer(...p.split('.')))
    if (isGoZero(v)) continue
    if (defaults && comparable(v) === comparable(getAt(defaults, pointer(...p.split('.'))))) continue
    out.push(settingOf(cfg, p, false))
  }
  return out
}

function comparable(v: JsonValue | undefined): string {
  if (typeof v === 'string') return normalizeGoDuration(v) ?? v
  if (v === undefined || v === null) return ''
  return JSON.stringify(v, Object.keys(typeof v === 'object' && !Array.isArray(v) ? v : {}).sort())
}

function driftBetween(running: KubeletConfig, intended: KubeletConfig): KubeletShowResult['drift'] {
  const out: KubeletShowResult['drift'] = []
  for (const path of KUBELET_IMPORTANT_SETTINGS) {
    const ptr = pointer(...path.split('.'))
    const r = getAt(running.values, ptr)
    const i = getAt(intended.values, ptr)
    if (i === undefined) continue
    if (comparable(r) === comparable(i)) continue
    if (r === undefined && (i === 0 || i === false || i === '' || (Array.isArray(i) && i.length === 0))) continue
    const d: KubeletShowResult['drift'][number] = {path, running: r === undefined ? zeroDisplay(ptr) : formatValue(r), intended: formatValue(i)}
    const loc = location(intended.origins[ptr])
    if (loc) d.intendedLocation = loc
    out.push(d)
  }
  return out
}

/**
 * Texts read live from a node through the collection plan: a `# node-doctor-absent: why` text (the layout has no
 * such input: k3s has no kubelet unit) is left out with a note; `# node-doctor-file: PATH` sections become files
 * named by their real paths (the kubelet config file the node uses, drop-ins). Other texts pass unchanged.
 */
function nodeArtifactFiles(files: readonly NamedText[], issues: ConfigIssue[]): NamedText[] {
  const out: NamedText[] = []
  for (const f of files) {
    if (f.text.startsWith(ABSENT_HEADER)) {
      issues.push({severity: 'info', code: 'not-on-this-layout', message: `${f.name}: ${f.text.slice(ABSENT_HEADER.length).split('\n')[0]?.trim() ?? ''}`})
    } else if (f.text.startsWith(FILE_HEADER)) out.push(...splitDropIns(f.text).map((d) => ({name: d.name, text: d.text})))
    else out.push(f)
  }
  return out
}
