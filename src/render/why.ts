// `why TARGET --from NODE`: the verdict in a few lines (headline, each cause with its finding id and evidence, the
// one next command), or the same data as JSON/YAML. Pure: verdict in, string out; colour only when asked.
import {Chalk} from 'chalk'
import {stringify} from 'yaml'
import type {WhyVerdict} from '../core/why/verdict.js'
import {VIEW_API_VERSION} from './table-style.js'
import {escapeJsonControls} from './terminal-safe.js'

export type WhyFormat = 'table' | 'json' | 'yaml'

export interface WhyRenderOptions {
  color: boolean
}

const EVIDENCE_LINES = 2
const UNKNOWN_LINES = 3

export function renderWhy(v: WhyVerdict, format: WhyFormat, options: WhyRenderOptions): string {
  if (format === 'json' || format === 'yaml') {
    const doc = {apiVersion: VIEW_API_VERSION, kind: 'WhyVerdict', ...v}
    return format === 'json' ? escapeJsonControls(JSON.stringify(doc, null, 2)) + '\n' : stringify(doc, {lineWidth: 0, aliasDuplicateObjects: false})
  }
  const c = new Chalk({level: options.color ? 1 : 0})
  const paint = v.verdict === 'works' ? c.green : v.verdict === 'broken' ? c.red : c.yellow
  const out: string[] = [`${c.bold(`${v.target} from ${v.node}:`)} ${paint(v.headline)}`]
  const lost = v.endpoints?.lost ?? []
  for (const e of lost) out.push(`  ✖ endpoint ${e.ip}${e.pod ? ` (${e.pod}${e.node ? ` on ${e.node}` : ''})` : e.node ? ` (on ${e.node})` : ''}: ${e.by.join(', ')}`)
  if (v.causes.length > 0) out.push('', c.bold('Causes'))
  for (const cause of v.causes) {
    const sev = cause.severity === 'error' ? c.red(cause.severity) : cause.severity === 'warning' ? c.yellow(cause.severity) : cause.severity
    out.push(`  ${cause.id} ${sev}: ${cause.message}`)
    if (cause.breaks) out.push(`    breaks: ${cause.breaks}`)
    for (const e of cause.evidence.slice(0, EVIDENCE_LINES)) out.push(c.dim(`    ${e}`))
  }
  for (const line of v.checked) out.push(`  ${c.green('✔')} ${line}`)
  if (v.unknown.length > 0) {
    out.push('', c.bold('Not judged'), ...v.unknown.slice(0, UNKNOWN_LINES).map((u) => `  ? ${u}`))
    if (v.unknown.length > UNKNOWN_LINES) out.push(c.dim(`  … ${v.unknown.length - UNKNOWN_LINES} more (-o json lists them)`))
  }
  if (v.next) out.push('', `${c.bold('Next:')} ${v.next}`)
  return out.join('\n') + '\n'
}
