// The KUBELET checks: one shared view of the node's kubelet configuration (files, flags, /configz, kubeadm's
// ConfigMap), each check judging one aspect of it.
import type {Check, CheckContext, CheckOutcome, CheckSpec} from '../types.js'
import * as rules from './rules.js'
import * as S from './specs.js'

const pairs: Array<[CheckSpec, (ctx: CheckContext) => CheckOutcome]> = [
  [S.KUBELET_NOT_RESTARTED, rules.notRestarted],
  [S.KUBELET_DRIFT_FROM_INTENDED, rules.driftFromIntended],
  [S.KUBELET_SCHEMA, rules.schema],
  [S.KUBELET_VALIDATION, rules.validation],
  [S.KUBELET_ANONYMOUS_AUTH, rules.anonymousAuth],
  [S.KUBELET_AUTHZ_ALWAYS_ALLOW, rules.authzAlwaysAllow],
  [S.KUBELET_READ_ONLY_PORT, rules.readOnlyPort],
  [S.KUBELET_NO_CLIENT_CA, rules.noClientCA],
  [S.KUBELET_CERT_ROTATION, rules.certRotation],
  [S.KUBELET_WEAK_CIPHERS, rules.weakCiphers],
  [S.KUBELET_STREAMING_TIMEOUT, rules.streamingTimeout],
  [S.KUBELET_PROTECT_KERNEL_DEFAULTS, rules.protectKernelDefaults],
  [S.KUBELET_EVENT_QPS, rules.eventQps],
  [S.KUBELET_IPTABLES_UTIL_CHAINS, rules.iptablesUtilChains],
  [S.KUBELET_CGROUP_DRIVER, rules.cgroupDriver],
  [S.KUBELET_CLUSTER_DNS, rules.clusterDns],
  [S.KUBELET_CLUSTER_DOMAIN, rules.clusterDomain],
  [S.KUBELET_STUB_RESOLVER, rules.stubResolver],
  [S.KUBELET_REMOVED_FLAGS, rules.removedFlags],
  [S.KUBELET_DEPRECATED_FLAGS, rules.deprecatedFlags],
  [S.KUBELET_FLAG_OVERRIDES, rules.flagOverrides],
  [S.KUBELET_VERSION_SKEW, rules.versionSkew],
  [S.KUBELET_STATIC_POD_PATH, rules.staticPodPath],
  [S.KUBELET_EVICTION, rules.eviction],
  [S.KUBELET_SWAP, rules.swap],
  [S.KUBELET_NODE_STATUS, rules.nodeStatus],
]

/** Every KUBELET check, in catalog order. */
export const KUBELET_CHECKS: readonly Check[] = pairs.map(([spec, run]) => ({spec, run: (ctx: CheckContext) => rules.locateSubjects(ctx, run(ctx))}))
