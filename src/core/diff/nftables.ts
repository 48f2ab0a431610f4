// Semantic diff of kube-proxy's nftables table: the expected table (embedded proxier) against the node's listing
// (`nft list table ip kube-proxy` or `nft -j list ruleset`, parsed by parse/nft.ts). Chains, sets and maps are
// compared by name (listing order is not meaningful), rules within a chain as a multiset and then in order, set and
// map elements as sets keyed by their key (nft's element order and element comments carry no meaning). Counters
// and handles are ignored; the elements of dynamic sets (session affinity) are runtime state and not compared.
import type {NftChain, NftSet, NftTable} from '../parse/nft.js'
import {servicePartOfName} from '../proxier/nftables/names.js'
import type {NftExpectedChain, NftExpectedSet, NftExpectedTable} from '../proxier/nftables/table.js'

export type NftDifference =
  | {kind: 'missing-table'; table: string}
  | {kind: 'missing-chain'; chain: string; expectedRules: string[]; group?: string}
  | {kind: 'stale-chain'; chain: string; actualRules: string[]; group?: string}
  | {kind: 'missing-rule'; chain: string; rule: string; group?: string}
  | {kind: 'extra-rule'; chain: string; rule: string; group?: string}
  | {kind: 'misordered'; chain: string; expected: string[]; actual: string[]; group?: string}
  | {kind: 'missing-element'; set: string; element: string; group?: string}
  | {kind: 'extra-element'; set: string; element: string; group?: string}
  | {kind: 'wrong-element'; set: string; key: string; expected: string; actual: string; group?: string}
  | {kind: 'definition'; object: string; detail: string; group?: string}

/** A rule as compared: counters dropped, whitespace collapsed, one-element anonymous sets without braces. */
export function normalizeNftRule(text: string): string {
  // Most rules need nothing: no counter, no braces, single spaces.
  if (!text.includes('counter') && !text.includes('{') && !UNCOLLAPSED.test(text)) return text
  return text
    .replace(/(^|\s)counter(?: packets \d+ bytes \d+)?(?=\s|$)/g, '$1')
    .replace(/\{\s*([^{},\s]+)\s*\}/g, (m, one: string, offset: number, all: string) => (/(vmap|map|update @\S+|add @\S+)\s*$/.test(all.slice(0, offset)) ? m : one))
    .replace(/\s+/g, ' ')
    .trim()
}

/** Whitespace that `.replace(/\s+/g, ' ').trim()` would change: anything but a single space between words. */
const UNCOLLAPSED = /[^\S ]|  |^ | $/

function normalizeKey(text: string): string {
  return UNCOLLAPSED.test(text) ? text.replace(/\s+/g, ' ').trim() : text
}

/** Rule texts equal as printed, so equal once normalised too (nft lists the rules as the proxier renders them). */
function sameRuleTexts(a: readonly {text: string}[], b: readonly {text: string}[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i]!.text !== b[i]!.text) return false
  return true
}

/** Service-port name (`ns/svc:port`) for chains and sets of the expected table, by the `ns/svc/proto/port` in names. */
function groupIndex(expected: NftExpectedTable): Map<string, string> {
  const idx = new Map<string, string>()
  for (const c of expected.chains) {
    const part = servicePartOfName(c.name)
    if (part && c.servicePort) idx.set(part, c.servicePort)
  }
  for (const s of expected.sets) {
    const part = servicePartOfName(s.name)
    if (part && s.servicePort) idx.set(part, s.servicePort)
  }
  return idx
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const counts = new Map<string, number>()
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1)
  const out: string[] = []
  for (const x of a) {
    const n = counts.get(x) ?? 0
    if (n > 0) counts.set(x, n - 1)
    else out.push(x)
  }
  return out
}

function withGroup<T extends object>(d: T, group: string | undefined): T & {group?: string} {
  return group === undefined ? d : {...d, group}
}

