import type {Check, CheckContext, CheckOutcome} from '../types.js'
import {checkDualBackend} from './backends.js'
import {checkHealthz, checkPodHealth, checkRestoreFailures, checkSyncStuck} from './health.js'
import {checkIpvsDeprecated, checkIpvsFallback, checkLeftovers, checkModeMismatch, checkUserspace} from './mode.js'
import {
  PROXY_DUAL_BACKEND,
  PROXY_HEALTHZ,
  PROXY_IPVS_DEPRECATED,
  PROXY_IPVS_FALLBACK,
  PROXY_LEFTOVERS,
  PROXY_MODE_MISMATCH,
  PROXY_POD_UNHEALTHY,
  PROXY_RESTORE_FAILURES,
  PROXY_SYNC_STUCK,
  PROXY_USERSPACE,
} from './specs.js'
import {checkRunningConfigDrift, PROXY_RUNNING_CONFIG_DRIFT} from './running-config.js'
import {checkVersionAssumed, checkVersionNewer, PROXY_VERSION_ASSUMED, PROXY_VERSION_NEWER} from './version.js'

const check = (spec: Check['spec'], run: (ctx: CheckContext) => CheckOutcome): Check => ({spec, when: {servicesOwner: ['kube-proxy']}, run})

/** The PROXY checks: kube-proxy's configured, running and leftover modes, and its health, per node. */
export const PROXY_MODE_CHECKS: readonly Check[] = [
  check(PROXY_IPVS_FALLBACK, checkIpvsFallback),
  check(PROXY_USERSPACE, checkUserspace),
  check(PROXY_MODE_MISMATCH, checkModeMismatch),
  check(PROXY_IPVS_DEPRECATED, checkIpvsDeprecated),
  check(PROXY_LEFTOVERS, checkLeftovers),
  check(PROXY_POD_UNHEALTHY, checkPodHealth),
  check(PROXY_HEALTHZ, checkHealthz),
  check(PROXY_SYNC_STUCK, checkSyncStuck),
  check(PROXY_RESTORE_FAILURES, checkRestoreFailures),
  check(PROXY_DUAL_BACKEND, checkDualBackend),
  check(PROXY_VERSION_NEWER, checkVersionNewer),
  check(PROXY_VERSION_ASSUMED, checkVersionAssumed),
  check(PROXY_RUNNING_CONFIG_DRIFT, checkRunningConfigDrift),
]
