// The Report of `proxy diff`, the same for the three modes: one node, the mode's results and findings, and metadata
// naming the tool, the command, the context and the kube-proxy version rendered, then the mode's own annotations.
import {objectProblemsOutcome} from '../../core/checks/objects/specs.js'
import {buildReport, type CheckResult, type Finding, type Report} from '../../core/model/report.js'
import type {ObjectProblem} from '../../core/proxier/objects.js'
import {formatKubeProxyVersion} from '../../core/proxier/config.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import type {ProxyMeta} from './input.js'

export function proxyDiffReport(
  render: RenderInput & {objectProblems?: readonly ObjectProblem[]},
  outcome: {results: CheckResult[]; findings: Finding[]},
  meta: ProxyMeta & {context?: string | undefined},
  annotations: Record<string, string>,
): Report {
  // Objects left out of (or kept oddly in) the rendering: EP-003, after the mode's own checks.
  const objects = objectProblemsOutcome(render.objectProblems ?? [], render.node.metadata.name)
  return buildReport({
    metadata: {
      generatedAt: new Date().toISOString(),
      tool: {name: 'node-doctor', version: meta.toolVersion},
      command: meta.command,
      ...(meta.context ? {context: meta.context} : {}),
      annotations: {kubeProxyVersion: formatKubeProxyVersion(render.version), kubeProxyVersionSource: render.versionSource, ...annotations},
    },
    nodes: [{name: render.node.metadata.name}],
    results: [...outcome.results, ...objects.results],
    findings: [...outcome.findings, ...objects.findings],
  })
}
