// `proxy diff`'s rule diff, printed above its findings in the table views: per Service port, `-` for a rule or
// chain kube-proxy would have programmed that the node lacks, `+` for one the node has that it would not, `~` for
// an order problem, `!` for a jump to a chain that does not exist. The dashboard's Service view prints its lines
// with the same renderDiffLines and legend. In IPVS mode the same, per virtual server: its real servers expected vs
// present, then kube-ipvs0 addresses, ipset members and the iptables rules (core/diff/ipvs-view.ts groups them).
import {Chalk, type ChalkInstance} from 'chalk'
import type {DiffLine} from '../app/dashboard/service-detail.js'
import type {ServiceRuleDiff} from '../app/proxy/report.js'
import type {IpvsOtherDifference, IpvsServiceDiff, IpvsVirtualServerDiff} from '../core/diff/ipvs-view.js'

type Sign = DiffLine['sign']

const IPVS_LEGEND = '- missing on the node · + not expected · ~ order'

/** What the signs mean, after a rule diff's heading (IPVS diffs have no jumps to break). */
export const RULE_DIFF_LEGEND = `${IPVS_LEGEND} · ! broken jump`

const UNOWNED = 'every Service (not tied to one Service port)'

function painter(color: boolean): {c: ChalkInstance; paint: (sign: Sign, piece: string) => string; line: (sign: Sign, text: string) => string} {
  const c = new Chalk({level: color ? 1 : 0})
  const colour = {'-': c.red, '+': c.green, '~': c.yellow, '!': c.red} as const
  // The indentation stays uncoloured.
  const paint = (sign: Sign, piece: string): string => {
    const lead = /^ */.exec(piece)![0]
    return lead + colour[sign](piece.slice(lead.length))
  }
  return {c, paint, line: (sign, text) => paint(sign, `${sign} ${text}`)}
}

/**
 * Diff lines as `SIGN text`, coloured by sign, each after `indent`. `wrap` splits a long line for a width (the
 * dashboard's pane; painted after wrapping, so colour codes never count towards the width); without it a line stays
 * one line, as piped output should.
 */
export function renderDiffLines(lines: readonly DiffLine[], options: {color: boolean; indent?: string; wrap?: (text: string) => string[]}): string[] {
  const {paint} = painter(options.color)
  const indent = options.indent ?? ''
  return lines.flatMap((l) => {
    const text = `${indent}${l.sign} ${l.text}`
    return (options.wrap ? options.wrap(text) : [text]).map((piece) => paint(l.sign, piece))
  })
}

function title(c: ChalkInstance, node: string | undefined, legend: string): string {
  return c.bold(`Rule diff${node ? ` on ${node}` : ''}`) + c.dim(`  (${legend})`)
}

export function renderRuleDiff(diff: readonly ServiceRuleDiff[], options: {color: boolean; node?: string}): string {
  const groups = diff.filter((g) => g.lines.length > 0)
  if (groups.length === 0) return ''
  const {c} = painter(options.color)
  const out = [title(c, options.node, RULE_DIFF_LEGEND)]
  for (const g of groups) out.push(`  ${c.bold(g.service ?? UNOWNED)}`, ...renderDiffLines(g.lines, {color: options.color, indent: '    '}))
  return out.join('\n') + '\n\n'
}

/** The IPVS rule diff: per Service port, each differing virtual server with its real servers, then the other parts. */
export function renderIpvsRuleDiff(diff: readonly IpvsServiceDiff[], options: {color: boolean; node?: string}): string {
  const groups = diff.filter((g) => g.virtualServers.length > 0 || g.other.length > 0)
  if (groups.length === 0) return ''
  const {c, line} = painter(options.color)
  const out = [title(c, options.node, IPVS_LEGEND)]
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
