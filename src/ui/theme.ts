// Symbols and colours of the dashboard: the shapes of the table renderer (src/render/table.ts), so severity reads
// without colour too; colours only when the terminal takes them (--no-color, NO_COLOR).
import {SYMBOLS} from '../render/table-style.js'
import type {CellStatus} from './model.js'
import type {NodeStatus} from '../core/model/report.js'

export type Tone = 'red' | 'yellow' | 'cyan' | 'green' | 'gray'

export const CELL_STYLE: Record<CellStatus, {symbol: string; tone: Tone}> = {
  error: {symbol: SYMBOLS.error, tone: 'red'},
  warning: {symbol: SYMBOLS.warning, tone: 'yellow'},
  info: {symbol: SYMBOLS.info, tone: 'cyan'},
  ok: {symbol: SYMBOLS.ok, tone: 'green'},
  skipped: {symbol: SYMBOLS.skipped, tone: 'gray'},
  unknown: {symbol: SYMBOLS.unknown, tone: 'red'},
  pending: {symbol: SYMBOLS.pending, tone: 'gray'},
}

export const NODE_STYLE: Record<NodeStatus, {symbol: string; tone: Tone}> = {
  healthy: {symbol: SYMBOLS.ok, tone: 'green'},
  unhealthy: {symbol: SYMBOLS.error, tone: 'red'},
  partial: {symbol: SYMBOLS.warning, tone: 'yellow'},
  uncollected: {symbol: SYMBOLS.unknown, tone: 'red'},
}

/** ink `color` prop value: the tone, or nothing when colour is off. */
export function colorOf(tone: Tone | undefined, color: boolean): Tone | undefined {
  return color ? tone : undefined
}
