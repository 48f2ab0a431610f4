// The Report of `proxy diff`, the same for the three modes: one node, the mode's results and findings, and metadata
// naming the tool, the command, the context and the kube-proxy version rendered, then the mode's own annotations.
// The node carries what the expected state assumed (version, mode, configuration, runtime facts, with sources), and
// a version that is newer than the newest layout or was not found is said as a finding (PROXY-011, PROXY-012).
// Each finding says what it breaks (core/impact's attachImpact, as `check` and `analyze` do), over the Services and
// EndpointSlices the rules were rendered from.
import {objectProblemsOutcome} from '../../core/checks/objects/specs.js'
import {versionFindings} from '../../core/checks/proxy-mode/version.js'
import type {IpvsServiceDiff} from '../../core/diff/ipvs-view.js'
import {attachImpact} from '../../core/impact/impact.js'
import {buildReport, type CheckResult, type Finding, type Report} from '../../core/model/report.js'
import {type ClusterSnapshot, emptyClusterSnapshot} from '../../core/model/snapshot.js'
import {type AssumptionContext, assumptionsFor} from '../../core/proxier/assumptions.js'
import {formatFullKubeProxyVersion, formatKubeProxyVersion} from '../../core/proxier/config.js'
import type {ObjectProblem} from '../../core/proxier/objects.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import type {DiffLine} from '../dashboard/service-detail.js'
import type {ProxyMeta} from './input.js'

/** What `proxy diff` answers: the Report, and the rule diff the table view prints above it. */
export interface ProxyDiff {
  report: Report
  /** iptables and nftables modes: the differences as `-`/`+` lines per Service port (empty when the rules match). */
  ruleDiff?: ServiceRuleDiff[]
  /** IPVS mode: the differences per Service port and virtual server (empty when the node matches). */
  ipvsDiff?: IpvsServiceDiff[]
}

/** One Service port's rule differences; `service` absent for those no Service owns (built-in chain jumps). */
export interface ServiceRuleDiff {
  service?: string
  lines: DiffLine[]
}

/** What the render assumed, for a proxy command: the mode asked for, runtime facts from the node (live) or the flags. */
export function proxyAssumptionContext(mode: string, live: boolean, iptablesBackend?: string): AssumptionContext {
  return {
    mode: {value: mode, source: '--mode'},
    factsFrom: live ? 'node' : 'flags',
    ...(iptablesBackend ? {iptablesBackend: {value: iptablesBackend, source: live ? "the node's iptables-save" : 'the iptables-save file'}} : {}),
  }
}

export function proxyDiffReport(
  render: RenderInput & {objectProblems?: readonly ObjectProblem[]},
  outcome: {results: CheckResult[]; findings: Finding[]},
  meta: ProxyMeta & {context?: string | undefined},
  annotations: Record<string, string>,
): Report {
  // Objects left out of (or kept oddly in) the rendering: EP-003, after the mode's own checks.
  const objects = objectProblemsOutcome(render.objectProblems ?? [], render.node.metadata.name)
  const node = render.node.metadata.name
  const assumptions = assumptionsFor(render, proxyAssumptionContext(annotations['proxyMode'] ?? 'iptables', meta.context !== undefined, annotations['iptablesBackend']))
  const versionNotes = versionFindings(render.resolution, node)
  const results: CheckResult[] = [...outcome.results, ...[...new Set(versionNotes.map((f) => f.id))].map((id) => ({id, node, area: 'proxy-mode' as const, status: 'failed' as const}))]
  const generatedAt = new Date().toISOString()
  return buildReport({
    metadata: {
      generatedAt,
      tool: {name: 'node-doctor', version: meta.toolVersion},
      command: meta.command,
      ...(meta.context ? {context: meta.context} : {}),
      annotations: {
        kubeProxyVersion: formatKubeProxyVersion(render.version),
        kubeProxyVersionSource: render.versionSource,
        ...(render.newerThanKnown ? {kubeProxyVersionDetected: formatFullKubeProxyVersion(render.newerThanKnown)} : {}),
        ...annotations,
      },
    },
    nodes: [{name: node, assumptions}],
    results: [...results, ...objects.results],
    findings: attachImpact(renderedObjects(render, generatedAt), [...outcome.findings, ...versionNotes, ...objects.findings]),
  })
}

/**
 * The objects the rules were rendered from, as the snapshot impact reads: Services and EndpointSlices (a rule
 * finding's impact is its Service port's endpoints). No pods: they only place route findings, which proxy diff has not.
 */
function renderedObjects(render: RenderInput, collectedAt: string): ClusterSnapshot {
  return {...emptyClusterSnapshot(collectedAt), services: [...render.input.services], endpointSlices: [...render.input.endpointSlices]}
}
