// Over 500 lines on purpose: the kubelet's flag tables (about 200 lines) with the code that reads and applies those flags.
// The kubelet's command line: which flags it was given, where each came from (unit file, drop-in, environment
// file, k3s config), which config-file fields they override, and which are removed or deprecated.
// Flag table: kubernetes/kubernetes cmd/kubelet/app/options/options.go (KubeletFlags.AddFlags,
// AddKubeletConfigFlags, container_runtime.go) and component-base logs flags.
import {isMap, isScalar, isSeq, type Node as YamlNode} from 'yaml'
import {ParseError} from '../../errors.js'
import {type ConfigIssue, type JsonObject, type JsonValue, loadYaml, nodeLine, type Origin, parseMinorVersion, pointer, setOwn} from './component-config.js'
import {type KubeletConfig, withKubeletSetting} from './kubelet-config.js'
import {
  type ArgToken,
  type FlagSpec,
  type FlagValueType,
  type ParsedFlag,
  parseGoBool,
  parseGoInt,
  parsePflags,
  splitCsv,
  splitShellWords,
  validateFlagValue,
} from './pflag.js'
import {resolveExecStart, type SystemdUnit} from './systemd-unit.js'
import type {KubeadmFlagsEnv} from './kubeadm-flags.js'

export interface KubeletFlagSpec extends FlagSpec {
  /** JSON Pointer of the KubeletConfiguration field this flag sets (and overrides when --config is used). */
  configPath?: string
  /** Deprecated but accepted (all config-backed flags are; some others too). */
  deprecated?: string
}

const cfg = (name: string, type: FlagValueType, path: string): KubeletFlagSpec => ({
  name,
  type,
  configPath: pointer(...path.split('.')),
  deprecated: "set it in the config file given by --config; the flag overrides the file",
})
const plain = (name: string, type: FlagValueType, extra: Partial<KubeletFlagSpec> = {}): KubeletFlagSpec => ({name, type, ...extra})

