// The fleet table: one row per node, a coloured status per column, the selected row marked. Presentational.
import {Box} from 'ink'
import {Text} from './text.js'
import {COLUMNS, type FleetRow} from './model.js'
import {CELL_STYLE, colorOf, NODE_STYLE, type Tone} from './theme.js'

export interface FleetTableProps {
  rows: readonly FleetRow[]
  cursor: number
  /** Lines available, header included. */
  height: number
  /** Columns available: long node names are cut to fit. */
  width: number
  color: boolean
}

const STATUS_WIDTH = 15
const MARK_WIDTH = 2
/** Room for the longest cell text, `▲ 12 warnings`, and a gap. */
const CELL_WIDTHS = COLUMNS.map((c) => Math.max(c.title.length, 11) + 2)
const FIXED_WIDTH = MARK_WIDTH + STATUS_WIDTH + CELL_WIDTHS.reduce((a, b) => a + b, 0)

/** First row shown so that the cursor stays visible in a window of `size` rows. */
export function windowStart(cursor: number, count: number, size: number): number {
  if (count <= size) return 0
  return Math.min(Math.max(0, cursor - Math.floor(size / 2)), count - size)
}

function statusOf(row: FleetRow): {text: string; tone?: Tone; dim: boolean} {
  if (row.status !== undefined) {
    const s = NODE_STYLE[row.status]
    if (row.stale) return {text: `↻ ${row.status}`, tone: s.tone, dim: true}
    return {text: `${s.symbol} ${row.status}`, tone: s.tone, dim: false}
  }
  return row.state === 'collecting' ? {text: '… collecting', tone: 'cyan', dim: false} : {text: '· waiting', dim: true}
}

export function FleetTable({rows, cursor, height, width, color}: FleetTableProps) {
  const nameWidth = Math.min(Math.max(10, width - FIXED_WIDTH), Math.max(4, ...rows.map((r) => r.name.length)) + 2)
  const widths = CELL_WIDTHS
  const size = Math.max(1, height - 1)
  const start = windowStart(cursor, rows.length, size)
  const visible = rows.slice(start, start + size)
  return (
    <Box flexDirection="column">
      <Box>
        <Box flexShrink={0} width={MARK_WIDTH} />
        <Box flexShrink={0} width={nameWidth} paddingRight={2}>
          <Text bold>NODE</Text>
        </Box>
        <Box flexShrink={0} width={STATUS_WIDTH} paddingRight={1}>
          <Text bold>STATUS</Text>
        </Box>
        {COLUMNS.map((c, i) => (
          <Box key={c.key} flexShrink={0} width={widths[i]} paddingRight={1}>
            <Text bold>{c.title}</Text>
          </Box>
        ))}
      </Box>
      {visible.length === 0 ? <Text dimColor>  no nodes match the filter</Text> : null}
      {visible.map((row, i) => {
        const selected = start + i === cursor
        const status = statusOf(row)
        return (
          <Box key={row.name}>
            <Box flexShrink={0} width={MARK_WIDTH}>
              <Text bold>{selected ? '›' : ' '}</Text>
            </Box>
            <Box flexShrink={0} width={nameWidth} paddingRight={2}>
              <Text inverse={selected} bold={selected} wrap="truncate-end">
                {row.name}
              </Text>
            </Box>
            <Box flexShrink={0} width={STATUS_WIDTH} paddingRight={1}>
              <Text color={colorOf(status.tone, color)} dimColor={status.dim} wrap="truncate-end">
                {status.text}
              </Text>
            </Box>
            {COLUMNS.map((c, j) => {
              const cell = row.cells[c.key]
              const style = CELL_STYLE[cell.status]
              return (
                <Box key={c.key} flexShrink={0} width={widths[j]} paddingRight={1}>
                  <Text color={colorOf(style.tone, color)} dimColor={row.stale || cell.status === 'pending'} wrap="truncate-end">
                    {`${style.symbol} ${cell.text}`}
                  </Text>
                </Box>
              )
            })}
          </Box>
        )
      })}
    </Box>
  )
}
