// Shared by the human views (table renderers and the dashboard): the apiVersion of their machine-readable forms,
// the status symbols, and cli-table3's borderless style.
import type {Severity} from '../core/model/report.js'

/** One shape per state, so severity reads without colour too. */
export const SYMBOLS = {error: '✖', warning: '▲', info: '●', ok: '✔', skipped: '−', unknown: '?', pending: '·'} as const

export const SEVERITY_SYMBOL: Record<Severity, string> = {error: SYMBOLS.error, warning: SYMBOLS.warning, info: SYMBOLS.info}

export const VIEW_API_VERSION = 'node-doctor.io/v1alpha1'

/** cli-table3 `chars` for a borderless table whose columns are separated by two spaces (kubectl's look). */
export const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
} as const