/** Flags the kubelet accepts today (Linux). */
export const KUBELET_FLAGS: readonly KubeletFlagSpec[] = [
  // KubeletFlags: not in the config file.
  plain('config', 'string'),
  plain('config-dir', 'string'),
  plain('kubeconfig', 'string'),
  plain('bootstrap-kubeconfig', 'string'),
  plain('hostname-override', 'string'),
  plain('node-ip', 'string'),
  plain('cert-dir', 'string'),
  plain('cloud-provider', 'string'),
  plain('root-dir', 'string'),
  plain('node-labels', 'mapStringString'),
  plain('lock-file', 'string'),
  plain('exit-on-lock-contention', 'bool'),
  plain('image-credential-provider-config', 'string'),
  plain('image-credential-provider-bin-dir', 'string'),
  plain('runtime-cgroups', 'string'),
  plain('minimum-container-ttl-duration', 'duration', {deprecated: 'use --eviction-hard or --eviction-soft instead'}),
  plain('maximum-dead-containers-per-container', 'int', {deprecated: 'use --eviction-hard or --eviction-soft instead'}),
  plain('maximum-dead-containers', 'int', {deprecated: 'use --eviction-hard or --eviction-soft instead'}),
  plain('register-schedulable', 'bool', {deprecated: 'use registerWithTaints instead'}),
  plain('keep-terminated-pod-volumes', 'bool', {deprecated: 'will be removed in a future version'}),
  plain('experimental-mounter-path', 'string', {deprecated: 'will be removed in favour of CSI'}),
  plain('cloud-config', 'string', {deprecated: 'will be removed with the in-tree cloud providers'}),
  plain('experimental-allocatable-ignore-eviction', 'bool', {deprecated: 'will be removed'}),
  // Logging and generic flags (not deprecated).
  {name: 'v', type: 'int', shorthand: 'v', configPath: '/logging/verbosity'},
  plain('vmodule', 'other'),
  {name: 'log-flush-frequency', type: 'duration', configPath: '/logging/flushFrequency'},
  {name: 'logging-format', type: 'string', configPath: '/logging/format'},
  {name: 'log-json-split-stream', type: 'bool', configPath: '/logging/options/json/splitStream'},
  {name: 'log-json-info-buffer-size', type: 'string', configPath: '/logging/options/json/infoBufferSize'},
  {name: 'log-text-split-stream', type: 'bool', configPath: '/logging/options/text/splitStream'},
  {name: 'log-text-info-buffer-size', type: 'string', configPath: '/logging/options/text/infoBufferSize'},
  {name: 'provider-id', type: 'string', configPath: '/providerID'},
  {name: 'help', type: 'bool', shorthand: 'h'},
  {name: 'version', type: 'string', optionalValue: true},
  // Config-backed flags (AddKubeletConfigFlags): all deprecated, all override the config file.
  cfg('enable-server', 'bool', 'enableServer'),
  cfg('fail-swap-on', 'bool', 'failSwapOn'),
  cfg('pod-manifest-path', 'string', 'staticPodPath'),
  cfg('sync-frequency', 'duration', 'syncFrequency'),
  cfg('file-check-frequency', 'duration', 'fileCheckFrequency'),
  cfg('http-check-frequency', 'duration', 'httpCheckFrequency'),
  cfg('manifest-url', 'string', 'staticPodURL'),
  cfg('manifest-url-header', 'colonMultimap', 'staticPodURLHeader'),
  cfg('address', 'string', 'address'),
  cfg('port', 'int', 'port'),
  cfg('read-only-port', 'int', 'readOnlyPort'),
  cfg('container-runtime-endpoint', 'string', 'containerRuntimeEndpoint'),
  cfg('image-service-endpoint', 'string', 'imageServiceEndpoint'),
  cfg('anonymous-auth', 'bool', 'authentication.anonymous.enabled'),
  cfg('authentication-token-webhook', 'bool', 'authentication.webhook.enabled'),
  cfg('authentication-token-webhook-cache-ttl', 'duration', 'authentication.webhook.cacheTTL'),
  cfg('client-ca-file', 'string', 'authentication.x509.clientCAFile'),
  cfg('authorization-mode', 'string', 'authorization.mode'),
  cfg('authorization-webhook-cache-authorized-ttl', 'duration', 'authorization.webhook.cacheAuthorizedTTL'),
  cfg('authorization-webhook-cache-unauthorized-ttl', 'duration', 'authorization.webhook.cacheUnauthorizedTTL'),
  cfg('tls-cert-file', 'string', 'tlsCertFile'),
  cfg('tls-private-key-file', 'string', 'tlsPrivateKeyFile'),
  cfg('rotate-server-certificates', 'bool', 'serverTLSBootstrap'),
  cfg('tls-cipher-suites', 'stringSlice', 'tlsCipherSuites'),
  cfg('tls-min-version', 'string', 'tlsMinVersion'),
  cfg('rotate-certificates', 'bool', 'rotateCertificates'),
  cfg('registry-qps', 'int', 'registryPullQPS'),
  cfg('registry-burst', 'int', 'registryBurst'),
  cfg('event-qps', 'int', 'eventRecordQPS'),
  cfg('event-burst', 'int', 'eventBurst'),
  cfg('enable-debugging-handlers', 'bool', 'enableDebuggingHandlers'),
  cfg('contention-profiling', 'bool', 'enableContentionProfiling'),
  cfg('healthz-port', 'int', 'healthzPort'),
  cfg('healthz-bind-address', 'string', 'healthzBindAddress'),
  cfg('oom-score-adj', 'int', 'oomScoreAdj'),
  cfg('cluster-domain', 'string', 'clusterDomain'),
  cfg('volume-plugin-dir', 'string', 'volumePluginDir'),
  cfg('cluster-dns', 'stringSlice', 'clusterDNS'),
  cfg('streaming-connection-idle-timeout', 'duration', 'streamingConnectionIdleTimeout'),
  cfg('node-status-update-frequency', 'duration', 'nodeStatusUpdateFrequency'),
  cfg('minimum-image-ttl-duration', 'duration', 'imageMinimumGCAge'),
  cfg('image-gc-high-threshold', 'int', 'imageGCHighThresholdPercent'),
  cfg('image-gc-low-threshold', 'int', 'imageGCLowThresholdPercent'),
  cfg('volume-stats-agg-period', 'duration', 'volumeStatsAggPeriod'),
  cfg('feature-gates', 'mapStringBool', 'featureGates'),
  cfg('kubelet-cgroups', 'string', 'kubeletCgroups'),
  cfg('system-cgroups', 'string', 'systemCgroups'),
  cfg('cgroups-per-qos', 'bool', 'cgroupsPerQOS'),
  cfg('cgroup-driver', 'string', 'cgroupDriver'),
  cfg('cgroup-root', 'string', 'cgroupRoot'),
  cfg('cpu-manager-policy', 'string', 'cpuManagerPolicy'),
  cfg('cpu-manager-policy-options', 'mapStringString', 'cpuManagerPolicyOptions'),
  cfg('cpu-manager-reconcile-period', 'duration', 'cpuManagerReconcilePeriod'),
  cfg('qos-reserved', 'mapStringString', 'qosReserved'),
  cfg('topology-manager-policy', 'string', 'topologyManagerPolicy'),
  cfg('topology-manager-scope', 'string', 'topologyManagerScope'),
  cfg('topology-manager-policy-options', 'mapStringString', 'topologyManagerPolicyOptions'),
  cfg('runtime-request-timeout', 'duration', 'runtimeRequestTimeout'),
  cfg('hairpin-mode', 'string', 'hairpinMode'),
  cfg('max-pods', 'int', 'maxPods'),
  cfg('pod-cidr', 'string', 'podCIDR'),
  cfg('pod-max-pids', 'int', 'podPidsLimit'),
  cfg('resolv-conf', 'string', 'resolvConf'),
  cfg('runonce', 'bool', 'runOnce'),
  cfg('cpu-cfs-quota', 'bool', 'cpuCFSQuota'),
  cfg('cpu-cfs-quota-period', 'duration', 'cpuCFSQuotaPeriod'),
  cfg('enable-controller-attach-detach', 'bool', 'enableControllerAttachDetach'),
  cfg('make-iptables-util-chains', 'bool', 'makeIPTablesUtilChains'),
  {...cfg('iptables-masquerade-bit', 'int', 'iptablesMasqueradeBit'), deprecated: 'has no effect (kube-proxy owns KUBE-MARK-MASQ); will be removed'},
  {...cfg('iptables-drop-bit', 'int', 'iptablesDropBit'), deprecated: 'has no effect (the kubelet no longer creates KUBE-MARK-DROP); will be removed'},
  cfg('container-log-max-size', 'string', 'containerLogMaxSize'),
  cfg('container-log-max-files', 'int', 'containerLogMaxFiles'),
  cfg('allowed-unsafe-sysctls', 'stringSlice', 'allowedUnsafeSysctls'),
  cfg('node-status-max-images', 'int', 'nodeStatusMaxImages'),
  cfg('kernel-memcg-notification', 'bool', 'kernelMemcgNotification'),
  cfg('local-storage-capacity-isolation', 'bool', 'localStorageCapacityIsolation'),
  cfg('max-open-files', 'int', 'maxOpenFiles'),
  cfg('kube-api-content-type', 'string', 'contentType'),
  cfg('kube-api-qps', 'int', 'kubeAPIQPS'),
  cfg('kube-api-burst', 'int', 'kubeAPIBurst'),
  cfg('serialize-image-pulls', 'bool', 'serializeImagePulls'),
  cfg('eviction-hard', 'langleMap', 'evictionHard'),
  cfg('eviction-soft', 'langleMap', 'evictionSoft'),
  cfg('eviction-soft-grace-period', 'mapStringString', 'evictionSoftGracePeriod'),
  cfg('eviction-pressure-transition-period', 'duration', 'evictionPressureTransitionPeriod'),
  cfg('eviction-max-pod-grace-period', 'int', 'evictionMaxPodGracePeriod'),
  cfg('eviction-minimum-reclaim', 'mapStringString', 'evictionMinimumReclaim'),
  cfg('pods-per-core', 'int', 'podsPerCore'),
  cfg('protect-kernel-defaults', 'bool', 'protectKernelDefaults'),
  cfg('reserved-cpus', 'string', 'reservedSystemCPUs'),
  cfg('system-reserved', 'mapStringString', 'systemReserved'),
  cfg('kube-reserved', 'mapStringString', 'kubeReserved'),
  cfg('enforce-node-allocatable', 'stringSlice', 'enforceNodeAllocatable'),
  cfg('system-reserved-cgroup', 'string', 'systemReservedCgroup'),
  cfg('kube-reserved-cgroup', 'string', 'kubeReservedCgroup'),
  cfg('memory-manager-policy', 'string', 'memoryManagerPolicy'),
  {name: 'reserved-memory', type: 'other', configPath: '/reservedMemory', deprecated: 'set it in the config file given by --config; the flag overrides the file'},
  cfg('register-node', 'bool', 'registerNode'),
  cfg('register-with-taints', 'taints', 'registerWithTaints'),
  cfg('seccomp-default', 'bool', 'seccompDefault'),
]

