// The iptables rule diff as checks: expected state from the proxier vs the node's dump → results and findings
// for every IPT check, so a clean node shows each check as passed.
import {diffIptables, type IptablesDifference} from '../../diff/iptables.js'
import {chainGroups, viewFromDump, viewFromSaved} from '../../diff/iptables-view.js'
import type {CheckResult, Finding} from '../../model/report.js'
import type {IptablesDump} from '../../parse/iptables-save.js'
import type {IptablesRuleset} from '../../proxier/iptables/ruleset.js'
import {savedState} from '../../proxier/iptables/save.js'
import {toFindings} from '../types.js'
import {IPTABLES_DIFF_SPECS, iptablesFindings} from './specs.js'

export interface IptablesDiffOutcome {
  differences: IptablesDifference[]
  results: CheckResult[]
  findings: Finding[]
}

/** Diffs one family's expected ruleset against the node's parsed dump of the same family. */
export function diffRulesetAgainstDump(ruleset: IptablesRuleset, dump: IptablesDump, node: string): IptablesDiffOutcome {
  const {view, requiredJumps} = viewFromSaved(savedState(ruleset))
  const differences = diffIptables(view, viewFromDump(dump), {chainGroups: chainGroups(ruleset), requiredJumps})
  const byId = iptablesFindings(differences, ruleset.family)
  const results: CheckResult[] = []
  const findings: Finding[] = []
  for (const spec of IPTABLES_DIFF_SPECS) {
    const drafts = byId.get(spec.id) ?? []
    results.push({id: spec.id, node, area: spec.area, status: drafts.length > 0 ? 'failed' : 'passed'})
    findings.push(...toFindings(spec, node, drafts))
  }
  return {differences, results, findings}
}
