// The IPVS diff as checks: expected state from the IPVS proxier vs the node's parsed artifacts → the differences,
// finding drafts per IPVS check id, and results and findings for every IPVS check (a clean node shows each passed).
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
  const differences = diffIpvs(state, actual, {excludeCIDRs})
  const drafts = ipvsFindings(differences, state.family)
  return {differences, drafts, ...resultsFor(IPVS_DIFF_SPECS, node, drafts)}
}
