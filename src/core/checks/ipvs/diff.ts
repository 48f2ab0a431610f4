// The IPVS diff as checks: expected state from the IPVS proxier vs the node's parsed artifacts → the differences,
// finding drafts per IPVS check id, and results and findings for every IPVS check (a clean node shows each passed).
// A dual-stack node runs one IPVS proxier per family: each family's state is diffed and the findings merged.
import {diffIpvs, type IpvsActual, type IpvsDifference} from '../../diff/ipvs.js'
import type {CheckResult, Finding} from '../../model/report.js'
import type {IpvsState} from '../../proxier/ipvs/generate.js'
import {resultsFor} from '../netfilter/drafts.js'
import type {FindingDraft} from '../types.js'
import {IPVS_DIFF_SPECS, ipvsFindings} from './specs.js'

export interface IpvsDiffOutcome {
  differences: IpvsDifference[]
  results: CheckResult[]
  findings: Finding[]
}

/** Diffs one family's expected IPVS state against the node's state (parts not given are not compared). */
export function diffIpvsAgainstNode(state: IpvsState, actual: IpvsActual, node: string, excludeCIDRs: readonly string[] = []): IpvsDiffOutcome & {drafts: Map<string, FindingDraft[]>} {
  return diffIpvsFamilies([{state, actual}], node, excludeCIDRs)
}

/** Diffs each family's state against the node's (in the order given) and reports them as one set of IPVS checks. */
export function diffIpvsFamilies(
  families: ReadonlyArray<{state: IpvsState; actual: IpvsActual}>,
  node: string,
  excludeCIDRs: readonly string[] = [],
): IpvsDiffOutcome & {drafts: Map<string, FindingDraft[]>} {
  const differences: IpvsDifference[] = []
  const drafts = new Map<string, FindingDraft[]>()
  for (const {state, actual} of families) {
    const d = diffIpvs(state, actual, {excludeCIDRs})
    differences.push(...d)
    for (const [id, list] of ipvsFindings(d, state.family)) drafts.set(id, [...(drafts.get(id) ?? []), ...list])
  }
  return {differences, drafts, ...resultsFor(IPVS_DIFF_SPECS, node, drafts)}
}
