// The kubelet's defaults: pkg/kubelet/apis/config/v1beta1/defaults.go, EvictionHard from cmd/kubelet/app/server.go
// (loadConfigFile), "Default:" comments of types.go per release, and the legacy flag defaults.
import {type DefaultSpec, isGoZero, pointer} from '../component-config.js'

const DEFAULTS_GO = 'pkg/kubelet/apis/config/v1beta1/defaults.go'
const d = (path: string, value: DefaultSpec['value'], extra: Partial<DefaultSpec> = {}): DefaultSpec => ({
  path: pointer(...path.split('.')),
  value,
  source: DEFAULTS_GO,
  ...extra,
})
const z = {zeroIsUnset: true}

/** Upstream v1beta1 defaults, in upstream order (nodeStatusReportFrequency reads nodeStatusUpdateFrequency). */
export const KUBELET_DEFAULTS: readonly DefaultSpec[] = [
  d('enableServer', true, {since: 19}),
  d('syncFrequency', '1m0s', z),
  d('fileCheckFrequency', '20s', z),
  d('httpCheckFrequency', '20s', z),
  d('address', '0.0.0.0', z),
  d('port', 10250, z),
  d('authentication.anonymous.enabled', false),
  d('authentication.webhook.enabled', true),
  d('authentication.webhook.cacheTTL', '2m0s', z),
  d('authorization.mode', 'Webhook', z),
  d('authorization.webhook.cacheAuthorizedTTL', '5m0s', z),
  d('authorization.webhook.cacheUnauthorizedTTL', '30s', z),
  d('registryPullQPS', 5),
  d('registryBurst', 10, z),
  d('eventRecordQPS', 5, {until: 27}),
  d('eventRecordQPS', 50, {since: 27}),
  d('eventBurst', 10, {...z, until: 27}),
  d('eventBurst', 100, {...z, since: 27}),
  d('enableDebuggingHandlers', true),
  d('healthzPort', 10248),
  d('healthzBindAddress', '127.0.0.1', z),
  d('oomScoreAdj', -999),
  d('streamingConnectionIdleTimeout', '4h0m0s', z),
  // Backward compatibility: follows nodeStatusUpdateFrequency when that one is set explicitly.
  d('nodeStatusReportFrequency', (v) => (isGoZero(v['nodeStatusUpdateFrequency']) ? '5m0s' : (v['nodeStatusUpdateFrequency'] ?? '5m0s')), {
    ...z,
    since: 13,
  }),
  d('nodeStatusUpdateFrequency', '10s', z),
  d('nodeLeaseDurationSeconds', 40, z),
  d('imageMinimumGCAge', '2m0s', z),
  d('imageGCHighThresholdPercent', 85),
  d('imageGCLowThresholdPercent', 80),
  d('volumeStatsAggPeriod', '1m0s', z),
  d('cgroupsPerQOS', true),
  d('cgroupDriver', 'cgroupfs', z),
  d('cpuManagerPolicy', 'none', z),
  d('cpuManagerReconcilePeriod', '10s', z),
  d('memoryManagerPolicy', 'None', {...z, since: 21}),
  d('topologyManagerPolicy', 'none', z),
  d('topologyManagerScope', 'container', {...z, since: 20}),
  d('runtimeRequestTimeout', '2m0s', z),
  d('hairpinMode', 'promiscuous-bridge', z),
  d('maxPods', 110, z),
  d('podPidsLimit', -1),
  d('resolvConf', '/etc/resolv.conf'),
  d('cpuCFSQuota', true),
  d('cpuCFSQuotaPeriod', '100ms'),
  d('nodeStatusMaxImages', 50, {since: 19}),
  d('maxOpenFiles', 1000000, z),
  d('contentType', 'application/vnd.kubernetes.protobuf', z),
  d('kubeAPIQPS', 5, {until: 27}),
  d('kubeAPIQPS', 50, {since: 27}),
  d('kubeAPIBurst', 10, {...z, until: 27}),
  d('kubeAPIBurst', 100, {...z, since: 27}),
  d('serializeImagePulls', true, {until: 27}),
  // From 1.27: false when maxParallelImagePulls > 1 is set, so users need not set both.
  d('serializeImagePulls', (v) => {
    const n = v['maxParallelImagePulls']
    return typeof n === 'number' && n >= 2 ? false : true
  }, {since: 27}),
  d('evictionPressureTransitionPeriod', '5m0s', z),
  d('mergeDefaultEvictionSettings', false, {since: 33}),
  d('enableControllerAttachDetach', true),
  d('makeIPTablesUtilChains', true),
  d('iptablesMasqueradeBit', 14),
  d('iptablesDropBit', 15),
  d('failSwapOn', true),
  d('containerLogMaxSize', '10Mi', z),
  d('containerLogMaxFiles', 5),
  d('containerLogMaxWorkers', 1, {since: 30}),
  d('containerLogMonitorInterval', '10s', {since: 30}),
  d('configMapAndSecretChangeDetectionStrategy', 'Watch', z),
  // Only a nil list is defaulted: an explicit `enforceNodeAllocatable: []` stays empty.
  d('enforceNodeAllocatable', ['pods']),
  d('volumePluginDir', '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/', z),
  d('enableSystemLogHandler', true, {since: 19}),
  d('enableProfilingHandler', true, {since: 21}),
  d('enableDebugFlagsHandler', true, {since: 21}),
  d('seccompDefault', false, {since: 22}),
  d('failCgroupV1', false, {since: 31, until: 35}),
  d('failCgroupV1', true, {since: 35}),
  d('memoryThrottlingFactor', 0.8, {since: 22, until: 27}),
  d('memoryThrottlingFactor', 0.9, {since: 27, until: 36}),
  d('registerNode', true, {since: 23}),
  d('localStorageCapacityIsolation', true, {since: 25}),
  d('containerRuntimeEndpoint', 'unix:///run/containerd/containerd.sock', {...z, since: 27}),
  d('podLogsDir', '/var/log/pods', {...z, since: 30}),
]

