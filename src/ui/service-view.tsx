// One Service port on one node: the rule diff, then the packet trace (the `trace` command's table). A pane of lines
// that scrolls; the lines are built once per Service, the component shows a window of them.
import {Chalk} from 'chalk'
import {Box} from 'ink'
import {Text} from './text.js'
import {wrapLines} from '../render/table.js'
import {renderTrace, traceConclusion} from '../render/trace.js'
import {renderDiffLines, RULE_DIFF_LEGEND} from '../render/rule-diff.js'
import type {ServiceDetail} from '../app/dashboard/service-detail.js'

/** Word-wraps a plain line to `width`, continuation lines indented by `indent`. */
export function wrapIndented(text: string, width: number, indent = '    '): string[] {
  if ([...text].length <= width) return [text]
  const lead = /^ */.exec(text)![0]
  return wrapLines(text, Math.max(20, width - indent.length - lead.length)).map((l, i) => (i === 0 ? lead + l : lead + indent + l))
}

/** The pane's lines: heading, rule diff (wrapped to `width`), then the trace table rendered for `width`. */
export function serviceLines(detail: ServiceDetail, width: number, color: boolean): string[] {
  const c = new Chalk({level: color ? 1 : 0})
  const s = detail.service
  const out = [c.bold(`RULE DIFF on ${'reason' in detail.trace ? 'this node' : detail.trace.node}`) + c.dim(`  (${RULE_DIFF_LEGEND})`)]
  if ('reason' in detail.diff) out.push(c.dim(`  not available: ${detail.diff.reason}`))
  else if (detail.diff.length === 0) out.push(c.green(`  ✔ the node's rules for ${s.name} are what kube-proxy would write`))
  else out.push(...renderDiffLines(detail.diff, {color, wrap: (text) => wrapIndented(text, width)}))
  const from = 'reason' in detail.trace ? '' : detail.trace.packet.from === 'pod' ? ' from a pod on the node' : ' from the node itself'
  out.push('', c.bold(`PACKET TRACE to ${s.clusterIP}:${s.port}/${s.protocol}`) + c.dim(`${from}, through the node's rules and kube-proxy's`))
  if ('reason' in detail.trace) out.push(c.dim(`  not available: ${detail.trace.reason}`))
  else {
    // The conclusion first, so it shows without scrolling; the table below repeats it after the rule paths.
    const t = detail.trace
    const conclusion = traceConclusion(t.comparison, t.expected.result)
    out.push(...wrapIndented(`  ${conclusion}`, width).map((l) => (t.comparison.same ? c.green(l) : c.red(l))), '')
    for (const line of renderTrace(t, 'table', {color, width}).trimEnd().split('\n')) out.push(...(line.includes('\x1b') ? [line] : wrapIndented(line, width)))
  }
  return out
}

export interface ServiceViewProps {
  detail: ServiceDetail
  lines: readonly string[]
  /** First line shown. */
  scroll: number
  height: number
}

export function ServiceView({detail, lines, scroll, height}: ServiceViewProps) {
  const s = detail.service
  const body = Math.max(1, height - 1)
  const more = lines.length > body ? `  lines ${scroll + 1}–${Math.min(lines.length, scroll + body)} of ${lines.length} (↑↓ scroll)` : ''
  return (
    <Box flexDirection="column" height={height}>
      <Text>
        <Text bold>{`Service port ${s.name}`}</Text>
        {`  ${s.clusterIP}:${s.port}/${s.protocol}`}
        <Text dimColor>{more}</Text>
      </Text>
      <Box flexDirection="column" height={body} overflow="hidden">
        {lines.slice(scroll, scroll + body).map((l, i) => (
          <Text key={scroll + i} wrap="truncate-end">
            {l === '' ? ' ' : l}
          </Text>
        ))}
      </Box>
    </Box>
  )
}
