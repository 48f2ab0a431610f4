// The nftables diff as checks: expected tables from the proxier vs the node's parsed listing → results and findings
// for every NFT check, so a clean node shows each check as passed.
import {type NftDifference, diffNftables} from '../../diff/nftables.js'
import type {CheckResult, Finding} from '../../model/report.js'
import {type NftRuleset, findNftTable} from '../../parse/nft.js'
import type {NftExpectedTable} from '../../proxier/nftables/table.js'
import {type FindingDraft, toFindings} from '../types.js'
import {NFTABLES_DIFF_SPECS, nftablesFindings} from './specs.js'

export interface NftablesDiffOutcome {
  /** Per table (`ip kube-proxy`, `ip6 kube-proxy`). */
  differences: Array<{table: string; differences: NftDifference[]}>
  results: CheckResult[]
  findings: Finding[]
}

/** Diffs each expected table (one per IP family) against the same table in the node's listing. */
export function diffTablesAgainstListing(expected: readonly NftExpectedTable[], listing: NftRuleset, node: string): NftablesDiffOutcome {
  const differences: NftablesDiffOutcome['differences'] = []
  const drafts = new Map<string, FindingDraft[]>()
  for (const t of expected) {
    const table = `${t.family} ${t.name}`
    const diffs = diffNftables(t, findNftTable(listing, t.family, t.name))
    differences.push({table, differences: diffs})
    for (const [id, list] of nftablesFindings(diffs, table)) drafts.set(id, [...(drafts.get(id) ?? []), ...list])
  }
  const results: CheckResult[] = []
  const findings: Finding[] = []
  for (const spec of NFTABLES_DIFF_SPECS) {
    const list = drafts.get(spec.id) ?? []
    results.push({id: spec.id, node, area: spec.area, status: list.length > 0 ? 'failed' : 'passed'})
    findings.push(...toFindings(spec, node, list))
  }
  return {differences, results, findings}
}
