// The structured form of the restore input kube-proxy writes, and its exact text (pkg/proxy/iptables/proxier.go
// syncProxyRules: `*filter`, chain lines, rules, `COMMIT`, then the same for `*nat`; no blank lines or comments).
import type {IpFamily} from '../../net/ip.js'

export type IptablesTableName = 'filter' | 'nat'

/** One `-A CHAIN ARGS…` line. */
export interface IptablesRule {
  table: IptablesTableName
  chain: string
  /**
   * The arguments after `-A CHAIN`, as argv tokens: a comment value is one token without quotes, e.g.
   * `ns1/svc1:p80 cluster IP`. (kube-proxy wraps exactly the comments containing spaces in literal `"`s.)
   */
  args: string[]
  /** The service-port name (`ns/name[:port]`) this rule was generated for; absent for the fixed rules. */
  servicePort?: string
}

export interface IptablesTable {
  name: IptablesTableName
  /** Chains declared as `:NAME - [0:0]` (so flushed by the restore), in restore order, including deleted ones. */
  chains: string[]
  /** All `-A` rules in restore order. Chains interleave; the order within one chain is that chain's rule order. */
  rules: IptablesRule[]
  /** Stale chains deleted with `-X` (also declared in `chains`, which flushes them first). */
  deletedChains: string[]
  /** Index into `rules` before which the `-X` lines are written (kube-proxy writes them before the nodeports jump). */
  deletedChainsAt: number
}

/** A full sync's restore input for one IP family. */
export interface IptablesRuleset {
  family: IpFamily
  /** `v1.MINOR` of the kube-proxy whose behaviour was reproduced. */
  version: string
  /** The mark text used in the rules, e.g. `0x00004000`. */
  masqueradeMark: string
  /** More than 1000 endpoints: per-endpoint comments are omitted. */
  largeClusterMode: boolean
  /** Whether localhost NodePorts were in effect after kube-proxy's forcing rules (IPv4 only). */
  localhostNodePorts: boolean
  /** Always filter then nat, as kube-proxy writes them. */
  tables: [IptablesTable, IptablesTable]
  /**
   * Set when the kube-proxy version is newer than the newest layout known (config.ts layoutClampNote): the text
   * outputs start with it as a `#` line, which iptables-restore ignores.
   */
  layoutNote?: string
}

/** The table of that name in a ruleset. */
export function rulesetTable(ruleset: IptablesRuleset, name: IptablesTableName): IptablesTable {
  return name === 'filter' ? ruleset.tables[0] : ruleset.tables[1]
}

/** Rules grouped by chain, each chain in its rule order; every declared chain is present (maybe empty). */
export function rulesByChain(table: IptablesTable): Map<string, IptablesRule[]> {
  const out = new Map<string, IptablesRule[]>()
  for (const c of table.chains) out.set(c, [])
  for (const r of table.rules) {
    let list = out.get(r.chain)
    if (!list) out.set(r.chain, (list = []))
    list.push(r)
  }
  return out
}

/** A token as kube-proxy writes it into the restore input: values with spaces between literal double quotes. */
export function restoreToken(token: string): string {
  return token.includes(' ') ? `"${token}"` : token
}

/** The restore-input line for a rule: `-A CHAIN args…` joined by single spaces. */
export function restoreRuleLine(rule: IptablesRule): string {
  // One join per line: building lines with += leaves a rope per line, which costs a lot of GC at 400k rules.
  const parts = new Array<string>(rule.args.length + 2)
  parts[0] = '-A'
  parts[1] = rule.chain
  for (let i = 0; i < rule.args.length; i++) parts[i + 2] = restoreToken(rule.args[i]!)
  return parts.join(' ')
}

/** The exact iptables-restore input: byte-for-byte what kube-proxy pipes to iptables-restore for a full sync. */
export function serializeRestore(ruleset: IptablesRuleset): string {
  const lines: string[] = ruleset.layoutNote !== undefined ? [`# ${ruleset.layoutNote}`] : []
  for (const table of ruleset.tables) {
    lines.push(`*${table.name}`)
    for (const c of table.chains) lines.push(`:${c} - [0:0]`)
    table.rules.forEach((r, i) => {
      if (i === table.deletedChainsAt) for (const c of table.deletedChains) lines.push(`-X ${c}`)
      lines.push(restoreRuleLine(r))
    })
    if (table.deletedChainsAt >= table.rules.length) for (const c of table.deletedChains) lines.push(`-X ${c}`)
    lines.push('COMMIT')
  }
  lines.push('')
  return lines.join('\n')
}
