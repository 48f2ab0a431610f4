import {escapeJsonControls} from './terminal-safe.js'
import type {Report} from '../core/model/report.js'

/** The Report as versioned JSON (validated by schemas/report.schema.json). */
export function renderJson(report: Report): string {
  return escapeJsonControls(JSON.stringify(report, null, 2)) + '\n'
}
