// The PROXY checks' view of kube-proxy on one node: computed once per node by the parse stage (core/facts).
import type {NodeFacts} from '../../facts/node-facts.js'
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
