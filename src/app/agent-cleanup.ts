// `cleanup` for agent runs and --via pod runs: namespaces labelled as node-doctor agent or debug-pod namespaces (a killed run, a lost connection)
// are deleted, and everything in them with them.
import {AGENT_NAMESPACE_SELECTOR, RUN_LABEL} from '../core/agent/manifests.js'
import {DEBUG_NAMESPACE_SELECTOR} from '../core/model/managed-objects.js'
import type {AgentApi} from '../ports/agent.js'

export interface LeftoverAgentRun {
  namespace: string
  /** Which kind of run made it: an --in-cluster agent run, or a --via pod run's own namespace. */
  kind: 'agent' | 'debug-pods'

  run?: string
  createdAt?: string
  outcome: 'deleted' | 'gone' | 'dry-run' | 'failed'
  error?: string
}

/**
 * Lists the namespaces of agent runs and of --via pod runs and, unless dryRun, deletes each. A refused delete is
 * reported per namespace; a refused list throws.
 */
export async function cleanupAgentRuns(api: Pick<AgentApi, 'listNamespaces' | 'deleteNamespace'>, options: {dryRun: boolean}): Promise<LeftoverAgentRun[]> {
  const found = [
    ...(await api.listNamespaces(AGENT_NAMESPACE_SELECTOR)).map((ns) => ({ns, kind: 'agent' as const})),
    ...(await api.listNamespaces(DEBUG_NAMESPACE_SELECTOR)).map((ns) => ({ns, kind: 'debug-pods' as const})),
  ]
  const out: LeftoverAgentRun[] = []
  for (const {ns, kind} of found.sort((a, b) => a.ns.metadata.name.localeCompare(b.ns.metadata.name))) {
    const item: Omit<LeftoverAgentRun, 'outcome'> = {namespace: ns.metadata.name, kind}
    const run = ns.metadata.labels?.[RUN_LABEL]
    if (run) item.run = run
    if (ns.metadata.creationTimestamp) item.createdAt = ns.metadata.creationTimestamp
    if (options.dryRun) {
      out.push({...item, outcome: 'dry-run'})
      continue
    }
    try {
      out.push({...item, outcome: (await api.deleteNamespace(item.namespace)) ? 'deleted' : 'gone'})
    } catch (err) {
      out.push({...item, outcome: 'failed', error: (err as Error).message})
    }
  }
  return out
}
