// Keyboard navigation as a pure state machine: keys → actions → the next screen stack, cursor and filter.
// The App only feeds it the length of the visible list and what Enter would open.
import type {ServiceRef} from './model.js'

export type Screen = {kind: 'fleet'} | {kind: 'node'; node: string} | {kind: 'service'; node: string; service: ServiceRef}

interface Level {
  screen: Screen
  /** Selected row (fleet, node) or first visible line (service). */
  cursor: number
  /** The `/` filter of this screen's list. */
  query: string
}

export interface Nav {
  /** Screens from the fleet table to the current one. */
  levels: Level[]
  /** The `/` prompt is open: printable keys go into the query. */
  editing: boolean
}

export type Action =
  | {type: 'up' | 'down' | 'page-up' | 'page-down' | 'open' | 'back' | 'filter' | 'recheck' | 'quit' | 'erase'}
  | {type: 'text'; text: string}

/** What ink's useInput reports, narrowed to what navigation uses. */
export interface KeyInfo {
  upArrow?: boolean
  downArrow?: boolean
  pageUp?: boolean
  pageDown?: boolean
  return?: boolean
  escape?: boolean
  backspace?: boolean
  delete?: boolean
  ctrl?: boolean
  meta?: boolean
  tab?: boolean
}

export const INITIAL_NAV: Nav = {levels: [{screen: {kind: 'fleet'}, cursor: 0, query: ''}], editing: false}

/**
 * Maps a key to an action. Outside the prompt: arrows and j/k move, Enter opens, Esc/Backspace go back, `/` filters,
 * `r` re-checks, `q` quits. In the prompt: text edits the query, Enter keeps it, Esc clears it, arrows still move.
 */
export function keyAction(input: string, key: KeyInfo, editing: boolean): Action | undefined {
  if (input === '\r' || input === '\n') return {type: 'open'}
  if (input === '\x7f' || input === '\b') return {type: editing ? 'erase' : 'back'}
  if (key.upArrow) return {type: 'up'}
  if (key.downArrow) return {type: 'down'}
  if (key.pageUp) return {type: 'page-up'}
  if (key.pageDown) return {type: 'page-down'}
  if (key.return) return {type: 'open'}
  if (key.escape) return {type: 'back'}
  // Terminals send DEL (0x7f) for Backspace; ink reports it as `delete`.
  if (key.backspace || key.delete) return {type: editing ? 'erase' : 'back'}
  if (key.ctrl || key.meta || key.tab) return undefined
  if (editing) return input.length > 0 ? {type: 'text', text: input} : undefined
  switch (input) {
    case 'k':
      return {type: 'up'}
    case 'j':
      return {type: 'down'}
    case '/':
      return {type: 'filter'}
    case 'r':
      return {type: 'recheck'}
    case 'q':
      return {type: 'quit'}
    default:
      return undefined
  }
}

/**
 * A chunk of several plain characters (keys typed faster than the terminal is read, or pasted) as one action per
 * character; a key ink recognised (arrows, Enter, Esc) as its one action.
 */
export function keyActions(input: string, key: KeyInfo, editing: boolean): Action[] {
  const special = key.upArrow || key.downArrow || key.pageUp || key.pageDown || key.return || key.escape || key.backspace || key.delete || key.ctrl || key.meta || key.tab
  const chars = !special && input.length > 1 ? [...input] : [input]
  const actions: Action[] = []
  let prompt = editing
  for (const ch of chars) {
    const a = keyAction(ch, chars.length > 1 ? {} : key, prompt)
    if (!a) continue
    if (a.type === 'filter') prompt = true
    else if (a.type === 'open' || a.type === 'back') prompt = false
    actions.push(a)
  }
  return actions
}

export interface NavContext {
  /** Rows in the current list (service screen: lines of its pane). */
  count: number
  /** Rows visible at once (page size, service scroll bound). */
  page: number
  /** The screen Enter opens from the selected row, if any. */
  open?: Screen
}

export type Effect = 'quit' | 'recheck'

export function current(nav: Nav): Level {
  return nav.levels[nav.levels.length - 1]!
}

function withTop(nav: Nav, change: Partial<Level>, editing = nav.editing): Nav {
  const levels = [...nav.levels]
  levels[levels.length - 1] = {...current(nav), ...change}
  return {levels, editing}
}

/** The next navigation state, and what the App must do beyond redrawing. */
export function navigate(nav: Nav, action: Action, ctx: NavContext): {nav: Nav; effect?: Effect} {
  const top = current(nav)
  const scrolling = top.screen.kind === 'service'
  // The service pane scrolls: its cursor is the first visible line, so it stops a page before the end.
  const last = Math.max(0, scrolling ? ctx.count - ctx.page : ctx.count - 1)
  const move = (delta: number): Nav => withTop(nav, {cursor: Math.min(last, Math.max(0, Math.min(top.cursor, last) + delta))})
  switch (action.type) {
    case 'up':
      return {nav: move(-1)}
    case 'down':
      return {nav: move(1)}
    case 'page-up':
      return {nav: move(-Math.max(1, ctx.page - 1))}
    case 'page-down':
      return {nav: move(Math.max(1, ctx.page - 1))}
    case 'open':
      if (nav.editing) return {nav: {...nav, editing: false}}
      if (!ctx.open) return {nav}
      return {nav: {levels: [...nav.levels, {screen: ctx.open, cursor: 0, query: ''}], editing: false}}
    case 'back':
      if (nav.editing) return {nav: withTop(nav, {query: '', cursor: 0}, false)}
      if (nav.levels.length === 1) return {nav}
      return {nav: {levels: nav.levels.slice(0, -1), editing: false}}
    case 'filter':
      return scrolling ? {nav} : {nav: withTop(nav, {cursor: 0}, true)}
    case 'text':
      return {nav: withTop(nav, {query: top.query + action.text, cursor: 0})}
    case 'erase':
      return {nav: withTop(nav, {query: top.query.slice(0, -1), cursor: 0})}
    case 'recheck':
      return {nav, effect: 'recheck'}
    case 'quit':
      return {nav, effect: 'quit'}
  }
}
