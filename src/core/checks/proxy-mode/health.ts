// PROXY-006..009: is kube-proxy on the node alive and actually programming rules?
import {parseGoDuration} from '../../parse/component-config.js'
import {artifactText} from '../../model/snapshot.js'
import {kubeProxySyncMetrics} from '../../parse/prom-metrics.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {kubeProxyDaemonSet, logLines, type ProxyFacts, proxyFacts} from './facts.js'

/** Restarts from which a kube-proxy that is up again still gets a finding. */
export const RESTART_THRESHOLD = 5
const DEFAULT_SYNC_PERIOD_SECONDS = 30

/** syncPeriod of the mode kube-proxy runs (defaults applied), in seconds. */
export function syncPeriodSeconds(f: ProxyFacts): number {
  const mode = f.running?.mode ?? f.configured?.mode ?? 'iptables'
  const section = f.configured?.config.values[mode === 'nftables' || mode === 'ipvs' ? mode : 'iptables']
  const raw = section && typeof section === 'object' && !Array.isArray(section) ? section['syncPeriod'] : undefined
  const ns = typeof raw === 'string' ? parseGoDuration(raw) : undefined
  return ns !== undefined && ns > 0n ? Number(ns / 1_000_000n) / 1000 : DEFAULT_SYNC_PERIOD_SECONDS
}

function podSubject(name: string) {
  return {kind: 'Pod', name, namespace: 'kube-system'}
}

/** PROXY-006: the pod on the node. */
export function checkPodHealth(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  if (!f.pod) {
    if (!kubeProxyDaemonSet(ctx.cluster)) {
      return {status: 'skipped', reason: 'no kube-proxy DaemonSet or pod in kube-system (kube-proxy may run as a system service, or be replaced by Cilium/Calico eBPF)'}
    }
    return {
      status: 'failed',
      findings: [
        {
          message: `the kube-proxy DaemonSet has no pod on ${ctx.node.node}: nothing programs Service rules on this node`,
          subject: {kind: 'DaemonSet', name: 'kube-proxy', namespace: 'kube-system'},
          remedy: 'Check why the DaemonSet does not schedule here: `kubectl -n kube-system describe ds kube-proxy` (node selector, tolerations for the node\'s taints, resources).',
        },
      ],
    }
  }
  const pod = f.pod
  const name = pod.metadata.name
  const statuses = pod.status?.containerStatuses ?? []
  const c = statuses.find((s) => s.name === 'kube-proxy') ?? statuses[0]
  const drafts: FindingDraft[] = []
  const evidence: string[] = [`phase: ${pod.status?.phase ?? 'unknown'}`]
  if (c) {
    evidence.push(`ready: ${c.ready}, restarts: ${c.restartCount}`)
    for (const [state, detail] of Object.entries(c.state ?? {})) if (detail) evidence.push(`state: ${state}${detail.reason ? ` (${detail.reason})` : ''}${detail.message ? `: ${detail.message}` : ''}`)
    for (const [state, detail] of Object.entries(c.lastState ?? {})) {
      if (detail) evidence.push(`last state: ${state}${detail.reason ? ` (${detail.reason}` : ' ('}exit ${detail.exitCode ?? '?'})${detail.finishedAt ? ` at ${detail.finishedAt}` : ''}`)
    }
  }
  const fatal = (f.log?.events ?? []).filter((e) => e.kind === 'fatal' || e.kind === 'ipvs-unusable').map((e) => e.line)
  evidence.push(...logLines(f.logText, fatal.slice(-3)))
  const waiting = c?.state?.['waiting']?.reason
  if (waiting === 'CrashLoopBackOff' || (waiting !== undefined && /Err|Error|Invalid/.test(waiting))) {
    drafts.push({message: `${name} is in ${waiting} after ${c?.restartCount ?? 0} restarts: kube-proxy keeps exiting`, subject: podSubject(name), evidence})
  } else if (pod.status?.phase !== 'Running' || c?.ready === false || pod.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'False')) {
    drafts.push({message: `${name} is not ready (phase ${pod.status?.phase ?? 'unknown'}${waiting ? `, ${waiting}` : ''})`, subject: podSubject(name), evidence})
  } else if ((c?.restartCount ?? 0) >= RESTART_THRESHOLD) {
    drafts.push({message: `${name} has restarted ${c?.restartCount} times`, subject: podSubject(name), evidence, severity: 'warning'})
  }
  return drafts.length > 0 ? {status: 'failed', findings: drafts} : {status: 'passed'}
}

function transportFailure(ctx: CheckContext, id: string): string | undefined {
  const a = ctx.node.artifacts[id]
  if (!a) return undefined
  const text = `${a.error ?? ''} ${a.stderr ?? ''}`
  return /Failed to connect|Connection refused|Couldn't connect|timed out|Empty reply/i.test(text) ? text.trim() : undefined
}

