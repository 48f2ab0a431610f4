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
    // The lists by declaration index too: iptables-save prints rules chain by chain in declaration order, so the
    // rules' chain is found by walking forward from the previous one, without a map lookup.
    const declared = table.chains
    const lists: string[][] = []
    for (let d = 0; d < declared.length; d++) {
      const c = declared[d]!
      const size = chains.size
      let list: string[] = []
      chains.set(c.name, list)
      // A second declaration (the parser rejects those) shares the first one's list.
      if (chains.size === size) chains.set(c.name, (list = lists[declared.findIndex((x) => x.name === c.name)]!))
      lists.push(list)
    }
    // Straight from the rule texts, `-A CHAIN BODY` (no rule views); the chain is the word after `-A `, as the
    // parser read it.
    let k = 0
    let name = declared.length > 0 ? declared[0]!.name : ''
    let list = lists[0]
    const n = table.ruleCount
    for (let i = 0; i < n; i++) {
      const text = table.ruleText(i)
      if (list === undefined || !startsWithChain(text, name)) {
        let found = false
        for (let step = 1; step <= 8 && k + step < declared.length; step++) {
          const cand = declared[k + step]!.name
          if (startsWithChain(text, cand)) {
            k += step
            name = cand
            list = lists[k]
            found = true
            break
          }
        }
        if (!found) {
          const end = text.indexOf(' ', 3)
          name = end < 0 ? text.slice(3) : text.slice(3, end)
          // The parser only accepts rules of declared chains.
          const chain = table.chain(name)
          if (chain !== undefined) {
            k = chain.index
            list = lists[k]
          } else {
            list = chains.get(name)
            if (list === undefined) chains.set(name, (list = []))
          }
        }
      }
      list!.push(text.length === 3 + name.length ? '' : text.slice(4 + name.length))
    }
    view.set(table.name, chains)
  }
  return view
}

/** Whether a rule text `-A CHAIN …` is for `chain` (the chain name ends at a blank or the end of the text). */
function startsWithChain(text: string, chain: string): boolean {
  const end = 3 + chain.length
  return text.startsWith(chain, 3) && (text.length === end || text.charCodeAt(end) === 32)
}

/** Expected state from the proxier's saved form: the view, plus the built-in chain jumps that must exist. */
export function viewFromSaved(saved: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>): {view: IptablesView; requiredJumps: RequiredJump[]} {
  const view: IptablesView = new Map()
  const requiredJumps: RequiredJump[] = []
  for (const [table, chains] of saved) {
    const t: TableView = new Map()
    // forEach: no entry array per chain (for…of over a map allocates them until optimised).
    chains.forEach((rules, chain) => {
      if (BUILTIN_CHAINS.has(chain)) for (const rule of rules) requiredJumps.push({table, chain, rule})
      else t.set(chain, rules.slice())
    })
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
    const rules = table.rules
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i]!
      // Consecutive rules of one chain: decided by the first.
      if (r.servicePort === undefined || r.chain === last) continue
      last = r.chain
      if (!groups.has(r.chain) && SERVICE_CHAIN.test(r.chain)) groups.set(r.chain, r.servicePort)
    }
  }
  return groups
}
