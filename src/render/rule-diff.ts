// `proxy diff`'s rule diff, printed above its findings in the table views: per Service port, `-` for a rule or
// chain kube-proxy would have programmed that the node lacks, `+` for one the node has that it would not, `~` for
// an order problem, `!` for a jump to a chain that does not exist (the dashboard's Service view shows the same lines).
import {Chalk} from 'chalk'
import type {ServiceRuleDiff} from '../app/proxy/report.js'

export function renderRuleDiff(diff: readonly ServiceRuleDiff[], options: {color: boolean; node?: string}): string {
  const groups = diff.filter((g) => g.lines.length > 0)
  if (groups.length === 0) return ''
  const c = new Chalk({level: options.color ? 1 : 0})
  const paint = {'-': c.red, '+': c.green, '~': c.yellow, '!': c.red} as const
  const out = [c.bold(`Rule diff${options.node ? ` on ${options.node}` : ''}`) + c.dim('  (- expected, missing on the node · + on the node, not expected · ~ order · ! broken jump)')]
  for (const g of groups) {
    out.push(`  ${c.bold(g.service ?? 'every Service (not tied to one Service port)')}`)
    for (const l of g.lines) out.push(`    ${paint[l.sign](`${l.sign} ${l.text}`)}`)
  }
  return out.join('\n') + '\n\n'
}
