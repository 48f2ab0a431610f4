// What the iptables, IPVS and nftables diffs share when they run over snapshots: the cluster's objects in the
// proxier's shape, the kube-proxy configuration (the facts' one schema-aware parse of the ConfigMap), the mode
// kube-proxy actually runs, one diff per node for all of an area's checks (kept on the node's facts), and a check's
// outcome from the diff's finding drafts.
import type {FactKey, NodeFacts} from '../facts/node-facts.js'
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'
import {artifactText} from '../model/snapshot.js'
import {KUBE_PROXY_DISTRIBUTION_ARTIFACT, KUBE_PROXY_MANIFEST_ARTIFACT} from '../collection/plan.js'
import {overlayRunningConfig} from '../proxier/config.js'
import {kubeProxyConfigText, type ProxierObjects} from '../proxier/render-input.js'
import type {CheckContext, CheckOutcome, FindingDraft} from './types.js'
import {factsOf} from './types.js'

/**
 * The cluster's objects in the proxier's shape, with the pods and, given a node's facts, what that node's own
 * artifacts say about its kube-proxy version (metrics, static pod manifest, k3s/RKE2 binary).
 */
export function objectsOf(cluster: ClusterSnapshot, facts?: NodeFacts): ProxierObjects {
  const {services, endpointSlices, nodes, configMaps, serviceCIDRs, daemonSets, pods} = cluster
  const out: ProxierObjects = {services, endpointSlices, nodes, configMaps, serviceCIDRs, daemonSets, pods, other: []}
  if (facts) out.nodeVersionInputs = nodeVersionInputsOf(facts)
  return out
}

/** The node's own version evidence from its artifacts (each parsed once, on its facts). */
export function nodeVersionInputsOf(facts: NodeFacts): NonNullable<ProxierObjects['nodeVersionInputs']> {
  const metrics = facts.kubeProxyMetrics()
  const staticManifest = facts.text(KUBE_PROXY_MANIFEST_ARTIFACT)
  const distribution = facts.text(KUBE_PROXY_DISTRIBUTION_ARTIFACT)
  return {
    nodeName: facts.node.node,
    ...(metrics?.ok ? {metrics: metrics.value} : {}),
    ...(staticManifest ? {staticManifest} : {}),
    ...(distribution ? {distribution} : {}),
  }
}

/** `sources`: dotted path → where the value came from, for the values taken from the running kube-proxy (/configz). */
export type ProxierConfig = {ok: true; config?: Record<string, unknown>; sources?: Record<string, string>} | {ok: false; reason: string}

const INVALID = 'the kube-system/kube-proxy ConfigMap does not hold valid YAML (see the proxy-mode checks)'

/**
 * The KubeProxyConfiguration mapping the proxier renders with, from the node's facts: the ConfigMap's, with the
 * running kube-proxy's values (/configz, when it was read) laid over it for the fields the rules depend on
 * (proxier/config.ts overlayRunningConfig; `sources` names them). Undefined when neither exists; a reason instead
 * when the ConfigMap cannot be read and no running configuration stands in (the proxy-mode checks report that one).
 */
export function proxierConfigOf(facts: NodeFacts): ProxierConfig {
  const configured = configuredProxierConfigOf(facts)
  const running = facts.kubeProxyConfig.running
  if (!running) return configured
  const layered = overlayRunningConfig(configured.ok ? configured.config : undefined, running.config.values, running.presentPaths)
  if (Object.keys(layered.sources).length === 0) return configured
  return {ok: true, config: layered.config, sources: layered.sources}
}

function configuredProxierConfigOf(facts: NodeFacts): ProxierConfig {
  const text = kubeProxyConfigText(objectsOf(facts.cluster))
  // No ConfigMap: an embedded kube-proxy's configuration (k3s: its flags and kube-proxy-arg), else kube-proxy's defaults.
  if (text === undefined) {
    const embedded = facts.resolvedLayout.kubeProxy.config
    return embedded ? {ok: true, config: embedded} : {ok: true}
  }
  const kp = facts.kubeProxyConfig
  if (kp.file) {
    const {apiVersion, kind} = kp.file
    return {ok: true, config: {...(apiVersion === undefined ? {} : {apiVersion}), ...(kind === undefined ? {} : {kind}), ...kp.file.values}}
  }
  // NOTE: an empty configuration is kube-proxy's defaults, as it always was here.
  return text.trim() === '' ? {ok: true} : {ok: false, reason: INVALID}
}

/** The proxier configuration for a context (kept as the entry point callers outside the checks use). */
export function kubeProxyConfigOf(ctx: CheckContext): ProxierConfig {
  return proxierConfigOf(factsOf(ctx))
}

/** The node's running mode (its /proxyMode answer), else the configured one, else kube-proxy's default (iptables). */
export function effectiveProxyMode(node: NodeSnapshot, config: Record<string, unknown> | undefined): string {
  const running = artifactText(node, 'proxy-mode')?.trim()
  const configured = typeof config?.mode === 'string' && config.mode !== '' ? config.mode : 'iptables'
  return running && /^(iptables|ipvs|nftables)$/.test(running) ? running : configured
}

/**
 * One value per node however many checks read it (the IPT, IPVS and NFT checks each take their own ids from the
 * same diff): kept on the context's facts, so it lives as long as the run.
 */
export function perNode<T>(key: FactKey<T>, compute: (cluster: ClusterSnapshot, node: NodeSnapshot, facts: NodeFacts) => T): (ctx: CheckContext) => T {
  return (ctx) => factsOf(ctx).derive(key, (f) => compute(f.cluster, f.node, f))
}

/** A shared diff's finding drafts by check id, or why the diff does not apply. */
export type DraftsById = {ok: true; drafts: ReadonlyMap<string, FindingDraft[]>} | {ok: false; reason: string}

/** A check's outcome for one id from a shared diff: skipped with the diff's reason, passed, or failed with its drafts. */
export function outcomeForId(d: DraftsById, id: string): CheckOutcome {
  if (!d.ok) return {status: 'skipped', reason: d.reason}
  const drafts = d.drafts.get(id) ?? []
  return drafts.length === 0 ? {status: 'passed'} : {status: 'failed', findings: drafts}
}
