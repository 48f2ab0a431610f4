// The expected state of a generated ruleset as trace rules, straight from the model (savedState): the same chains,
// rule texts, policies and line numbers as parseIptablesSave(serializeSave(ruleset)), without printing the whole
// state as text and parsing it back. Rules are parsed only when the walk reaches them.
import {IptablesRule} from '../iptables/save.js'
import type {IptablesRuleset} from '../proxier/iptables/ruleset.js'
import {BUILTIN_CHAINS, savedState} from '../proxier/iptables/save.js'
import type {TraceChain, TraceRules, TraceTable} from './rules.js'

/** Trace rules for the state a full sync of `ruleset` leaves (as serializeSave prints it). */
export function expectedTraceRules(ruleset: IptablesRuleset): TraceRules {
  const tables = new Map<string, TraceTable>()
  // Line numbers as serializeSave lays the text out: `*table`, one line per chain, the rules chain by chain, COMMIT.
  let line = 0
  for (const [tableName, table] of savedState(ruleset)) {
    line += 1 + table.size
    const builtins: readonly string[] = BUILTIN_CHAINS[tableName]
    const chains = new Map<string, TraceChain>()
    for (const [chain, bodies] of table) {
      const first = line + 1
      line += bodies.length
      let rules: IptablesRule[] | undefined
      chains.set(chain, {
        policy: builtins.includes(chain) ? 'ACCEPT' : null,
        eachRule: () => (rules ??= bodies.map((body, i) => new IptablesRule(chain, `-A ${chain} ${body}`, first + i, null))),
      })
    }
    line += 1
    tables.set(tableName, {chain: (name) => chains.get(name)})
  }
  return {family: ruleset.family, table: (name) => tables.get(name)}
}
