// Runs checks over snapshots. Pure: same snapshots, same results.
import type {Area, CheckResult, CollectionError, Finding} from '../model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../model/snapshot.js'
import {artifactText} from '../model/snapshot.js'
import type {Check} from './types.js'
import {toFindings} from './types.js'

export interface CheckRunOutput {
  results: CheckResult[]
  findings: Finding[]
  /** A check that threw: recorded, never propagated (a bug, but one bad check must not hide the others). */
  errors: CollectionError[]
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

/**
 * Names of the required inputs that the snapshots lack. `cluster:<field>` inputs are missing when the field is
 * absent or its read failed (a collection error `list <resource>` / `get <resource>`); others are node artifacts.
 */
export function missingInputs(check: Check, cluster: ClusterSnapshot, node: NodeSnapshot): string[] {
  return check.spec.requires.filter((input) => {
    if (input.startsWith('cluster:')) {
      const key = input.slice('cluster:'.length) as keyof ClusterSnapshot
      if (cluster[key] === undefined) return true
      const resource = CLUSTER_RESOURCES[key]
      if (resource === undefined) return false
      const re = new RegExp(`^(list|get) ${resource.replace('/', '\\/')}(\\.|\\s|$)`)
      return cluster.errors.some((e) => re.test(e.source) && (e.node === undefined || e.node === node.node))
    }
    return artifactText(node, input) === undefined
  })
}

export function runChecks(
  checks: readonly Check[],
  cluster: ClusterSnapshot,
  nodes: readonly NodeSnapshot[],
  options: {areas?: readonly Area[]} = {},
): CheckRunOutput {
  const out: CheckRunOutput = {results: [], findings: [], errors: []}
  const selected = options.areas && options.areas.length > 0 ? checks.filter((c) => options.areas!.includes(c.spec.area)) : checks
  for (const node of nodes) {
    for (const check of selected) {
      const base = {id: check.spec.id, node: node.node, area: check.spec.area}
      const missing = missingInputs(check, cluster, node)
      if (missing.length > 0) {
        out.results.push({...base, status: 'skipped', reason: `missing input: ${missing.join(', ')}`})
        continue
      }
      try {
        const outcome = check.run({cluster, node})
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