/** A kubelet flag that was removed: the kubelet from `removedIn` on exits with "unknown flag". */
export interface RemovedKubeletFlag {
  name: string
  type: FlagValueType
  /** Minor version that no longer accepts it. */
  removedIn: number
  /** The version is from changelogs of the time but not pinned to a tag. */
  approximate?: boolean
  replacement: string
  ref: string
}

const dockershim = (name: string, type: FlagValueType, replacement: string): RemovedKubeletFlag => ({
  name,
  type,
  removedIn: 24,
  replacement,
  ref: 'kubernetes/kubernetes#106907 (dockershim removal)',
})
const klog = (name: string, type: FlagValueType): RemovedKubeletFlag => ({
  name,
  type,
  removedIn: 26,
  replacement: 'only -v and --vmodule remain; redirect stderr (journald) or use logging settings in the config file',
  ref: 'kubernetes/kubernetes#112120 (KEP-2845 klog flags removal)',
})

/** Removed kubelet flags by version (node-state.md E.9; release notes of the PRs cited). Not exhaustive. */
export const REMOVED_KUBELET_FLAGS: readonly RemovedKubeletFlag[] = [
  dockershim('network-plugin', 'string', 'none: CNI is configured in the container runtime (containerd/CRI-O)'),
  dockershim('cni-bin-dir', 'string', 'the runtime\'s CNI bin_dir (containerd: plugins."io.containerd.grpc.v1.cri".cni.bin_dir)'),
  dockershim('cni-conf-dir', 'string', 'the runtime\'s CNI conf_dir (containerd: ...cri.cni.conf_dir)'),
  dockershim('cni-cache-dir', 'string', 'none (the runtime manages the CNI cache)'),
  dockershim('network-plugin-mtu', 'int', 'set the MTU in the CNI configuration'),
  dockershim('docker-endpoint', 'string', '--container-runtime-endpoint (cri-dockerd if Docker is still needed)'),
  dockershim('image-pull-progress-deadline', 'duration', "the runtime's own pull timeout"),
  dockershim('experimental-dockershim-root-directory', 'string', 'none'),
  {name: 'dynamic-config-dir', type: 'string', removedIn: 24, approximate: true, replacement: 'none (Dynamic Kubelet Configuration was removed)', ref: 'KEP-281 removal'},
  klog('add-dir-header', 'bool'),
  klog('alsologtostderr', 'bool'),
  klog('log-backtrace-at', 'string'),
  klog('log-dir', 'string'),
  klog('log-file', 'string'),
  klog('log-file-max-size', 'int'),
  klog('logtostderr', 'bool'),
  klog('one-output', 'bool'),
  klog('skip-headers', 'bool'),
  klog('skip-log-headers', 'bool'),
  klog('stderrthreshold', 'string'),
  {
    name: 'container-runtime',
    type: 'string',
    removedIn: 27,
    replacement: '--container-runtime-endpoint or containerRuntimeEndpoint in the config file (only remote runtimes remain)',
    ref: 'kubernetes/kubernetes#114017',
  },
  {
    name: 'pod-infra-container-image',
    type: 'string',
    removedIn: 35,
    replacement: 'the runtime\'s sandbox image (containerd sandbox_image / [plugins."io.containerd.cri.v1.images".pinned_images] sandbox, CRI-O pause_image)',
    ref: 'kubernetes/kubernetes#133779',
  },
  {name: 'cadvisor-port', type: 'int', removedIn: 12, approximate: true, replacement: 'none (use /metrics/cadvisor on the kubelet port)', ref: 'kubelet changelog'},
  {name: 'allow-privileged', type: 'bool', removedIn: 15, approximate: true, replacement: 'PodSecurity admission', ref: 'kubelet changelog'},
]

