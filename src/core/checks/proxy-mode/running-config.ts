// PROXY-013: the kube-proxy ConfigMap (the intended configuration, with the pod's flags) against the configuration
// the running kube-proxy serves at /configz. kube-proxy reads its configuration only when it starts, so a field
// that differs was changed after this kube-proxy started and applies only at its next restart.
import {getAt, type JsonValue} from '../../parse/component-config.js'
import {parseGoDuration} from '../../parse/go-duration.js'
import {applyKubeProxyDefaults} from '../../parse/kube-proxy-config.js'
import type {CheckContext, CheckOutcome, CheckSpec} from '../types.js'
import {factsOf} from '../types.js'

export const PROXY_RUNNING_CONFIG_DRIFT: CheckSpec = {
  id: 'PROXY-013',
  area: 'proxy-mode',
  severity: 'warning',
  title: 'kube-proxy runs a configuration different from its ConfigMap (changed after it started)',
  looksAt:
    "The kube-proxy ConfigMap (kube-system/kube-proxy or kube-proxy-config, combined with the pod's flags as kube-proxy " +
    'does) against the configuration the running kube-proxy serves at `curl 127.0.0.1:10249/configz`, both with ' +
    "kube-proxy's defaults applied. Only fields present on both sides are compared; fields kube-proxy fills per node " +
    '(hostnameOverride, bindAddress, healthz/metrics addresses), logging (also set by -v), the mode (PROXY-003) and fields ' +
    'the ConfigMap leaves unset ("", 0, 0s, null: kube-proxy may fill them in ways node-doctor does not model) are not.',
  why:
    'kube-proxy does not reload its configuration: an edit to the ConfigMap reaches a node only when its kube-proxy ' +
    'restarts. Until then the node runs the old settings (cluster CIDR, masquerade bit, nodePortAddresses, conntrack ' +
    'limits, sync periods...), nodes restarted at different times run different settings, and the next restart ' +
    '(a node reboot, an eviction) changes the node\'s Service behaviour without anyone touching it.',
  remedy:
    'Decide which side is wanted. To apply the ConfigMap, restart kube-proxy on the node: `kubectl node-doctor fix kube-proxy NODE` ' +
    "(or `kubectl -n kube-system delete pod <kube-proxy pod on NODE>`; `kubectl -n kube-system rollout restart ds/kube-proxy` for " +
    'all nodes), then confirm with `curl -s 127.0.0.1:10249/configz` on the node. To keep what runs, put those values back into the ConfigMap.',
  requires: [],
}

/** Fields kube-proxy fills or overrides per node, or that flags outside the configuration change: never compared. */
const NOT_COMPARED = ['/hostnameOverride', '/bindAddress', '/healthzBindAddress', '/metricsBindAddress', '/mode', '/logging', '/showHiddenMetricsForVersion']
/** Defaults that depend on the mode: compared only when both sides run the same mode (else PROXY-003 says it). */
const MODE_DEFAULTED = ['/nodePortAddresses', '/ipvs/scheduler']

function under(ptr: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => ptr === p || ptr.startsWith(`${p}/`))
}

/** Equal as kube-proxy reads them: durations by length (`15m` = `15m0s`), lists as sets, null = empty list. */
export function sameSetting(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const list = (v: JsonValue | undefined): string[] | undefined => (v === null || v === undefined ? [] : Array.isArray(v) ? v.map((x) => JSON.stringify(x)).sort() : undefined)
  if (Array.isArray(a) || Array.isArray(b)) {
    const la = list(a)
    const lb = list(b)
    return la !== undefined && lb !== undefined && la.join('\n') === lb.join('\n')
  }
  if (typeof a === 'string' && typeof b === 'string') {
    if (a === b) return true
    const da = parseGoDuration(a)
    const db = parseGoDuration(b)
    return da !== undefined && db !== undefined && da === db
  }
  return JSON.stringify(a) === JSON.stringify(b)
}

/** "", 0, "0s", null and []: how a file leaves a field to kube-proxy (kubeadm writes every field this way). */
function isUnsetForm(v: JsonValue): boolean {
  if (v === null || v === '' || v === 0) return true
  if (Array.isArray(v)) return v.length === 0
  return typeof v === 'string' && parseGoDuration(v) === 0n
}

function show(v: JsonValue | undefined): string {
  return v === undefined ? '(unset)' : JSON.stringify(v)
}

export function checkRunningConfigDrift(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const kp = facts.kubeProxyConfig
  const proxy = facts.proxy
  if (!kp.running) return {status: 'skipped', reason: `the running configuration is unknown: ${kp.runningError ?? 'kube-proxy /configz was not collected'}`}
  if (!kp.configMap) return {status: 'skipped', reason: 'no kube-proxy ConfigMap (kube-proxy or kube-proxy-config in kube-system) to compare the running configuration with'}
  if (!proxy.configured) return {status: 'skipped', reason: proxy.configuredUnknown ?? 'the configured kube-proxy configuration is unknown'}
  const version = kp.version?.text
  const intended = applyKubeProxyDefaults(proxy.configured.config, version)
  const running = applyKubeProxyDefaults(kp.running.config, version)
  const sameMode = sameSetting(intended.values['mode'] ?? '', running.values['mode'] ?? '')
  const cmName = kp.configMap.metadata.name
  const diffs: string[] = []
  for (const ptr of kp.running.presentPaths) {
    if (under(ptr, NOT_COMPARED) || (!sameMode && under(ptr, MODE_DEFAULTED))) continue
    const want = getAt(intended.values, ptr)
    // Still unset after the defaults node-doctor knows: kube-proxy may fill it in ways not modelled here.
    if (want === undefined || isUnsetForm(want)) continue
    const have = getAt(running.values, ptr)
    if (sameSetting(want, have)) continue
    const origin = intended.origins[ptr]
    const from = origin?.kind === 'flag' ? `flag ${origin.detail ?? ''}`.trim() : origin?.kind === 'default' ? 'default' : `ConfigMap kube-system/${cmName}${origin?.line === undefined ? '' : ` line ${origin.line}`}`
    diffs.push(`${ptr.slice(1).replace(/\//g, '.')}: configured ${show(want)} (${from}), running ${show(have)}`)
  }
  if (diffs.length === 0) return {status: 'passed'}
  const pod = proxy.pod?.metadata.name
  const evidence = [...diffs, `running configuration: kube-proxy /configz${kp.running.typed ? '' : ' (internal type, kube-proxy before v1.36: fields it reports under other names are not compared)'}`]
  if (kp.version) evidence.push(`kube-proxy version: ${kp.version.text}`)
  return {
    status: 'failed',
    findings: [
      {
        message: `kube-proxy runs ${diffs.length === 1 ? 'a setting' : `${diffs.length} settings`} different from ConfigMap kube-system/${cmName}: ${diffs.map((d) => d.split(':')[0]).join(', ')}; kube-proxy does not reload its configuration, restart it to apply`,
        subject: pod ? {kind: 'Pod', name: pod, namespace: 'kube-system'} : {kind: 'process', name: `kube-proxy on ${ctx.node.node}`},
        evidence,
        remedy:
          `Restart kube-proxy on ${ctx.node.node} to apply the ConfigMap: \`kubectl node-doctor fix kube-proxy ${ctx.node.node}\`` +
          `${pod ? ` (or \`kubectl -n kube-system delete pod ${pod}\`)` : ''}, then confirm with \`curl -s 127.0.0.1:10249/configz\`. ` +
          'To keep the running values instead, put them back into the ConfigMap.',
      },
    ],
  }
}
