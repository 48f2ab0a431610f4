// `cleanup` for agent runs: namespaces labelled as node-doctor agent namespaces (a killed run, a lost connection)
// are deleted, and everything in them with them.
import {AGENT_NAMESPACE_SELECTOR, RUN_LABEL} from '../core/agent/manifests.js'
import type {AgentApi} from '../ports/agent.js'

export interface LeftoverAgentRun {
  namespace: string
  run?: string
  createdAt?: string
  outcome: 'deleted' | 'gone' | 'dry-run' | 'failed'
  error?: string
}

/** Lists agent namespaces and, unless dryRun, deletes each. A refused delete is reported per namespace; a refused list throws. */
export async function cleanupAgentRuns(api: Pick<AgentApi, 'listNamespaces' | 'deleteNamespace'>, options: {dryRun: boolean}): Promise<LeftoverAgentRun[]> {
  const namespaces = await api.listNamespaces(AGENT_NAMESPACE_SELECTOR)
  const out: LeftoverAgentRun[] = []
  for (const ns of [...namespaces].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const item: Omit<LeftoverAgentRun, 'outcome'> = {namespace: ns.metadata.name}
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
