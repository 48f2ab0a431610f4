// Catalog entry for malformed objects the embedded proxier reads (Services, EndpointSlices, Nodes, the kube-proxy
// ConfigMap): an --objects file, a hand-edited bundle, or an API answer the proxier cannot read. Never fatal: the
// object is left out (or kept, when kube-proxy takes the value as is) and this finding says so.
import {formatObjectProblem, type ObjectProblem} from '../../proxier/objects.js'
import type {CheckResult, Finding} from '../../model/report.js'
import {type CheckSpec, type FindingDraft, toFindings} from '../types.js'

export const EP_INVALID_OBJECT: CheckSpec = {
  id: 'EP-003',
  area: 'endpoints',
  severity: 'warning',
  title: 'A Service, EndpointSlice, Node or ConfigMap the proxier reads is malformed (left out) or holds a value kube-proxy takes as is',
  looksAt:
    'The fields the embedded kube-proxy proxier reads from every Service, EndpointSlice, Node and ConfigMap (types, ranges, names): ' +
    'in `proxy render|diff` the --objects files, in `check` and `analyze` the objects read from the API or the bundle. Reported ' +
    "on every node checked, as every node's kube-proxy reads them.",
  why:
    'An object the proxier cannot read is left out of the expected state: the rules of its Service are neither rendered nor ' +
    'compared, so the run says nothing about it. The API server rejects such objects, so it usually means a hand-written, edited ' +
    'or truncated objects file or bundle. A Service port 0 is different: the API server rejects it but kube-proxy does not ' +
    'validate it, so it is kept and rendered on port 0, as kube-proxy would program it.',
  remedy:
    'Correct the object where the finding points (file, line, object and field), or export the objects again with ' +
    '`kubectl get services,endpointslices,nodes -A -o yaml` and `kubectl -n kube-system get configmap kube-proxy -o yaml`. ' +
    'A Service with port 0 in a cluster: set its spec.ports[].port to the port clients use.',
  requires: ['cluster:services', 'cluster:endpointSlices'],
}

/** One finding draft per problem, naming the input, the object and the field. */
export function objectProblemDrafts(problems: readonly ObjectProblem[]): FindingDraft[] {
  return problems.map((p) => ({
    message: formatObjectProblem(p),
    subject: {kind: p.kind ?? 'object', name: p.name ?? p.object, ...(p.namespace !== undefined ? {namespace: p.namespace} : {}), ...(p.source !== 'cluster' ? {in: p.source} : {})},
    evidence: [
      `${p.source}${p.line !== undefined ? ` line ${p.line}` : ''}: ${p.object}${p.field !== undefined ? ` ${p.field}` : ''}`,
      p.effect === 'skipped' ? 'left out of the expected state' : 'kept, rendered as kube-proxy programs it',
    ],
  }))
}

/**
 * EP-003's result and findings for one node when some objects had problems (`proxy render|diff` from files);
 * nothing when there were none, so reports of clean inputs stay as they were.
 */
export function objectProblemsOutcome(problems: readonly ObjectProblem[], node: string): {results: CheckResult[]; findings: Finding[]} {
  if (problems.length === 0) return {results: [], findings: []}
  return {
    results: [{id: EP_INVALID_OBJECT.id, node, area: EP_INVALID_OBJECT.area, status: 'failed'}],
    findings: toFindings(EP_INVALID_OBJECT, node, objectProblemDrafts(problems)),
  }
}