/** PROXY-007: /healthz. */
export function checkHealthz(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  const refused = transportFailure(ctx, 'kube-proxy-healthz')
  if (refused !== undefined) {
    return {
      status: 'failed',
      findings: [{message: "kube-proxy's health endpoint (127.0.0.1:10256/healthz) does not answer: kube-proxy is not running on the node, or listens elsewhere (healthzBindAddress)", subject: {kind: 'process', name: `kube-proxy on ${ctx.node.node}`}, evidence: [refused]}],
    }
  }
  const body = artifactText(ctx.node, 'kube-proxy-healthz')
  if (body === undefined) return {status: 'skipped', reason: 'missing input: kube-proxy-healthz'}
  if (body.trim() === 'ok') return {status: 'passed'}
  let parsed: {lastUpdated?: unknown; currentTime?: unknown}
  try {
    parsed = JSON.parse(body) as typeof parsed
  } catch {
    return {status: 'skipped', reason: `the /healthz body is not kube-proxy's JSON: ${JSON.stringify(body.trim().slice(0, 60))}`}
  }
  const last = typeof parsed.lastUpdated === 'string' ? Date.parse(parsed.lastUpdated) : NaN
  const now = typeof parsed.currentTime === 'string' ? Date.parse(parsed.currentTime) : NaN
  if (Number.isNaN(now)) return {status: 'skipped', reason: 'the /healthz body has no currentTime'}
  const limit = 2 * syncPeriodSeconds(f)
  // A zero lastUpdated means kube-proxy has not synced yet since it started.
  const age = Number.isNaN(last) || last <= 0 ? Infinity : (now - last) / 1000
  if (age <= limit) return {status: 'passed'}
  return {
    status: 'failed',
    findings: [
      {
        message:
          age === Infinity
            ? 'kube-proxy reports it has never completed a rule sync since it started'
            : `kube-proxy last programmed rules ${Math.round(age)}s before it answered (limit ${limit}s = 2 × syncPeriod): /healthz fails`,
        subject: {kind: 'process', name: `kube-proxy on ${ctx.node.node}`},
        evidence: [`/healthz: ${body.trim().slice(0, 200)}`],
      },
    ],
  }
}

function metricsOf(ctx: CheckContext): {ok: true; m: ReturnType<typeof kubeProxySyncMetrics>} | {ok: false; reason: string} {
  const parsed = factsOf(ctx).kubeProxyMetrics()
  if (parsed === undefined) return {ok: false, reason: 'missing input: kube-proxy-metrics'}
  if (!parsed.ok) return {ok: false, reason: `kube-proxy's /metrics could not be parsed: ${parsed.error.message}`}
  return {ok: true, m: kubeProxySyncMetrics(parsed.value)}
}

const iso = (s: number | undefined) => (s === undefined ? 'never' : new Date(s * 1000).toISOString())

/** PROXY-008: queued changes not synced for longer than 2 × syncPeriod. */
export function checkSyncStuck(ctx: CheckContext): CheckOutcome {
  const r = metricsOf(ctx)
  if (!r.ok) return {status: 'skipped', reason: r.reason}
  const {m} = r
  if (m.lastSyncTimestampSeconds === undefined && m.lastQueuedTimestampSeconds === undefined) {
    return {status: 'skipped', reason: 'kube-proxy /metrics has no kubeproxy_sync_proxy_rules_last_* timestamps'}
  }
  const limit = 2 * syncPeriodSeconds(proxyFacts(ctx))
  const drafts: FindingDraft[] = []
  for (const [fam, v] of Object.entries(m.byIpFamily)) {
    if (v.lastQueuedTimestampSeconds === undefined || v.lastQueuedTimestampSeconds <= 0) continue
    const synced = v.lastSyncTimestampSeconds ?? 0
    const pending = v.lastQueuedTimestampSeconds - synced
    if (pending <= limit) continue
    drafts.push({
      message: `kube-proxy${fam ? ` (${fam})` : ''} queued a change at ${iso(v.lastQueuedTimestampSeconds)} but its last successful sync was ${synced > 0 ? `${Math.round(pending)}s earlier` : 'never'} (limit ${limit}s): rules on the node are stale`,
      subject: {kind: 'process', name: `kube-proxy on ${ctx.node.node}`},
      evidence: [
        `kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds${fam ? `{ip_family="${fam}"}` : ''} ${v.lastQueuedTimestampSeconds}`,
        `kubeproxy_sync_proxy_rules_last_timestamp_seconds${fam ? `{ip_family="${fam}"}` : ''} ${v.lastSyncTimestampSeconds ?? 'absent'}`,
      ],
      ...(fam ? {group: fam} : {}),
    })
  }
  return drafts.length > 0 ? {status: 'failed', findings: drafts} : {status: 'passed'}
}

/** PROXY-009: restore / sync failure counters. */
export function checkRestoreFailures(ctx: CheckContext): CheckOutcome {
  const r = metricsOf(ctx)
  if (!r.ok) return {status: 'skipped', reason: r.reason}
  const {m} = r
  const counters: Array<[string, number | undefined]> = [
    ['kubeproxy_sync_proxy_rules_iptables_restore_failures_total', m.iptablesRestoreFailuresTotal],
    ['kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total', m.iptablesPartialRestoreFailuresTotal],
    ['kubeproxy_sync_proxy_rules_nftables_sync_failures_total', m.nftablesSyncFailuresTotal],
  ]
  if (counters.every(([, v]) => v === undefined)) return {status: 'skipped', reason: 'kube-proxy /metrics has no restore or sync failure counters'}
  const bad = counters.filter(([, v]) => (v ?? 0) > 0)
  if (bad.length === 0) return {status: 'passed'}
  return {
    status: 'failed',
    findings: [
      {
        message: `kube-proxy failed to apply its rules: ${bad.map(([n, v]) => `${v} × ${n.replace('kubeproxy_sync_proxy_rules_', '').replace(/_total$/, '').replaceAll('_', ' ')}`).join(', ')} since it started`,
        subject: {kind: 'process', name: `kube-proxy on ${ctx.node.node}`},
        evidence: bad.map(([n, v]) => `${n} ${v}`),
      },
    ],
  }
}
