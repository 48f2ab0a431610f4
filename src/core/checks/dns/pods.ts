// Pod facts shared by the DNS, endpoint and Calico checks: IPs, readiness as the EndpointSlice controller sees it,
// label selection, and "is this pod healthy" for system pods (CoreDNS, calico-node). Pure; times come from the
// snapshot (`collectedAt`), never from a clock.
import ipaddr from 'ipaddr.js'
import type {Pod} from '../../model/k8s.js'
import type {Severity} from '../../model/report.js'

export type IpFamily = 'IPv4' | 'IPv6'

/** Canonical text of an IP (RFC 5952 for IPv6), or undefined when it is not one. */
export function normalizeIp(text: string | undefined): string | undefined {
  if (text === undefined || !ipaddr.isValid(text)) return undefined
  if (ipaddr.IPv4.isValid(text) && !ipaddr.IPv4.isValidFourPartDecimal(text)) return undefined
  return ipaddr.parse(text).toString()
}

export function ipFamily(ip: string): IpFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4'
}

/** The pod's IPs (status.podIPs, else status.podIP), canonical and de-duplicated. */
export function podIps(pod: Pod): string[] {
  const raw = pod.status?.podIPs?.map((p) => p.ip) ?? []
  if (raw.length === 0 && pod.status?.podIP) raw.push(pod.status.podIP)
  return [...new Set(raw.map((ip) => normalizeIp(ip)).filter((ip): ip is string => ip !== undefined))]
}

/** `ns/name`, how kubectl users name pods. */
export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name}`
}

/** Ready condition True (podutil.IsPodReady, which the EndpointSlice controller uses). */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false
}

export function isTerminating(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined
}

export function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed'
}

/** Every `key: value` of the selector is among the labels. An empty selector selects nothing here (see callers). */
export function matchesSelector(labels: Record<string, string> | undefined, selector: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v)
}

/** Seconds from `from` to `to` (ISO timestamps), or undefined when either does not parse. */
export function secondsBetween(from: string | undefined, to: string | undefined): number | undefined {
  if (from === undefined || to === undefined) return undefined
  const a = Date.parse(from)
  const b = Date.parse(to)
  return Number.isNaN(a) || Number.isNaN(b) ? undefined : (b - a) / 1000
}

/**
 * NOTE: EndpointSlices and routes follow pod changes within seconds. Something that changed less than this before
 * the snapshot was taken may simply not have propagated yet, so it is not reported.
 */
export const SETTLE_SECONDS = 30

/** When the pod's Ready condition last changed (the API sends lastTransitionTime; our Pod type leaves it out). */
export function readyTransitionTime(pod: Pod): string | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready') as {lastTransitionTime?: unknown} | undefined
  return typeof c?.lastTransitionTime === 'string' ? c.lastTransitionTime : undefined
}

/** True when the pod was created or changed readiness within SETTLE_SECONDS before `collectedAt`. */
export function isSettling(pod: Pod, collectedAt: string): boolean {
  for (const t of [pod.metadata.creationTimestamp, readyTransitionTime(pod)]) {
    const age = secondsBetween(t, collectedAt)
    if (age !== undefined && age >= 0 && age < SETTLE_SECONDS) return true
  }
  return false
}

/** A restart this recent (before collection) counts as "restarting"; older ones are history. */
export const RECENT_RESTART_SECONDS = 3600
/** Without a termination timestamp, this many restarts still count as restarting. */
export const MANY_RESTARTS = 10

export interface PodHealthProblem {
  kind: 'not-ready' | 'restarting'
  /** Suggested severity: error when not ready, warning when ready but restarting. */
  severity: Severity
  /** Short phrase for a message: `not ready (CrashLoopBackOff)`, `restarted 4 times, last 12m before collection (OOMKilled)`. */
  summary: string
  evidence: string[]
}

function stateText(state: Record<string, {reason?: string; message?: string} | undefined> | undefined): string | undefined {
  if (!state) return undefined
  for (const key of ['waiting', 'terminated', 'running'] as const) {
    const s = state[key]
    if (s !== undefined) return [key, s.reason, s.message ? `(${s.message.slice(0, 120)})` : undefined].filter((x) => x !== undefined).join(' ')
  }
  return undefined
}

/**
 * What is wrong with a long-running system pod, or undefined when it is fine. Not ready (or a terminal phase) is an
 * error; ready but restarted within RECENT_RESTART_SECONDS before collection (or MANY_RESTARTS without a timestamp)
 * is a warning. Terminating pods are being replaced and are not judged.
 */
export function podHealthProblem(pod: Pod, collectedAt: string): PodHealthProblem | undefined {
  if (isTerminating(pod)) return undefined
  const statuses = pod.status?.containerStatuses ?? []
  const evidence = [`phase: ${pod.status?.phase ?? 'unknown'}`]
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')
  evidence.push(`condition Ready=${ready?.status ?? 'absent'}`)
  for (const c of statuses) {
    const line = [`container ${c.name}: ready=${c.ready} restarts=${c.restartCount}`, stateText(c.state)]
    const last = c.lastState?.terminated
    if (last) line.push(`last terminated ${last.reason ?? ''}${last.exitCode !== undefined ? ` exit ${last.exitCode}` : ''}${last.finishedAt ? ` at ${last.finishedAt}` : ''}`.replace(/\s+/g, ' '))
    evidence.push(line.filter((x) => x !== undefined).join(', '))
  }
  if (!isPodReady(pod) || isTerminal(pod)) {
    const reasons = statuses.flatMap((c) => [c.state?.waiting?.reason, c.state?.terminated?.reason]).filter((r): r is string => r !== undefined)
    const phase = pod.status?.phase
    if (phase !== undefined && phase !== 'Running') reasons.unshift(phase)
    const why = [...new Set(reasons)].join(', ')
    return {kind: 'not-ready', severity: 'error', summary: `not ready${why ? ` (${why})` : ''}`, evidence}
  }
  let worst: {count: number; ago?: number; reason?: string} | undefined
  for (const c of statuses) {
    if (c.restartCount === 0) continue
    const last = c.lastState?.terminated
    const ago = secondsBetween(last?.finishedAt, collectedAt)
    const recent = ago !== undefined ? ago >= 0 && ago < RECENT_RESTART_SECONDS : c.restartCount >= MANY_RESTARTS
    if (!recent) continue
    if (!worst || c.restartCount > worst.count) worst = {count: c.restartCount, ...(ago !== undefined ? {ago} : {}), ...(last?.reason ? {reason: last.reason} : {})}
  }
  if (!worst) return undefined
  const when = worst.ago !== undefined ? `, last ${Math.max(1, Math.round(worst.ago / 60))}m before collection` : ''
  return {
    kind: 'restarting',
    severity: 'warning',
    summary: `restarting: ${worst.count} restart${worst.count === 1 ? '' : 's'}${when}${worst.reason ? ` (${worst.reason})` : ''}`,
    evidence,
  }
}
