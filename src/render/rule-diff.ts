// `proxy diff`'s rule diff, printed above its findings in the table views: per Service port, `-` for a rule or
// chain kube-proxy would have programmed that the node lacks, `+` for one the node has that it would not, `~` for
// an order problem, `!` for a jump to a chain that does not exist (the dashboard's Service view shows the same lines).
// In IPVS mode the same, per virtual server: its real servers expected vs present, then kube-ipvs0 addresses, ipset
// members and the iptables rules (core/diff/ipvs-view.ts groups them).
import {Chalk, type ChalkInstance} from 'chalk'
import type {ServiceRuleDiff} from '../app/proxy/report.js'
import type {IpvsOtherDifference, IpvsServiceDiff, IpvsVirtualServerDiff} from '../core/diff/ipvs-view.js'

type Sign = '-' | '+' | '~' | '!'

const UNOWNED = 'every Service (not tied to one Service port)'

function painter(color: boolean): {c: ChalkInstance; line: (sign: Sign, text: string) => string} {
  const c = new Chalk({level: color ? 1 : 0})
  const paint = {'-': c.red, '+': c.green, '~': c.yellow, '!': c.red} as const
  return {c, line: (sign, text) => paint[sign](`${sign} ${text}`)}
}

function title(c: ChalkInstance, node: string | undefined, legend: string): string {
  return c.bold(`Rule diff${node ? ` on ${node}` : ''}`) + c.dim(`  (${legend})`)
}

export function renderRuleDiff(diff: readonly ServiceRuleDiff[], options: {color: boolean; node?: string}): string {
  const groups = diff.filter((g) => g.lines.length > 0)
  if (groups.length === 0) return ''
  const {c, line} = painter(options.color)
  const out = [title(c, options.node, '- expected, missing on the node · + on the node, not expected · ~ order · ! broken jump')]
  for (const g of groups) {
    out.push(`  ${c.bold(g.service ?? UNOWNED)}`)
    for (const l of g.lines) out.push(`    ${line(l.sign, l.text)}`)
  }
  return out.join('\n') + '\n\n'
}

/** The IPVS rule diff: per Service port, each differing virtual server with its real servers, then the other parts. */
export function renderIpvsRuleDiff(diff: readonly IpvsServiceDiff[], options: {color: boolean; node?: string}): string {
  const groups = diff.filter((g) => g.virtualServers.length > 0 || g.other.length > 0)
  if (groups.length === 0) return ''
  const {c, line} = painter(options.color)
  const out = [title(c, options.node, '- expected, missing on the node · + on the node, not expected · ~ order')]
  for (const g of groups) {
    out.push(`  ${c.bold(g.service ?? UNOWNED)}`)
    for (const v of g.virtualServers) out.push(...virtualServerLines(v, line))
    for (const d of g.other) for (const [sign, text] of otherLines(d)) out.push(`    ${line(sign, text)}`)
  }
  return out.join('\n') + '\n\n'
}

function virtualServerLines(v: IpvsVirtualServerDiff, line: (sign: Sign, text: string) => string): string[] {
  const head = `virtual server ${v.vs}${v.scheduler !== undefined ? ` ${v.scheduler}` : ''}`
  const out = [v.whole === undefined ? `    ${head}` : `    ${line(v.whole, `${head} (${v.whole === '-' ? 'missing' : 'stale'})`)}`]
  for (const s of v.settings) out.push(`      ${line(s.sign, `${s.setting} ${s.value ?? 'none'}`)}`)
  for (const r of v.realServers) out.push(`      ${line(r.sign, `${r.rs}${r.weight !== undefined ? ` weight ${r.weight}` : ''}`)}`)
  return out
}

function otherLines(d: IpvsOtherDifference): Array<[Sign, string]> {
  const rule = (table: string, chain: string, body: string): string => `${table} -A ${chain} ${body}`
  switch (d.kind) {
    case 'missing-dummy-interface':
      return [['-', 'link kube-ipvs0 (missing)'], ...d.addresses.map((a): [Sign, string] => ['-', `kube-ipvs0 address ${a}`])]
    case 'missing-address':
      return [['-', `kube-ipvs0 address ${d.address}`]]
    case 'stale-address':
      return [['+', `kube-ipvs0 address ${d.address}`]]
    case 'missing-ipset':
      return [['-', `ipset ${d.set} (missing)`], ...d.entries.map((e): [Sign, string] => ['-', `ipset ${d.set} ${e}`])]
    case 'missing-ipset-entry':
      return [['-', `ipset ${d.set} ${d.entry}`]]
    case 'stale-ipset-entry':
      return [['+', `ipset ${d.set} ${d.entry}`]]
    case 'missing-iptables-chain':
      return [['-', `${d.table} :${d.chain} (chain missing)`], ...d.expectedRules.map((r): [Sign, string] => ['-', rule(d.table, d.chain, r)])]
    case 'missing-iptables-rule':
    case 'missing-builtin-jump':
      return [['-', rule(d.table, d.chain, d.rule)]]
    case 'extra-iptables-rule':
      return [['+', rule(d.table, d.chain, d.rule)]]
    case 'misordered-iptables-chain':
      return [['~', `${d.table} ${d.chain}: the rules are all present but in the wrong order`]]
  }
}
