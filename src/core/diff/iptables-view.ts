// Builds the diff's views: from a parsed iptables-save dump (actual) and from the proxier's saved state (expected).
import type {IptablesDump} from '../parse/iptables-save.js'
import type {IptablesRuleset} from '../proxier/iptables/ruleset.js'
import type {IptablesView, RequiredJump, TableView} from './iptables.js'

const BUILTIN_CHAINS = new Set(['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING'])

/** The node's state: every declared chain (possibly empty) with its rule bodies, counters dropped. */
export function viewFromDump(dump: IptablesDump): IptablesView {
  const view: IptablesView = new Map()
  for (const table of dump.tables) {
    const chains: TableView = new Map()
    for (const c of table.chains) if (!chains.has(c.name)) chains.set(c.name, [])
    for (let i = 0; i < table.ruleCount; i++) {
      const rule = table.rule(i)
      const prefix = `-A ${rule.chain} `
      const body = rule.text.startsWith(prefix) ? rule.text.slice(prefix.length) : rule.text.slice(3 + rule.chain.length).trimStart()
      chains.get(rule.chain)!.push(body)
    }
    view.set(table.name, chains)
  }
  return view
}

/** Expected state from the proxier's saved form: the view, plus the built-in chain jumps that must exist. */
export function viewFromSaved(saved: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>): {view: IptablesView; requiredJumps: RequiredJump[]} {
  const view: IptablesView = new Map()
  const requiredJumps: RequiredJump[] = []
  for (const [table, chains] of saved) {
    const t: TableView = new Map()
    for (const [chain, rules] of chains) {
      if (BUILTIN_CHAINS.has(chain)) for (const rule of rules) requiredJumps.push({table, chain, rule})
      else t.set(chain, [...rules])
    }
    view.set(table, t)
  }
  return {view, requiredJumps}
}

/** Chain → service-port name, from the rules the proxier generated for each service port. */
export function chainGroups(ruleset: IptablesRuleset): Map<string, string> {
  const groups = new Map<string, string>()
  for (const table of ruleset.tables) {
    for (const r of table.rules) {
      if (r.servicePort === undefined) continue
      if (/^KUBE-(SVC|SVL|EXT|FW|SEP)-/.test(r.chain) && !groups.has(r.chain)) groups.set(r.chain, r.servicePort)
    }
  }
  return groups
}
