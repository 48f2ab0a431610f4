// The nftables diff as checks: expected tables from the proxier vs the node's parsed listing → the differences per
// table, finding drafts per NFT check id, and results and findings for every NFT check (a clean node shows each passed).
import {type NftDifference, diffNftables} from '../../diff/nftables.js'
import type {CheckResult, Finding} from '../../model/report.js'
import {type NftRuleset, findNftTable} from '../../parse/nft.js'
import type {NftExpectedTable} from '../../proxier/nftables/table.js'
import {resultsFor} from '../netfilter/drafts.js'
import type {FindingDraft} from '../types.js'
import {NFTABLES_DIFF_SPECS, nftablesFindings} from './specs.js'

export interface NftablesDiffOutcome {
  /** Per table (`ip kube-proxy`, `ip6 kube-proxy`). */
  differences: Array<{table: string; differences: NftDifference[]}>
  results: CheckResult[]
  findings: Finding[]
}

/** Diffs each expected table (one per IP family) against the same table in the node's listing. */
export function diffTablesAgainstListing(expected: readonly NftExpectedTable[], listing: NftRuleset, node: string): NftablesDiffOutcome & {drafts: Map<string, FindingDraft[]>} {
  const differences: NftablesDiffOutcome['differences'] = []
  const drafts = new Map<string, FindingDraft[]>()
  for (const t of expected) {
    const table = `${t.family} ${t.name}`
    const diffs = diffNftables(t, findNftTable(listing, t.family, t.name))
    differences.push({table, differences: diffs})
    for (const [id, list] of nftablesFindings(diffs, table)) drafts.set(id, [...(drafts.get(id) ?? []), ...list])
  }
  return {differences, drafts, ...resultsFor(NFTABLES_DIFF_SPECS, node, drafts)}
}
