// The PROXY checks' view of kube-proxy on one node: computed once per node by the parse stage (core/facts).
import {KUBE_PROXY_MANIFEST_ARTIFACT} from '../../collection/plan.js'
import type {NodeFacts} from '../../facts/node-facts.js'
import {type LayoutProxyMode, layoutProxyMode} from '../../layout/kube-proxy-mode.js'
import {factsOf} from '../types.js'
import type {CheckContext} from '../types.js'

export {
  type ConfiguredMode,
  type Dataplane,
  isKubeProxyPod,
  kubeProxyDaemonSet,
  kubeProxyPodOn,
  logLines,
  minorFromVersion,
  type ProxyFacts,
  type RunningMode,
} from '../../facts/kube-proxy.js'

/** kube-proxy's facts for the context's node (from ctx.facts when the runner supplied them). */
export function proxyFacts(ctx: CheckContext): NodeFacts['proxy'] {
  return factsOf(ctx).proxy
}

/** The configured mode as the PROXY checks compare it: where it was read, and how it reaches kube-proxy on this layout. */
export interface ConfiguredModeView {
  mode: string
  source: string
  /** Absent: a ConfigMap/DaemonSet layout (a new pod applies it). */
  applies?: LayoutProxyMode['applies']
}

/**
 * kube-proxy's configured mode where this layout keeps it: k3s's kube-proxy-arg, RKE2's kube-proxy-arg or static pod
 * manifest, GKE's kube-proxy.manifest (core/layout/kube-proxy-mode.ts); elsewhere the ConfigMap and the pod's flags.
 */
export function configuredMode(ctx: CheckContext): {configured: ConfiguredModeView} | {configuredUnknown: string} {
  return configuredModeOf(factsOf(ctx))
}

/** configuredMode over a node's facts (the assumptions name the same source). */
export function configuredModeOf(facts: NodeFacts): {configured: ConfiguredModeView} | {configuredUnknown: string} {
  const rancherConfig = facts.text('rancher-config')
  const manifest = facts.text(KUBE_PROXY_MANIFEST_ARTIFACT)
  const fromLayout = layoutProxyMode(facts.resolvedLayout, {...(rancherConfig === undefined ? {} : {rancherConfig}), ...(manifest === undefined ? {} : {manifest})})
  if (fromLayout && 'unknown' in fromLayout) return {configuredUnknown: fromLayout.unknown}
  if (fromLayout) return {configured: fromLayout}
  const f = facts.proxy
  if (f.configured) return {configured: {mode: f.configured.mode, source: f.configured.source}}
  return {configuredUnknown: f.configuredUnknown ?? 'the configured mode is unknown'}
}