const FLAG_INDEX = new Map(KUBELET_FLAGS.map((f) => [f.name, f]))
const REMOVED_INDEX = new Map(REMOVED_KUBELET_FLAGS.map((f) => [f.name, f]))

/** The spec of a current kubelet flag (name without dashes, underscores allowed). */
export function lookupKubeletFlag(name: string): KubeletFlagSpec | undefined {
  return FLAG_INDEX.get(name.replaceAll('_', '-'))
}

export function lookupRemovedKubeletFlag(name: string): RemovedKubeletFlag | undefined {
  return REMOVED_INDEX.get(name.replaceAll('_', '-'))
}

export type KubeletFlagStatus = 'ok' | 'deprecated' | 'removed' | 'unknown'

export interface KubeletFlag extends ParsedFlag {
  status: KubeletFlagStatus
  /** The config-file field it overrides. */
  configPath?: string
  /** Why the status is what it is. */
  note?: string
}

/**
 * The facts of a removed flag found in the kubelet's arguments, kept apart from the message so that a reader
 * (KUBELET-019's hazard story) composes its own sentence from them instead of re-parsing the message.
 */
export interface FlagRemoval {
  /** The flag as written (`--network-plugin=cni`). */
  written: string
  /** Its name without dashes (`network-plugin`). */
  flag: string
  /** The minor version that no longer accepts it (24 for 1.24). */
  removedIn: number
  /** `removedIn` is from changelogs of the time, not pinned to a tag. */
  approximate: boolean
  replacement: string
  /** Where the removal is recorded (a PR, a KEP). */
  ref: string
  /** The node's kubelet minor when known: decides whether the kubelet rejects the flag now. */
  kubeletMinor?: number
}

