import {stringify} from 'yaml'
import type {Report} from '../core/model/report.js'

/** The Report as YAML: the same document as the JSON output. */
export function renderYaml(report: Report): string {
  return stringify(report, {lineWidth: 0})
}
