// The only switch on --output. Renderers are pure: Report in, string out; colour only when asked for.
import type {Report} from '../core/model/report.js'
import {renderJson} from './json.js'
import {renderYaml} from './yaml.js'

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'junit', 'sarif'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

export interface RenderOptions {
  /** Use ANSI colour (only on a TTY, never with NO_COLOR or --no-color; the command decides). */
  color: boolean
  /** Terminal width, when known. */
  width?: number
}

export function renderReport(report: Report, format: OutputFormat, options: RenderOptions): string {
  switch (format) {
    case 'json':
      return renderJson(report)
    case 'yaml':
      return renderYaml(report)
    default:
      return renderJson(report)
  }
}
