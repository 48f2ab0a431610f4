// One node: its verdict, what could not be collected, its findings and Service ports (one cursor over both), and
// below them the selected finding's evidence and remedy. Presentational.
import {Box} from 'ink'
import {Text} from './text.js'
import type {Severity} from '../core/model/report.js'
import {wrapLines} from '../render/table.js'
import {windowStart} from './fleet-table.js'
import type {NodeDetail, NodeItem} from './model.js'
import {CELL_STYLE, colorOf, NODE_STYLE} from './theme.js'

export interface NodeViewProps {
  detail: NodeDetail
  /** Rows after the `/` filter (findings, then Service ports). */
  items: readonly NodeItem[]
  cursor: number
  /** Why there is no Service list (not iptables mode, no iptables-save), when there is none. */
  servicesUnavailable?: string
  height: number
  width: number
  color: boolean
}

/** Lines of the panel under the list that explains the selected row. */
export const DETAIL_LINES = 9

function counts(c: Record<Severity, number>): string {
  const parts = (['error', 'warning', 'info'] as const).filter((s) => c[s] > 0).map((s) => `${c[s]} ${s === 'info' ? 'info' : s + (c[s] === 1 ? '' : 's')}`)
  return parts.length > 0 ? parts.join(', ') : 'no findings'
}

type Line = {kind: 'heading'; text: string} | {kind: 'item'; index: number; item: NodeItem}

function ItemLine({item, selected, color}: {item: NodeItem; selected: boolean; color: boolean}) {
  const mark = <Text bold>{selected ? '› ' : '  '}</Text>
  if (item.kind === 'finding') {
    const f = item.finding
    const style = CELL_STYLE[f.severity]
    return (
      <Text wrap="truncate-end">
        {mark}
        <Text color={colorOf(style.tone, color)}>{style.symbol}</Text> <Text inverse={selected}>{f.id.padEnd(11)}</Text> {f.message}
      </Text>
    )
  }
  const s = item.service
  const style = CELL_STYLE[s.worst ?? 'ok']
  return (
    <Text wrap="truncate-end">
      {mark}
      <Text color={colorOf(style.tone, color)}>{style.symbol}</Text> <Text inverse={selected}>{s.name}</Text>
      <Text dimColor>{`  ${s.clusterIP}:${s.port}/${s.protocol}`}</Text>
      {s.findings > 0 ? `  ${s.findings} finding${s.findings === 1 ? '' : 's'}` : ''}
    </Text>
  )
}

function Detail({item, width}: {item: NodeItem | undefined; width: number}) {
  if (!item) return <Text dimColor>Nothing selected.</Text>
  if (item.kind === 'service') {
    const s = item.service
    return (
      <Box flexDirection="column" width={width}>
        <Text>{`Service port ${s.name}: cluster IP ${s.clusterIP}:${s.port}/${s.protocol}`}</Text>
        <Text dimColor>Enter: the rule diff on this node and the packet trace from a pod to the cluster IP.</Text>
      </Box>
    )
  }
  const f = item.finding
  const subject = `${f.subject.kind}/${f.subject.namespace ? `${f.subject.namespace}/` : ''}${f.subject.name}${f.subject.in ? ` in ${f.subject.in}` : ''}`
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">{`${f.id} (${f.area})  ${subject}`}</Text>
      {f.evidence.slice(0, 2).map((e, i) => (
        <Text key={i} dimColor wrap="truncate-end">{`  ${e}`}</Text>
      ))}
      {wrapLines(`remedy: ${f.remedy}`, width).map((l, i) => (
        <Text key={`r${i}`}>{l}</Text>
      ))}
    </Box>
  )
}

export function NodeView({detail, items, cursor, servicesUnavailable, height, width, color}: NodeViewProps) {
  const status = detail.status ? NODE_STYLE[detail.status] : undefined
  const errors = detail.errors.slice(0, 2)
  const lines: Line[] = []
  const findings = items.filter((i) => i.kind === 'finding').length
  if (findings > 0) lines.push({kind: 'heading', text: `FINDINGS (${findings})`})
  items.forEach((item, index) => {
    if (item.kind === 'service' && (index === 0 || items[index - 1]!.kind === 'finding')) {
      lines.push({kind: 'heading', text: `SERVICE PORTS (${items.length - findings}) · Enter: rule diff and packet trace`})
    }
    lines.push({kind: 'item', index, item})
  })
  const listHeight = Math.max(3, height - 2 - errors.length - DETAIL_LINES - (servicesUnavailable ? 1 : 0))
  const selectedLine = lines.findIndex((l) => l.kind === 'item' && l.index === cursor)
  const start = windowStart(Math.max(0, selectedLine), lines.length, listHeight)
  return (
    <Box flexDirection="column" height={height}>
      <Text>
        <Text bold>{detail.name}</Text>
        {'  '}
        {status ? <Text color={colorOf(status.tone, color)}>{`${status.symbol} ${detail.status}`}</Text> : <Text dimColor>not collected yet</Text>}
        {` · ${counts(detail.counts)}`}
        {detail.durationMs !== undefined ? ` · collected in ${(detail.durationMs / 1000).toFixed(1)}s` : ''}
      </Text>
      {errors.map((e, i) => (
        <Text key={i} color={colorOf(e.fatal ? 'red' : 'yellow', color)} wrap="truncate-end">{`${e.fatal ? '✖' : '▲'} could not collect ${e.source}: ${e.message}`}</Text>
      ))}
      {servicesUnavailable ? <Text dimColor wrap="truncate-end">{`No Service ports: ${servicesUnavailable}`}</Text> : null}
      <Box flexDirection="column" height={listHeight} overflow="hidden">
        {lines.length === 0 ? <Text dimColor>{items.length === 0 && (detail.findings.length > 0 || detail.services.length > 0) ? '  nothing matches the filter' : '  no findings'}</Text> : null}
        {lines.slice(start, start + listHeight).map((l, i) =>
          l.kind === 'heading' ? (
            <Text key={`h${start + i}`} bold>
              {l.text}
            </Text>
          ) : (
            <ItemLine key={`i${l.index}`} item={l.item} selected={l.index === cursor} color={color} />
          ),
        )}
      </Box>
      <Text dimColor>{'─'.repeat(Math.max(10, width))}</Text>
      <Box height={DETAIL_LINES} overflow="hidden">
        <Detail item={items[cursor]} width={width} />
      </Box>
    </Box>
  )
}