/** A problem with the kubelet's arguments; a removed flag carries its facts in `removal`. */
export interface KubeletFlagIssue extends ConfigIssue {
  removal?: FlagRemoval
}

/** `1.24` or `about 1.24`. */
export function removedInText(r: Pick<FlagRemoval, 'removedIn' | 'approximate'>): string {
  return `${r.approximate ? 'about ' : ''}1.${r.removedIn}`
}

/** Whether the kubelet of `r.kubeletMinor` rejects the flag now (undefined: its version is unknown). */
export function removalIsFatal(r: FlagRemoval): boolean | undefined {
  return r.kubeletMinor === undefined ? undefined : r.kubeletMinor >= r.removedIn
}

/**
 * The message of a removed flag, composed from its facts. `consequence` replaces the default account of what a
 * kubelet that rejects it does (`this kubelet (1.30) exits with "unknown flag: --x"`) when the caller knows more.
 */
export function removedFlagMessage(r: FlagRemoval, consequence?: string): string {
  const when = removedInText(r)
  const use = `Use ${r.replacement} (${r.ref})`
  const fatal = removalIsFatal(r)
  if (fatal === false) return `${r.written}: still accepted by 1.${r.kubeletMinor} but removed in ${when}; remove it before upgrading. ${use}`
  const exits = fatal ? `this kubelet (1.${r.kubeletMinor}) exits with "unknown flag: --${r.flag}"` : `a kubelet at ${when} or newer exits with "unknown flag: --${r.flag}"`
  return `${r.written}: removed in ${when}; ${consequence ?? exits}. ${use}`
}

