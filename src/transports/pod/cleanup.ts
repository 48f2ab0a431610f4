// `kubectl node-doctor cleanup`: finds debug pods left behind (a killed run, a lost API connection) by their
// managed-by label and deletes them.
import type {Pod} from '../../core/model/k8s.js'
import {ClusterAccessError, type DebugPodApi} from '../../ports/cluster.js'
import {DEBUG_POD_SELECTOR, RUN_LABEL} from './debug-pod.js'

export interface LeftoverPod {
  namespace: string
  name: string
  node?: string
  run?: string
  phase?: string
  createdAt?: string
  /** What happened: deleted, already gone (someone else deleted it first), listed only (dry run), or failed. */
  outcome: 'deleted' | 'gone' | 'dry-run' | 'failed'
  /** Why the delete failed (outcome `failed`). */
  error?: string
}

export interface CleanupOptions {
  /** Absent: every namespace. */
  namespace?: string
  dryRun: boolean
}

/**
 * Lists pods labelled app.kubernetes.io/managed-by=node-doctor and, unless dryRun, deletes each one (grace period
 * 0, uid precondition: a pod recreated under the same name since the list is left alone). Sorted by
 * namespace/name. A refused delete is reported per pod (`failed`); a refused list throws ClusterAccessError.
 */
export async function cleanupDebugPods(api: DebugPodApi, options: CleanupOptions): Promise<LeftoverPod[]> {
  const pods = await api.listPods({labelSelector: DEBUG_POD_SELECTOR, ...(options.namespace === undefined ? {} : {namespace: options.namespace})})
  const sorted = [...pods].sort((a, b) => key(a).localeCompare(key(b)))
  const out: LeftoverPod[] = []
  for (const pod of sorted) {
    const item = describe(pod)
    if (options.dryRun) {
      out.push({...item, outcome: 'dry-run'})
      continue
    }
    try {
      await api.deletePod(item.namespace, item.name, {gracePeriodSeconds: 0, ...(pod.metadata.uid ? {uid: pod.metadata.uid} : {})})
      out.push({...item, outcome: 'deleted'})
    } catch (err) {
      // 404: deleted meanwhile; 409: the name now belongs to a pod we did not list. Neither is ours to delete.
      if (err instanceof ClusterAccessError && (err.status?.code === 404 || err.status?.code === 409)) out.push({...item, outcome: 'gone'})
      else out.push({...item, outcome: 'failed', error: (err as Error).message})
    }
  }
  return out
}

function key(p: Pod): string {
  return `${p.metadata.namespace ?? ''}/${p.metadata.name}`
}

function describe(pod: Pod): Omit<LeftoverPod, 'outcome'> {
  const item: Omit<LeftoverPod, 'outcome'> = {namespace: pod.metadata.namespace ?? '', name: pod.metadata.name}
  if (pod.spec?.nodeName) item.node = pod.spec.nodeName
  const run = pod.metadata.labels?.[RUN_LABEL]
  if (run) item.run = run
  if (pod.status?.phase) item.phase = pod.status.phase
  if (pod.metadata.creationTimestamp) item.createdAt = pod.metadata.creationTimestamp
  return item
}
