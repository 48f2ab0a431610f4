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
    // Straight from the rule texts, `-A CHAIN BODY` (no rule views): the chain is the word after `-A `, as the
    // parser read it, and rules come in runs per chain, so the name is only sliced and looked up when it changes.
    let chain = ''
    let list: string[] | undefined
    const n = table.ruleCount
    for (let i = 0; i < n; i++) {
      const text = table.ruleText(i)
      let len = chain.length
      if (list === undefined || !text.startsWith(chain, 3) || (text.length !== 3 + len && text.charCodeAt(3 + len) !== 32)) {
        const end = text.indexOf(' ', 3)
        chain = end < 0 ? text.slice(3) : text.slice(3, end)
        len = chain.length
        list = chains.get(chain)
        if (list === undefined) chains.set(chain, (list = []))
      }
      list.push(text.length === 3 + len ? '' : text.slice(4 + len))
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
      else t.set(chain, rules.slice())
    }
    view.set(table, t)
  }
  return {view, requiredJumps}
}

/** Chain → service-port name, from the rules the proxier generated for each service port. */
export function chainGroups(ruleset: IptablesRuleset): Map<string, string> {
  const groups = new Map<string, string>()
  const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|SEP)-/
  for (const table of ruleset.tables) {
    let last: string | undefined
    for (const r of table.rules) {
      // Consecutive rules of one chain: decided by the first.
      if (r.servicePort === undefined || r.chain === last) continue
      last = r.chain
      if (!groups.has(r.chain) && SERVICE_CHAIN.test(r.chain)) groups.set(r.chain, r.servicePort)
    }
  }
  return groups
}