export interface KubeletFlags {
  flags: KubeletFlag[]
  issues: KubeletFlagIssue[]
  /** `--config` (last occurrence wins). */
  configFile?: string
  /** `--config-dir`. */
  configDir?: string
}

function where(o: Origin): {source?: string; line?: number} {
  return {...(o.source === undefined ? {} : {source: o.source}), ...(o.line === undefined ? {} : {line: o.line})}
}

/**
 * Classifies the kubelet's arguments. `version` (e.g. `1.29`) decides whether a removed flag is fatal;
 * without it, removed flags are reported with the version that removed them.
 */
export function parseKubeletArgs(tokens: readonly ArgToken[], options: {version?: string} = {}): KubeletFlags {
  const minor = parseMinorVersion(options.version)
  const lookup = (name: string): FlagSpec | undefined => {
    const spec = lookupKubeletFlag(name)
    if (spec) return spec
    const removed = lookupRemovedKubeletFlag(name)
    return removed ? {name: removed.name, type: removed.type} : undefined
  }
  const parsed = parsePflags(tokens, lookup, {v: 'v', h: 'help'})
  const issues: KubeletFlagIssue[] = [...parsed.issues]
  const flags: KubeletFlag[] = []
  for (const f of parsed.flags) {
    const spec = lookupKubeletFlag(f.name)
    const removed = lookupRemovedKubeletFlag(f.name)
    const kf: KubeletFlag = {...f, status: 'ok'}
    if (spec) {
      if (spec.configPath) kf.configPath = spec.configPath
      if (spec.deprecated) {
        kf.status = 'deprecated'
        kf.note = spec.deprecated
      }
      const bad = validateFlagValue(spec.type, f.value)
      if (bad) {
        issues.push({severity: 'error', code: 'invalid-flag-value', ...where(f.origin), message: `invalid argument for ${f.written}: ${bad}; the kubelet exits`})
      }
    } else if (removed) {
      const removal: FlagRemoval = {
        written: f.written,
        flag: removed.name,
        removedIn: removed.removedIn,
        approximate: removed.approximate === true,
        replacement: removed.replacement,
        ref: removed.ref,
        ...(minor === undefined ? {} : {kubeletMinor: minor}),
      }
      kf.status = 'removed'
      kf.note = `removed in ${removedInText(removal)}; use ${removed.replacement}`
      issues.push({severity: removalIsFatal(removal) === false ? 'warning' : 'error', code: 'removed-flag', ...where(f.origin), message: removedFlagMessage(removal), removal})
    } else {
      kf.status = 'unknown'
      kf.note = 'not a kubelet flag node-doctor knows'
      issues.push({
        severity: 'warning',
        code: 'unknown-flag',
        ...where(f.origin),
        message: `${f.written}: not a kubelet flag node-doctor knows; a kubelet that does not know it exits with "unknown flag: --${f.name}"`,
      })
    }
    flags.push(kf)
  }
  for (const p of parsed.positional) {
    issues.push({
      severity: 'error',
      code: 'positional-argument',
      ...where(p.origin),
      message: `${JSON.stringify(p.text)} is not a flag: the kubelet exits with "unknown command" (booleans need --flag=false, not --flag false)`,
    })
  }
  const out: KubeletFlags = {flags, issues}
  const config = [...flags].reverse().find((f) => f.name === 'config')
  const configDir = [...flags].reverse().find((f) => f.name === 'config-dir')
  if (config) out.configFile = config.value
  if (configDir) out.configDir = configDir.value
  return out
}

