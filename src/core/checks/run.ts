// Runs checks over snapshots. Pure: same snapshots, same results. Parses each node once (core/facts) and hands the
// facts to every check; skips a check whose inputs are missing or that does not apply to the node.
import {type NodeFacts, RunFacts} from '../facts/node-facts.js'
import type {Applicability} from '../facts/types.js'
import {type ResolvedServicesOwner, SERVICES_OWNER_TITLE} from '../layout/resolve.js'
import {toNodeLayout} from '../layout/summary.js'
import type {Area, CheckResult, CollectionError, Finding, NodeLayout} from '../model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'
import {artifactText} from '../model/snapshot.js'
import {type Check, inProfile, type ProfileSelection} from './types.js'
import {toFindings} from './types.js'

export interface CheckRunOutput {
  results: CheckResult[]
  findings: Finding[]
  /** A check that threw: recorded, never propagated (a bug, but one bad check must not hide the others). */
  errors: CollectionError[]
  /** Each node's resolved layout (core/layout), as reports carry it. */
  layouts: Record<string, NodeLayout>
}

/** ClusterSnapshot fields and the API resource each is read from (as collection errors name it). */
const CLUSTER_RESOURCES: Partial<Record<keyof ClusterSnapshot, string>> = {
  nodes: 'nodes',
  services: 'services',
  endpointSlices: 'endpointslices',
  pods: 'pods',
  daemonSets: 'daemonsets',
  configMaps: 'configmaps',
  serviceCIDRs: 'servicecidrs',
  configz: 'nodes/proxy',
  kubeProxyLogs: 'pods/log',
}

/** Whether a collection error is a failed read of `resource`: its typed field, else (older bundles) its source text. */
export function isFailedRead(e: CollectionError, resource: string): boolean {
  if (e.resource !== undefined) return e.resource === resource && (e.verb === undefined || e.verb === 'list' || e.verb === 'get')
  return new RegExp(`^(list|get) ${resource.replace('/', '\\/')}(\\.|\\s|$)`).test(e.source)
}

/**
 * Names of the required inputs that the snapshots lack. `cluster:<field>` inputs are missing when the field is
 * absent or its read failed (a collection error for its resource); others are node artifacts.
 */
export function missingInputs(check: Check, cluster: ClusterSnapshot, node: NodeSnapshot): string[] {
  return check.spec.requires.filter((input) => {
    if (input.startsWith('cluster:')) {
      const key = input.slice('cluster:'.length) as keyof ClusterSnapshot
      if (cluster[key] === undefined) return true
      const resource = CLUSTER_RESOURCES[key]
      if (resource === undefined) return false
      return cluster.errors.some((e) => isFailedRead(e, resource) && (e.node === undefined || e.node === node.node))
    }
    return artifactText(node, input) === undefined
  })
}

/**
 * Why the check does not apply to the node, or undefined when it does or cannot be decided (a fact the snapshots
 * leave `unknown` never skips: the check runs and judges for itself).
 */
export function notApplicable(when: Applicability | undefined, facts: NodeFacts): string | undefined {
  if (!when) return undefined
  if (when.proxyMode) {
    const mode = facts.proxyMode
    if (mode !== 'unknown' && !when.proxyMode.includes(mode)) return `not applicable: kube-proxy runs in ${mode} mode, not ${when.proxyMode.join(' or ')}`
  }
  if (when.dataplane) {
    const d = facts.dataplane
    if (d !== 'unknown' && !when.dataplane.includes(d)) return `not applicable: the node's dataplane is ${d}, not ${when.dataplane.join(' or ')}`
  }
  if (when.layout) {
    const l = facts.layout
    if (l !== 'unknown' && !when.layout.includes(l)) return `not applicable: the node's network layout is ${l}, not ${when.layout.join(' or ')}`
  }
  if (when.servicesOwner) {
    const o = facts.resolvedLayout.servicesOwner
    if (o.owner !== 'unknown' && !when.servicesOwner.includes(o.owner)) return servicesOwnerReason(o)
  }
  return undefined
}

function safely(f: () => string | undefined): string | undefined {
  try {
    return f()
  } catch {
    return undefined // the runner's own try records a throwing fact computation below
  }
}

/** `Services on this node are implemented by Cilium (kube-proxy-replacement=true in kube-system/cilium-config)`. */
export function servicesOwnerReason(o: ResolvedServicesOwner): string {
  if (o.owner === 'none') return `not applicable: no kube-proxy runs on this node (${o.reason})`
  return `Services on this node are implemented by ${SERVICES_OWNER_TITLE[o.owner]} (${o.reason})`
}

export function runChecks(
  checks: readonly Check[],
  cluster: ClusterSnapshot,
  nodes: readonly NodeSnapshot[],
  options: {areas?: readonly Area[]; facts?: RunFacts; profile?: ProfileSelection} = {},
): CheckRunOutput {
  const out: CheckRunOutput = {results: [], findings: [], errors: [], layouts: {}}
  // Checks outside the profile are not run at all: not results, not skipped noise.
  const inAreas = options.areas && options.areas.length > 0 ? checks.filter((c) => options.areas!.includes(c.spec.area)) : checks
  const selected = inAreas.filter((c) => inProfile(c.spec, options.profile))
  const run = options.facts ?? new RunFacts(cluster)
  for (const node of nodes) {
    const facts = run.forNode(node)
    try {
      out.layouts[node.node] = toNodeLayout(facts.resolvedLayout)
    } catch (err) {
      out.errors.push({node: node.node, source: 'layout', message: `internal error: ${(err as Error).message}`})
    }
    for (const check of selected) {
      const base = {id: check.spec.id, node: node.node, area: check.spec.area}
      // Another Services owner outranks missing inputs: the reason a person needs is who implements Services.
      const owned = check.when?.servicesOwner ? safely(() => notApplicable({servicesOwner: check.when!.servicesOwner!}, facts)) : undefined
      if (owned !== undefined) {
        out.results.push({...base, status: 'skipped', reason: owned})
        continue
      }
      const missing = missingInputs(check, cluster, node)
      if (missing.length > 0) {
        // A check that does not apply here (another proxy mode, dataplane, layout) says so rather than asking for
        // inputs it would not read anyway (an nftables check on an iptables node of a bundle without nft output).
        const skip = safely(() => notApplicable(check.when, facts))
        out.results.push({...base, status: 'skipped', reason: skip ?? `missing input: ${missing.join(', ')}`})
        continue
      }
      try {
        const skip = notApplicable(check.when, facts)
        if (skip !== undefined) {
          out.results.push({...base, status: 'skipped', reason: skip})
          continue
        }
        const outcome = check.run({cluster, node, facts})
        if (outcome.status === 'failed' && outcome.findings.length > 0) {
          out.results.push({...base, status: 'failed'})
          out.findings.push(...toFindings(check.spec, node.node, outcome.findings))
        } else if (outcome.status === 'skipped') {
          out.results.push({...base, status: 'skipped', reason: outcome.reason})
        } else {
          out.results.push({...base, status: 'passed'})
        }
      } catch (err) {
        out.results.push({...base, status: 'skipped', reason: 'internal error in check'})
        out.errors.push({node: node.node, source: `check ${check.spec.id}`, message: `internal error: ${(err as Error).message}`})
      }
    }
  }
  return out
}
