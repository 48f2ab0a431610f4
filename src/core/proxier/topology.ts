// Endpoint categorisation per service port: which endpoints Cluster and Local traffic policy use, which endpoints
// get KUBE-SEP chains, and whether the service has usable endpoints anywhere.
// Mirrors pkg/proxy/topology.go CategorizeEndpoints / topologyModeFromHints (v1.33+) and, for older releases,
// canUseTopology (hints only with the topology annotation until ServiceTrafficDistribution, v1.31).
import type {EndpointInfo} from './endpoints.js'
import type {ServicePortInfo} from './service-ports.js'
import {usesClusterEndpoints, usesLocalEndpoints} from './service-ports.js'

export type TopologyMode = '' | 'PreferSameZone' | 'PreferSameNode'

export interface TopologyContext {
  nodeName: string
  /** The node's topology.kubernetes.io/zone label ('' or undefined when missing). */
  zone?: string
  featureGates: Record<string, boolean>
}

export interface CategorizedEndpoints {
  /** Endpoints for Cluster policy (topology-filtered ready ones, else serving+terminating); empty if unused. */
  clusterEndpoints: EndpointInfo[]
  /** Local endpoints for Local policy (ready, else serving+terminating); empty if unused. */
  localEndpoints: EndpointInfo[]
  /** Endpoints that get a KUBE-SEP chain. In the union case kube-proxy's order is random; ours is by endpoint string. */
  allReachableEndpoints: EndpointInfo[]
  /** Whether the service has usable endpoints anywhere in the cluster. */
  hasAnyEndpoints: boolean
  topologyMode: TopologyMode
  /** Local endpoints came from the serving+terminating fallback. */
  localUsesTerminating: boolean
}

/**
 * The topology mode from the hints of the ready endpoints. Before ServiceTrafficDistribution (v1.31), hints were
 * considered only when the Service had a non-empty, non-"disabled" topology annotation.
 */
export function topologyModeFromHints(sp: ServicePortInfo, endpoints: readonly EndpointInfo[], ctx: TopologyContext): TopologyMode {
  if (!ctx.featureGates.TopologyAwareHints) return ''
  if (!ctx.featureGates.ServiceTrafficDistribution) {
    const a = sp.hintsAnnotation
    if (a === '' || a === 'disabled' || a === 'Disabled') return ''
  }
  const zone = ctx.zone ?? ''
  let hasReady = false
  let allNodeHints = true
  let forNode = false
  let allZoneHints = true
  let forZone = false
  for (const ep of endpoints) {
    if (!ep.ready) continue
    hasReady = true
    if (!ep.nodeHints || ep.nodeHints.size === 0) allNodeHints = false
    else if (ep.nodeHints.has(ctx.nodeName)) forNode = true
    if (!ep.zoneHints || ep.zoneHints.size === 0) allZoneHints = false
    else if (ep.zoneHints.has(zone)) forZone = true
  }
  if (!hasReady) return ''
  if (ctx.featureGates.PreferSameTrafficDistribution && allNodeHints && forNode) return 'PreferSameNode'
  if (allZoneHints && forZone && zone !== '') return 'PreferSameZone'
  return ''
}

function availableForTopology(ep: EndpointInfo, mode: TopologyMode, ctx: TopologyContext): boolean {
  switch (mode) {
    case '':
      return true
    case 'PreferSameNode':
      return ep.nodeHints?.has(ctx.nodeName) ?? false
    case 'PreferSameZone':
      return ep.zoneHints?.has(ctx.zone ?? '') ?? false
  }
}

/** CategorizeEndpoints for one service port (endpoints sorted by endpoint string). */
export function categorizeEndpoints(endpoints: readonly EndpointInfo[], sp: ServicePortInfo, ctx: TopologyContext): CategorizedEndpoints {
  const result: CategorizedEndpoints = {
    clusterEndpoints: [],
    localEndpoints: [],
    allReachableEndpoints: [],
    hasAnyEndpoints: false,
    topologyMode: '',
    localUsesTerminating: false,
  }
  if (endpoints.length === 0) return result

  const usesCluster = usesClusterEndpoints(sp)
  if (usesCluster) {
    result.topologyMode = topologyModeFromHints(sp, endpoints, ctx)
    result.clusterEndpoints = endpoints.filter((ep) => ep.ready && availableForTopology(ep, result.topologyMode, ctx))
    // No ready endpoint anywhere (topology already fell back when none matched): use serving+terminating ones.
    if (result.clusterEndpoints.length === 0) result.clusterEndpoints = endpoints.filter((ep) => ep.serving && ep.terminating)
    if (result.clusterEndpoints.length > 0) result.hasAnyEndpoints = true
  }

  if (!usesLocalEndpoints(sp)) {
    result.allReachableEndpoints = result.clusterEndpoints
    return result
  }

  let localReady = false
  let localServingTerminating = false
  for (const ep of endpoints) {
    if (ep.ready) {
      result.hasAnyEndpoints = true
      if (ep.isLocal) localReady = true
    } else if (ep.serving && ep.terminating) {
      result.hasAnyEndpoints = true
      if (ep.isLocal) localServingTerminating = true
    }
  }
  if (localReady) {
    result.localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready)
  } else if (localServingTerminating) {
    result.localUsesTerminating = true
    result.localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating)
  }

  if (!usesCluster) {
    result.allReachableEndpoints = result.localEndpoints
    return result
  }
  if (result.topologyMode === '' && !result.localUsesTerminating) {
    // clusterEndpoints then holds every ready endpoint, a superset of the local ones.
    result.allReachableEndpoints = result.clusterEndpoints
    return result
  }
  const union = new Map<string, EndpointInfo>()
  for (const ep of result.clusterEndpoints) union.set(ep.endpoint, ep)
  for (const ep of result.localEndpoints) union.set(ep.endpoint, ep)
  result.allReachableEndpoints = [...union.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0))
  return result
}
