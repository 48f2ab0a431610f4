// The layout line under each node's header in the human views: what runs where, as core/layout resolved it
// ("layout: k3s v1.33.4+k3s1 · kube-proxy embedded, iptables · flannel vxlan"). Wraps between its parts only.
import type {ChalkInstance} from 'chalk'
import type {NodeSummary} from '../core/model/report.js'

const INDENT = '  '
const LABEL = 'layout: '

/** The node's layout line(s), indented and dimmed; none when the report carries no layout for the node. */
export function layoutLine(summary: NodeSummary | undefined, c: ChalkInstance, width?: number): string[] {
  const text = summary?.layout?.summary
  if (!text) return []
  const parts = text.split(' · ')
  const lines: string[] = []
  let line = `${INDENT}${LABEL}`
  const pad = ' '.repeat(INDENT.length + LABEL.length)
  for (const [i, part] of parts.entries()) {
    const piece = i === 0 ? part : ` · ${part}`
    if (width !== undefined && i > 0 && line.length + piece.length > width) {
      lines.push(line)
      line = `${pad}${part}`
    } else line += piece
  }
  lines.push(line)
  return lines.map((l) => c.dim(l))
}