/** Differences between the expected table and the actual one (undefined: the node has no such table). */
export function diffNftables(expected: NftExpectedTable, actual: NftTable | undefined): NftDifference[] {
  const tableName = `${expected.family} ${expected.name}`
  if (!actual) return [{kind: 'missing-table', table: tableName}]
  const out: NftDifference[] = []
  // Groups are only looked up for differences: built on the first one, not for the 100k chains that have none.
  let groups: Map<string, string> | undefined
  const groupOfName = (name: string, owner?: string): string | undefined => {
    if (owner !== undefined) return owner
    const part = servicePartOfName(name)
    return part === undefined ? undefined : ((groups ??= groupIndex(expected)).get(part) ?? part)
  }

  const actualIndex = new Map<string, number>()
  actual.chains.forEach((c, i) => actualIndex.set(c.name, i))
  // When every one of the node's chains is matched, none is stale: no set of the expected names to build.
  const matched = new Uint8Array(actual.chains.length)
  let unmatched = actual.chains.length
  for (const ec of expected.chains) {
    const i = actualIndex.get(ec.name)
    if (i === undefined) {
      out.push(withGroup({kind: 'missing-chain' as const, chain: ec.name, expectedRules: ec.rules.map((r) => normalizeNftRule(r.text))}, groupOfName(ec.name, ec.servicePort)))
      continue
    }
    if (matched[i] === 0) {
      matched[i] = 1
      unmatched--
    }
    const ac = actual.chains[i]!
    const def = baseChainDetail(ec, ac)
    if (def === undefined && sameRuleTexts(ec.rules, ac.rules)) continue
    const group = groupOfName(ec.name, ec.servicePort)
    if (def) out.push(withGroup({kind: 'definition' as const, object: `chain ${ec.name}`, detail: def}, group))
    const want = ec.rules.map((r) => normalizeNftRule(r.text))
    const have = ac.rules.map((r) => normalizeNftRule(r.text))
    // Nearly every chain of a healthy node is exactly as expected: no multisets to build for those.
    if (sameList(want, have)) continue
    const missing = multisetMinus(want, have)
    const extra = multisetMinus(have, want)
    const ruleOwner = new Map(ec.rules.map((r) => [normalizeNftRule(r.text), r.servicePort]))
    for (const r of missing) out.push(withGroup({kind: 'missing-rule' as const, chain: ec.name, rule: r}, ruleOwner.get(r) ?? group))
    for (const r of extra) out.push(withGroup({kind: 'extra-rule' as const, chain: ec.name, rule: r}, group ?? ruleGroup(r, groupOfName)))
    if (missing.length === 0 && extra.length === 0 && want.some((r, i) => r !== have[i])) {
      out.push(withGroup({kind: 'misordered' as const, chain: ec.name, expected: want, actual: have}, group))
    }
  }
  if (unmatched > 0) {
    const expectedChains = new Set(expected.chains.map((c) => c.name))
    for (const ac of actual.chains) {
      if (expectedChains.has(ac.name)) continue
      out.push(withGroup({kind: 'stale-chain' as const, chain: ac.name, actualRules: ac.rules.map((r) => normalizeNftRule(r.text))}, groupOfName(ac.name)))
    }
  }

  const actualSets = new Map<string, NftSet>(actual.sets.map((s) => [s.name, s]))
  const expectedSets = new Set(expected.sets.map((s) => s.name))
  for (const es of expected.sets) {
    const as = actualSets.get(es.name)
    const group = groupOfName(es.name, es.servicePort)
    if (!as) {
      out.push(withGroup({kind: 'definition' as const, object: `${es.kind} ${es.name}`, detail: 'missing'}, group))
      continue
    }
    const def = setDetail(es, as)
    if (def) out.push(withGroup({kind: 'definition' as const, object: `${es.kind} ${es.name}`, detail: def}, group))
    if (es.dynamic) continue
    const have = new Map(as.elements.map((e) => [normalizeKey(e.key), e.value === undefined ? undefined : normalizeKey(e.value)]))
    const want = new Set<string>()
    for (const e of es.elements) {
      const k = normalizeKey(e.key)
      want.add(k)
      if (!have.has(k)) out.push(withGroup({kind: 'missing-element' as const, set: es.name, element: e.value === undefined ? k : `${k} : ${e.value}`}, e.servicePort))
      else if (e.value !== undefined && have.get(k) !== normalizeKey(e.value)) {
        out.push(withGroup({kind: 'wrong-element' as const, set: es.name, key: k, expected: e.value, actual: have.get(k) ?? ''}, e.servicePort))
      }
    }
    for (const e of as.elements) {
      const k = normalizeKey(e.key)
      if (want.has(k)) continue
      const value = e.value === undefined ? undefined : normalizeKey(e.value)
      const group2 = value ? groupOfName(/(?:goto|jump) (\S+)/.exec(value)?.[1] ?? '') : undefined
      out.push(withGroup({kind: 'extra-element' as const, set: es.name, element: value === undefined ? k : `${k} : ${value}`}, group2 ?? e.comment))
    }
  }
  for (const as of actual.sets) {
    if (expectedSets.has(as.name)) continue
    out.push(withGroup({kind: 'definition' as const, object: `${as.kind} ${as.name}`, detail: 'not expected (stale)'}, groupOfName(as.name)))
  }
  return out
}

function ruleGroup(rule: string, groupOfName: (n: string) => string | undefined): string | undefined {
  for (const m of rule.matchAll(/(?:goto|jump|@)\s*((?:service|local|external|endpoint|affinity|firewall)-\S+?)(?=[\s,}]|$)/g)) {
    const g = groupOfName(m[1]!)
    if (g) return g
  }
  return undefined
}

function baseChainDetail(e: NftExpectedChain, a: NftChain): string | undefined {
  if (!e.base) return a.hook !== undefined ? `expected a regular chain, found a base chain (hook ${a.hook})` : undefined
  if (a.hook === undefined) return `expected a base chain (type ${e.base.type} hook ${e.base.hook} priority ${e.base.priority}), found a regular chain`
  const parts: string[] = []
  if (a.type !== e.base.type) parts.push(`type ${a.type} instead of ${e.base.type}`)
  if (a.hook !== e.base.hook) parts.push(`hook ${a.hook} instead of ${e.base.hook}`)
  if (a.priority !== e.base.priority) parts.push(`priority ${a.priority} instead of ${e.base.priority}`)
  return parts.length > 0 ? parts.join(', ') : undefined
}

function setDetail(e: NftExpectedSet, a: NftSet): string | undefined {
  const parts: string[] = []
  if (a.kind !== e.kind) parts.push(`a ${a.kind} instead of a ${e.kind}`)
  if (a.type !== undefined && normalizeKey(a.type) !== e.type) parts.push(`type ${a.type} instead of ${e.type}`)
  if (e.kind === 'map' && a.valueType !== undefined && a.valueType !== 'verdict') parts.push(`values ${a.valueType} instead of verdict`)
  // NOTE: nft 1.0.6's JSON leaves out the `dynamic` flag, so only the others are compared.
  for (const f of e.flags ?? []) if (f !== 'dynamic' && !a.flags.includes(f)) parts.push(`flag ${f} missing`)
  if (e.timeout !== undefined && a.timeout !== undefined && Math.round(a.timeout) !== e.timeout) parts.push(`timeout ${a.timeout}s instead of ${e.timeout}s`)
  return parts.length > 0 ? parts.join(', ') : undefined
}
