// "Say what you assumed" for `check` and `analyze`: per node, the facts its expected kube-proxy state is computed
// from (version, mode, configuration, runtime facts), each with its source. Pure, over the node's facts.
import type {NodeFacts, RunFacts} from '../facts/node-facts.js'
import type {Area, Assumption} from '../model/report.js'
import {artifactText, type NodeSnapshot} from '../model/snapshot.js'
import {assumptionsFor, iptablesBackendFromVersion} from '../proxier/assumptions.js'
import {formatFullKubeProxyVersion} from '../proxier/config.js'
import type {VersionResolution} from '../proxier/kube-proxy-version.js'
import {buildRenderInput, type RenderInput} from '../proxier/render-input.js'
import {runtimeFacts} from './iptables/live.js'
import {objectsOf, proxierConfigOf} from './proxier-snapshot.js'
import {configuredModeOf} from './proxy-mode/facts.js'
import type {Check} from './types.js'

/** The mode the node's expected state is computed for, and where it came from. */
function modeAssumption(facts: NodeFacts): {value: string; source: string} {
  const p = facts.proxy
  if (p.running) return {value: p.running.mode, source: p.running.source}
  // Where this layout keeps it (k3s/RKE2 kube-proxy-arg, a static pod's flags, else the ConfigMap): proxy-mode/facts.ts.
  const c = configuredModeOf(facts)
  if ('configured' in c) return {value: c.configured.mode, source: c.configured.source}
  return {value: 'iptables', source: "default (neither the running nor the configured mode is known; kube-proxy's default on Linux)"}
}

function versionAssumption(r: VersionResolution): Assumption {
  const a: Assumption = {name: 'kube-proxy version', value: formatFullKubeProxyVersion(r.version), source: r.kind === 'default' ? 'assumed (nothing named it; the newest layout known)' : r.from}
  if (r.notes.length > 0) a.notes = [...r.notes]
  return a
}

/**
 * What the node's expected kube-proxy state is computed from, each with its source: the same render input the
 * live iptables/IPVS/nftables diffs build (version, configuration, runtime facts from the node's artifacts).
 * When no expected state can be computed, the version and mode with the reason.
 */
export function nodeAssumptions(facts: NodeFacts): Assumption[] {
  const mode = modeAssumption(facts)
  const fallback = (reason: string): Assumption[] => [
    versionAssumption(facts.kubeProxyConfig.resolution),
    {name: 'mode', ...mode},
    {name: 'expected state', value: 'not computed', source: reason},
  ]
  const cfg = proxierConfigOf(facts)
  if (!cfg.ok) return fallback(cfg.reason)
  const node = facts.node
  const dumpText = artifactText(node, 'iptables-save') ?? ''
  const runtime = runtimeFacts(node, dumpText, facts)
  let render: RenderInput
  try {
    render = buildRenderInput(objectsOf(facts.cluster, facts), {
      nodeName: node.node,
      ...(cfg.config ? {kubeProxyConfig: cfg.config} : {}),
      ...(cfg.sources ? {configSources: cfg.sources} : {}),
      facts: mode.value === 'nftables' ? runtime : {...runtime, family: 'ipv4'},
    })
  } catch (err) {
    return fallback((err as Error).message)
  }
  const backend = mode.value === 'iptables' || mode.value === 'ipvs' ? iptablesBackendFromVersion(artifactText(node, 'iptables-version')) : undefined
  return assumptionsFor(render, {mode, factsFrom: 'node', ...(backend ? {iptablesBackend: {value: backend, source: '`iptables --version` on the node'}} : {})})
}

const PROXIER_AREAS: readonly Area[] = ['proxy-mode', 'iptables', 'ipvs', 'nftables']

/**
 * The assumptions for each node of a run whose checks include kube-proxy's (the areas that compute or judge the
 * expected state); undefined for a node nothing could be collected from, or when no such check was selected.
 */
export function runAssumptions(checks: readonly Check[], areas: readonly Area[] | undefined, run: RunFacts, node: NodeSnapshot): Assumption[] | undefined {
  const selected = areas && areas.length > 0 ? checks.filter((c) => areas.includes(c.spec.area)) : checks
  if (!selected.some((c) => PROXIER_AREAS.includes(c.spec.area))) return undefined
  if (node.errors.some((e) => e.fatal)) return undefined
  return nodeAssumptions(run.forNode(node))
}
