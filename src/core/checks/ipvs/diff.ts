// The IPVS diff as checks: expected state from the IPVS proxier vs the node's parsed artifacts → results and
// findings for every IPVS check, so a clean node shows each check as passed.
import {diffIpvs, type IpvsActual, type IpvsDifference} from '../../diff/ipvs.js'
import type {CheckResult, Finding} from '../../model/report.js'
import type {IpvsState} from '../../proxier/ipvs/generate.js'
import {toFindings} from '../types.js'
import {IPVS_DIFF_SPECS, ipvsFindings} from './specs.js'

export interface IpvsDiffOutcome {
  differences: IpvsDifference[]
  results: CheckResult[]
  findings: Finding[]
}

/** Diffs one family's expected IPVS state against the node's state (parts not given are not compared). */
export function diffIpvsAgainstNode(state: IpvsState, actual: IpvsActual, node: string, excludeCIDRs: readonly string[] = []): IpvsDiffOutcome {
  const differences = diffIpvs(state, actual, {excludeCIDRs})
  const byId = ipvsFindings(differences, state.family)
  const results: CheckResult[] = []
  const findings: Finding[] = []
  for (const spec of IPVS_DIFF_SPECS) {
    const drafts = byId.get(spec.id) ?? []
    results.push({id: spec.id, node, area: spec.area, status: drafts.length > 0 ? 'failed' : 'passed'})
    findings.push(...toFindings(spec, node, drafts))
  }
  return {differences, results, findings}
}
