// Symbols and colours of the dashboard: the shapes of the table renderer (src/render/table.ts), so severity reads
// without colour too; colours only when the terminal takes them (--no-color, NO_COLOR).
import type {CellStatus} from './model.js'
import type {NodeStatus} from '../core/model/report.js'

export type Tone = 'red' | 'yellow' | 'cyan' | 'green' | 'gray'

export const CELL_STYLE: Record<CellStatus, {symbol: string; tone: Tone}> = {
  error: {symbol: '✖', tone: 'red'},
  warning: {symbol: '▲', tone: 'yellow'},
  info: {symbol: '●', tone: 'cyan'},
  ok: {symbol: '✔', tone: 'green'},
  skipped: {symbol: '−', tone: 'gray'},
  unknown: {symbol: '?', tone: 'red'},
  pending: {symbol: '·', tone: 'gray'},
}

export const NODE_STYLE: Record<NodeStatus, {symbol: string; tone: Tone}> = {
  healthy: {symbol: '✔', tone: 'green'},
  unhealthy: {symbol: '✖', tone: 'red'},
  partial: {symbol: '▲', tone: 'yellow'},
  uncollected: {symbol: '?', tone: 'red'},
}

/** ink `color` prop value: the tone, or nothing when colour is off. */
export function colorOf(tone: Tone | undefined, color: boolean): Tone | undefined {
  return color ? tone : undefined
}