const EVICTION_DEFAULT_SOURCE = 'cmd/kubelet/app/server.go (loadConfigFile: eviction.DefaultEvictionHard, Linux)'

/**
 * Every default for a kubelet version (minor, or undefined for the newest), including evictionHard, which is
 * filled only when the map is nil: setting some thresholds drops the others (unless mergeDefaultEvictionSettings).
 */
export function kubeletDefaultSpecs(version: number | undefined): DefaultSpec[] {
  return [...KUBELET_DEFAULTS, {path: '/evictionHard', value: defaultEvictionHardFor(version), source: EVICTION_DEFAULT_SOURCE}]
}

/** The kubelet's built-in hard eviction thresholds on Linux; imagefs.inodesFree was added in 1.30 (PR #121834). */
export function defaultEvictionHardFor(version: number | undefined): Record<string, string> {
  const m: Record<string, string> = {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
    'imagefs.available': '15%',
  }
  if (version === undefined || version >= 30) m['imagefs.inodesFree'] = '5%'
  return m
}

/**
 * What a kubelet started without --config uses for the fields whose flag default differs from the v1beta1
 * default (cmd/kubelet/app/options/options.go applyLegacyDefaults). Applied on top of KUBELET_DEFAULTS.
 */
export const KUBELET_LEGACY_FLAG_DEFAULTS: readonly DefaultSpec[] = [
  {path: '/authentication/anonymous/enabled', value: true, source: 'cmd/kubelet/app/options/options.go (applyLegacyDefaults: --anonymous-auth)'},
  {path: '/authentication/webhook/enabled', value: false, source: 'cmd/kubelet/app/options/options.go (applyLegacyDefaults: --authentication-token-webhook)'},
  {path: '/authorization/mode', value: 'AlwaysAllow', source: 'cmd/kubelet/app/options/options.go (applyLegacyDefaults: --authorization-mode)'},
  {path: '/readOnlyPort', value: 10255, source: 'cmd/kubelet/app/options/options.go (applyLegacyDefaults: --read-only-port)'},
]