/** The kubelet's arguments from `systemctl cat kubelet` plus the environment files it names. */
export function kubeletArgsFromUnit(unit: SystemdUnit, envFiles: ReadonlyArray<{path: string; text: string}>): {executable?: string; args: ArgToken[]; issues: ConfigIssue[]} {
  const resolved = resolveExecStart(unit, envFiles)
  const args = resolved.args.map((w) => {
    const t: ArgToken = {text: w.text, origin: w.origin}
    if (w.via !== undefined) t.via = w.via
    return t
  })
  const out: {executable?: string; args: ArgToken[]; issues: ConfigIssue[]} = {args, issues: [...unit.issues, ...resolved.issues]}
  if (resolved.executable !== undefined) out.executable = resolved.executable
  return out
}

/** Without the unit: the arguments kubeadm's 10-kubeadm.conf would pass from these files, in its order. */
export function kubeletArgsFromEnvFiles(files: readonly KubeadmFlagsEnv[]): ArgToken[] {
  return [...files.flatMap((f) => f.kubeadmArgs), ...files.flatMap((f) => f.extraArgs)]
}

/**
 * Finds a kubelet command line in free text: `ps -o args` output, /proc/PID/cmdline with NULs turned into
 * spaces, or a k3s/RKE2 log line (`msg="Running kubelet --address=0.0.0.0 ..."`). Throws ParseError when none.
 */
export function parseKubeletCommandLine(text: string, options: {source?: string} = {}): {executable: string; args: ArgToken[]; line: number} {
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const k3s = /Running kubelet (.*?)"?\s*$/.exec(line)
    let cmd: string | undefined
    if (k3s) cmd = 'kubelet ' + (k3s[1] ?? '').replaceAll('\\"', '"')
    else {
      const m = /(?:^|\s)((?:\/\S*\/)?kubelet)\s+(--\S.*)$/.exec(line)
      if (m) cmd = `${m[1]} ${m[2]}`
    }
    if (cmd === undefined) continue
    const words = splitShellWords(cmd)
    const origin: Origin = {kind: 'file', line: i + 1, ...(options.source === undefined ? {} : {source: options.source})}
    return {executable: words[0] ?? 'kubelet', args: words.slice(1).map((w) => ({text: w, origin})), line: i + 1}
  }
  throw new ParseError('no kubelet command line found (expected `ps -o args -C kubelet` output or a "Running kubelet" log line)', 1)
}

/**
 * k3s/RKE2 config.yaml (`/etc/rancher/k3s/config.yaml`): `kubelet-arg` entries (`max-pods=250`) become kubelet
 * flags, each with its line. Throws ParseError when the YAML is malformed or has no kubelet-arg.
 */
