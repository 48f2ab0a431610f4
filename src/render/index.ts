// The only switch on the output format of a Report: `-o` of check/analyze/fix and every file `preflight` writes.
// Renderers are pure: Report in, string out; colour only when asked for.
import type {Report} from '../core/model/report.js'
import {renderJson} from './json.js'
import {renderJunit} from './junit.js'
import {renderMarkdown} from './markdown.js'
import type {RenderOptions} from './options.js'
import {renderSarif} from './sarif.js'
import {renderTable, renderWide} from './table.js'
import {renderYaml} from './yaml.js'

export type {RenderOptions} from './options.js'

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'junit', 'sarif', 'markdown'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

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
    case 'markdown':
      return renderMarkdown(report, options)
    default: {
      const unknown: never = format
      throw new Error(`unknown output format: ${String(unknown)}`)
    }
  }
}
