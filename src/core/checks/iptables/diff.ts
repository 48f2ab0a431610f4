// The iptables rule diff as checks: expected state from the proxier vs the node's dump → the differences, and
// finding drafts per IPT check id (the checks' outcomes); `diffRulesetAgainstDump` also builds results and
// findings for every IPT check (for `proxy diff`), so a clean node shows each check as passed.
import {diffIptables, type IptablesDifference} from '../../diff/iptables.js'
import {chainGroups, viewFromDump, viewFromSaved} from '../../diff/iptables-view.js'
import type {CheckResult, Finding} from '../../model/report.js'
import type {IptablesDump} from '../../parse/iptables-save.js'
import type {IptablesRuleset} from '../../proxier/iptables/ruleset.js'
import {savedState} from '../../proxier/iptables/save.js'
import {resultsFor} from '../netfilter/drafts.js'
import type {FindingDraft} from '../types.js'
import {IPTABLES_DIFF_SPECS, iptablesFindings} from './specs.js'

export interface IptablesDiffOutcome {
  differences: IptablesDifference[]
  results: CheckResult[]
  findings: Finding[]
}

/** The differences between one family's expected ruleset and the node's parsed dump of the same family. */
export function iptablesDifferences(ruleset: IptablesRuleset, dump: IptablesDump): IptablesDifference[] {
  const {view, requiredJumps} = viewFromSaved(savedState(ruleset))
  return diffIptables(view, viewFromDump(dump), {chainGroups: chainGroups(ruleset), requiredJumps})
}

/** Diffs one family's expected ruleset against the node's parsed dump: differences, drafts by id, results, findings. */
export function diffRulesetAgainstDump(ruleset: IptablesRuleset, dump: IptablesDump, node: string): IptablesDiffOutcome & {drafts: Map<string, FindingDraft[]>} {
  const differences = iptablesDifferences(ruleset, dump)
  const drafts = iptablesFindings(differences, ruleset.family)
  return {differences, drafts, ...resultsFor(IPTABLES_DIFF_SPECS, node, drafts)}
}
