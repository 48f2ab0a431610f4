// `agent manifests --layout NAME`: the layout names a run's layout scope uses (core/layout/known-layouts.ts), checked
// and put as a run lists them (distinct, sorted: core/agent/layout-scope.ts), so the printed objects are a run's.
import {type Distribution, KNOWN_LAYOUTS} from '../core/layout/known-layouts.js'
import {UsageError} from '../errors.js'

/** Every name --layout takes, in the layout table's order. */
export const LAYOUT_NAMES: readonly Distribution[] = KNOWN_LAYOUTS.map((l) => l.distribution)

/** The --layout values as a run's layout scope lists them; undefined when none was given. UsageError for an unknown name. */
export function manifestLayouts(values: readonly string[] | undefined): Distribution[] | undefined {
  if (values === undefined || values.length === 0) return undefined
  const unknown = values.filter((v) => !(LAYOUT_NAMES as readonly string[]).includes(v))
  if (unknown.length > 0) throw new UsageError(`unknown layout ${unknown.map((v) => JSON.stringify(v)).join(', ')}`, `Known layouts: ${LAYOUT_NAMES.join(', ')}.`)
  return [...new Set(values as Distribution[])].sort()
}
