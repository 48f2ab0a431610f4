// The only switch on --output. Renderers are pure: Report in, string out; colour only when asked for.
import type {CheckSpec} from '../core/checks/types.js'
import type {Report} from '../core/model/report.js'
import {renderJson} from './json.js'
import {renderJunit} from './junit.js'
import {renderSarif} from './sarif.js'
import {renderTable, renderWide} from './table.js'
import {renderYaml} from './yaml.js'

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'junit', 'sarif'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

export interface RenderOptions {
  /** Use ANSI colour (only on a TTY, never with NO_COLOR or --no-color; the command decides). Only table/wide colour. */
  color: boolean
  /** Terminal width, when known; table/wide wrap their long columns to it. Undefined: never wrap (pipes). */
  width?: number
  /** Catalog entries for check titles (table/wide, JUnit) and rule metadata (SARIF); ids not found are shown bare. */
  catalog?: readonly CheckSpec[]
}

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value)
}

export function renderReport(report: Report, format: OutputFormat, options: RenderOptions): string {
  switch (format) {
    case 'table':
      return renderTable(report, options)
    case 'wide':
      return renderWide(report, options)
    case 'json':
      return renderJson(report)
    case 'yaml':
      return renderYaml(report)
    case 'junit':
      return renderJunit(report, options)
    case 'sarif':
      return renderSarif(report, options)
    default: {
      const unknown: never = format
      throw new Error(`unknown output format: ${String(unknown)}`)
    }
  }
}
