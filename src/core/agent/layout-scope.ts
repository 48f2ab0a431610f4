// Which layouts the in-cluster agent's mounts are for: each target node's distribution resolved from the API alone
// (the CLI reads the cluster before it creates the DaemonSet), so the DaemonSet mounts only the directories of the
// layouts the target nodes have (core/agent/privileges.ts LAYOUT_SCOPED_MOUNTS). Pure.
import {type Distribution, knownLayout} from '../layout/known-layouts.js'
import {distributionFromApi} from '../layout/resolve.js'
import type {Node} from '../model/k8s.js'
import type {Area} from '../model/report.js'
import type {ClusterSnapshot} from '../model/snapshot.js'
import {agentPlan, LAYOUT_SCOPED_MOUNTS} from './privileges.js'

export interface AgentLayoutScope {
  /** The distinct layouts of the target nodes, sorted; `unknown` among them when a node's layout is not told. */
  layouts: Distribution[]
  /** Per target node, in the order given: its layout and the API evidence for it. */
  nodes: Array<{node: string; distribution: Distribution; evidence: string[]}>
  /** The target nodes whose layout the API does not tell: they get every layout's directories. */
  unresolved: string[]
}

/** Each target node's layout from its Node object (kubelet version, osImage, providerID, labels) and the cluster's objects. */
export function agentLayoutScope(cluster: ClusterSnapshot, nodes: readonly Node[]): AgentLayoutScope {
  const perNode = nodes.map((n) => ({node: n.metadata.name, ...distributionFromApi(cluster, n)}))
  return {
    layouts: [...new Set(perNode.map((n) => n.distribution))].sort(),
    nodes: perNode,
    unresolved: perNode.filter((n) => n.distribution === 'unknown').map((n) => n.node),
  }
}

/** The layout-only directories a run for these areas mounts (on a node of another layout the runtime creates them). */
export function layoutScopedMounts(areas: readonly Area[] | undefined, layouts?: readonly Distribution[]): string[] {
  return agentPlan(areas, layouts)
    .privileges.mounts.map((m) => m.path)
    .filter((p) => LAYOUT_SCOPED_MOUNTS[p] !== undefined)
}

/** Node names for a message: all of a few, the first ones and a count of many. */
function nodeList(names: readonly string[], max = 5): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`
}

/**
 * The warning for target nodes whose layout the API does not tell, naming them and the directories the container
 * runtime may create, empty, on them; undefined when every node's layout is known.
 */
export function unresolvedLayoutWarning(scope: AgentLayoutScope, areas: readonly Area[] | undefined): string | undefined {
  if (scope.unresolved.length === 0) return undefined
  const dirs = layoutScopedMounts(areas)
  const known = scope.layouts.filter((l) => l !== 'unknown').map((l) => knownLayout(l).title)
  return (
    `WARNING: the layout of node(s) ${nodeList(scope.unresolved)} cannot be told from the API (no k3s/RKE2 kubelet version, ` +
    'no Talos/Bottlerocket osImage, no EKS/GKE/AKS providerID and labels, no ConfigMap kube-system/kubeadm-config), ' +
    `so the agent mounts the directories of every known layout${known.length > 0 ? ` (the other target nodes: ${known.join(', ')})` : ''}. ` +
    `On a node without them the container runtime creates them, empty: ${dirs.join(', ')}. ` +
    'Name only nodes of known layouts, or use --via ssh or --via pod, to leave no trace.'
  )
}
