// What the iptables, IPVS and nftables diffs share on the way from differences to checks: evidence clipping, and
// the per-check results and findings `proxy diff` prints for one node.
import type {CheckResult, Finding} from '../../model/report.js'
import {type CheckSpec, type FindingDraft, toFindings} from '../types.js'

const MAX_EVIDENCE = 20

/** Said with every IPVS remedy that could tempt someone to flush. */
export const NEVER_CLEANUP =
  'Never run `kube-proxy --cleanup` or `ipvsadm -C` on a live IPVS node: they flush ALL virtual servers, the live ones and any other agent\'s (keepalived, kube-vip).'

/** At most 20 evidence lines, then `... N more`. */
export function clip(lines: readonly string[]): string[] {
  return lines.length <= MAX_EVIDENCE ? [...lines] : [...lines.slice(0, MAX_EVIDENCE), `... ${lines.length - MAX_EVIDENCE} more`]
}

export function forGroup(group: string | undefined): string {
  return group ? ` (${group})` : ''
}

/** Adds a draft under its check id. */
export function addDraft(byId: Map<string, FindingDraft[]>, id: string, draft: FindingDraft, group?: string): void {
  if (group !== undefined) draft.group = group
  const list = byId.get(id) ?? []
  list.push(draft)
  byId.set(id, list)
}

/** A result for every spec (failed when it has drafts) and the findings, for one node. */
export function resultsFor(specs: readonly CheckSpec[], node: string, drafts: ReadonlyMap<string, FindingDraft[]>): {results: CheckResult[]; findings: Finding[]} {
  const results: CheckResult[] = []
  const findings: Finding[] = []
  for (const spec of specs) {
    const list = drafts.get(spec.id) ?? []
    results.push({id: spec.id, node, area: spec.area, status: list.length > 0 ? 'failed' : 'passed'})
    findings.push(...toFindings(spec, node, list))
  }
  return {results, findings}
}