export function parseK3sKubeletArgs(text: string, options: {source?: string} = {}): ArgToken[] {
  const loaded = loadYaml(text)
  const root = loaded?.doc.contents
  if (!loaded || !isMap(root)) throw new ParseError('expected a k3s config.yaml mapping with kubelet-arg', 1)
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'kubelet-arg')
  if (!pair) throw new ParseError('no kubelet-arg key in this k3s config', 1)
  const items: YamlNode[] = isSeq(pair.value) ? (pair.value.items as YamlNode[]) : [pair.value as YamlNode]
  const out: ArgToken[] = []
  for (const item of items) {
    if (!isScalar(item)) continue
    const line = nodeLine(item, loaded.lines)
    const origin: Origin = {kind: 'file', ...(options.source === undefined ? {} : {source: options.source}), ...(line === undefined ? {} : {line})}
    const s = String(item.value)
    out.push({text: s.startsWith('-') ? s : `--${s}`, origin})
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Applying flags to the configuration

/**
 * Applies config-backed flags over `config`, as kubeletConfigFlagPrecedence does after the file and drop-ins
 * are loaded: each flag replaces the field (maps given by flag replace the whole map on first use, except
 * --feature-gates, which keeps gates the file set and the flags did not; repeated list flags append).
 * Values are used literally (a flag of `0s` is not "the default"). Invalid values are skipped (reported by
 * parseKubeletArgs).
 */
export function applyKubeletFlags(config: KubeletConfig, flags: readonly KubeletFlag[]): KubeletConfig {
  let out = config
  const fresh = new Map<string, JsonValue>()
  const originalGates = config.values['featureGates']
  for (const f of flags) {
    const spec = lookupKubeletFlag(f.name)
    if (!spec?.configPath || validateFlagValue(spec.type, f.value)) continue
    const origin: Origin = {kind: 'flag', ...where(f.origin), detail: f.via ? `${f.written} via ${f.via}` : f.written}
    const prev = fresh.get(spec.configPath)
    const value = convertFlagValue(spec.type, f.value, prev)
    if (value === undefined) continue
    fresh.set(spec.configPath, value)
    let finalValue = value
    if (spec.name === 'feature-gates' && originalGates && typeof originalGates === 'object' && !Array.isArray(originalGates)) {
      finalValue = {...(originalGates as JsonObject), ...(value as JsonObject)}
    }
    out = withKubeletSetting(out, spec.configPath, finalValue, origin)
  }
  return out
}

function convertFlagValue(type: FlagValueType, raw: string, prev: JsonValue | undefined): JsonValue | undefined {
  const prevObj = prev && typeof prev === 'object' && !Array.isArray(prev) ? (prev as JsonObject) : undefined
  const prevList = Array.isArray(prev) ? prev : undefined
  switch (type) {
    case 'bool':
      return parseGoBool(raw) ?? null
    case 'int':
      return parseGoInt(raw) ?? null
    case 'float':
      return Number(raw)
    case 'duration':
    case 'string':
      return raw
    case 'stringSlice':
      return [...(prevList ?? []), ...splitCsv(raw)]
    case 'mapStringString': {
      const m: JsonObject = {...(prevObj ?? {})}
      for (const part of raw.split(',')) {
        if (part.trim() === '') continue
        const eq = part.indexOf('=')
        if (eq === -1) continue
        setOwn(m, part.slice(0, eq).trim(), part.slice(eq + 1).trim())
      }
      return m
    }
    case 'mapStringBool': {
      const m: JsonObject = {...(prevObj ?? {})}
      for (const part of raw.split(',')) {
        if (part.trim() === '') continue
        const eq = part.indexOf('=')
        if (eq === -1) continue
        const b = parseGoBool(part.slice(eq + 1).trim())
        if (b !== undefined) setOwn(m, part.slice(0, eq).trim(), b)
      }
      return m
    }
    case 'langleMap': {
      const m: JsonObject = {...(prevObj ?? {})}
      for (const part of raw.split(',')) {
        const lt = part.indexOf('<')
        if (lt === -1) continue
        setOwn(m, part.slice(0, lt).trim(), part.slice(lt + 1).trim())
      }
      return m
    }
    case 'colonMultimap': {
      const m: JsonObject = {...(prevObj ?? {})}
      for (const part of raw.split(',')) {
        const colon = part.indexOf(':')
        if (colon === -1) continue
        const k = part.slice(0, colon).trim()
        const existing = Object.hasOwn(m, k) ? m[k] : undefined
        setOwn(m, k, [...(Array.isArray(existing) ? existing : []), part.slice(colon + 1)])
      }
      return m
    }
    case 'taints': {
      const list: JsonValue[] = [...(prevList ?? [])]
      for (const part of raw.split(',')) {
        const m = /^([^=:]+)(?:=([^:]*))?:(.+)$/.exec(part.trim())
        if (!m) continue
        const t: JsonObject = {key: m[1] ?? '', effect: m[3] ?? ''}
        if (m[2] !== undefined) t['value'] = m[2]
        list.push(t)
      }
      return list
    }
    case 'other':
      return undefined
  }
}
