// Where an agent pod stands, from its status alone: done (Ready: its document is in the log), still coming up
// (and why), or never going to produce a document (and why). DaemonSet pods restart on exit, so a crash shows as
// restarts / CrashLoopBackOff rather than phase Failed.
import type {Pod} from '../model/k8s.js'
import {type NodeSnapshot, SNAPSHOT_API_VERSION} from '../model/snapshot.js'
import {AGENT_CONTAINER} from './manifests.js'

export type AgentPodState =
  | {state: 'ready'}
  | {state: 'waiting'; detail: string}
  | {state: 'failed'; reason: 'image-pull' | 'config' | 'crashed' | 'pod-failed'; detail: string}

const PULL = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'])
const CONFIG = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'])

export function agentPodState(pod: Pod): AgentPodState {
  const status = pod.status ?? {}
  const c = status.containerStatuses?.find((s) => s.name === AGENT_CONTAINER)
  if (status.phase === 'Failed' || status.phase === 'Succeeded') {
    const reason = (status as {reason?: string}).reason
    return {state: 'failed', reason: 'pod-failed', detail: `pod ${status.phase}${reason ? ` (${reason})` : ''}`}
  }
  const waiting = c?.state?.waiting
  if (waiting?.reason && PULL.has(waiting.reason)) {
    const image = c?.image ? ` ${c.image}` : ''
    return {state: 'failed', reason: 'image-pull', detail: `cannot pull the agent image${image}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`}
  }
  if (waiting?.reason && CONFIG.has(waiting.reason)) {
    return {state: 'failed', reason: 'config', detail: `the agent container cannot be created: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`}
  }
  const last = c?.lastState?.terminated
  if (c && c.restartCount > 0 && last) {
    return {state: 'failed', reason: 'crashed', detail: `the agent exited with code ${last.exitCode ?? '?'}${last.reason ? ` (${last.reason})` : ''} and was restarted ${c.restartCount} time(s)`}
  }
  if (status.phase === 'Running' && status.conditions?.some((k) => k.type === 'Ready' && k.status === 'True')) return {state: 'ready'}
  if (status.phase === 'Running') return {state: 'waiting', detail: 'collecting (pod running, not Ready yet)'}
  if (waiting?.reason) return {state: 'waiting', detail: `container ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`}
  const unscheduled = status.conditions?.find((k) => k.type === 'PodScheduled' && k.status === 'False') as {reason?: string; message?: string} | undefined
  if (unscheduled) return {state: 'waiting', detail: `not scheduled: ${[unscheduled.reason, unscheduled.message].filter(Boolean).join(': ')}`}
  return {state: 'waiting', detail: `pod ${status.phase ?? 'Pending'}, no container status yet (is the node Ready?)`}
}

/** The snapshot of a node the agent produced nothing for: one fatal collection error saying why. */
export function uncollectedSnapshot(node: string, collectedAt: string, message: string, durationMs: number): NodeSnapshot {
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node,
    collectedAt,
    transport: 'pod',
    artifacts: {},
    errors: [{node, source: 'agent', message, fatal: true}],
    durationMs,
  }
}
