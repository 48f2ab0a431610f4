// Renders the check catalog (`checks`) and one entry (`explain`).
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk} from 'chalk'
import Table from 'cli-table3'
import {stringify} from 'yaml'
import {type CheckSpec, profileOf} from '../core/checks/types.js'
import type {Severity} from '../core/model/report.js'
import {BORDERLESS} from './table-style.js'

function paintSeverity(sev: Severity, color: boolean): string {
  if (!color) return sev
  const c = new Chalk({level: 1})
  return sev === 'error' ? c.red(sev) : sev === 'warning' ? c.yellow(sev) : c.cyan(sev)
}

export function renderCatalog(specs: readonly CheckSpec[], format: 'table' | 'json' | 'yaml', options: {color: boolean}): string {
  // Every item names its profile, the default (`incident`) included, so a reader need not know the default.
  const items = specs.map((s) => ({...s, profile: profileOf(s)}))
  if (format === 'json') return escapeJsonControls(JSON.stringify({apiVersion: 'node-doctor.io/v1alpha1', kind: 'CheckList', items}, null, 2)) + '\n'
  if (format === 'yaml') return stringify({apiVersion: 'node-doctor.io/v1alpha1', kind: 'CheckList', items}, {lineWidth: 0})
  if (specs.length === 0) return 'No checks.\n'
  const table = new Table({
    head: ['ID', 'AREA', 'SEVERITY', 'PROFILE', 'TITLE'],
    chars: BORDERLESS,
    style: {head: options.color ? ['bold'] : [], border: [], 'padding-left': 0, 'padding-right': 0},
  })
  for (const s of specs) table.push([s.id, s.area, paintSeverity(s.severity, options.color), profileOf(s), s.title])
  return table.toString().split('\n').map((l) => l.trimEnd()).join('\n') + '\n'
}

/** `ip-neigh (where it applies), cluster:nodes`: what the runner checks first, then what the check asks for itself. */
function needs(spec: CheckSpec): string {
  const all = [...(spec.requiresWhereApplicable ?? []).map((r) => `${r} (where it applies)`), ...spec.requires]
  return all.length > 0 ? all.join(', ') : '(nothing beyond the cluster snapshot)'
}

export function renderExplain(spec: CheckSpec, options: {color: boolean}): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  const lines = [
    `${c.bold(spec.id)}  ${spec.title}`,
    '',
    `${c.bold('Area:')}      ${spec.area}`,
    `${c.bold('Severity:')}  ${paintSeverity(spec.severity, options.color)}`,
    `${c.bold('Profile:')}   ${profileOf(spec)} (runs with --profile ${profileOf(spec)} or all)`,
    `${c.bold('Needs:')}     ${needs(spec)}`,
    '',
    c.bold('What it looks at'),
    indent(spec.looksAt),
    '',
    c.bold('Why it matters'),
    indent(spec.why),
    '',
    c.bold('Remedy'),
    indent(spec.remedy),
  ]
  return lines.join('\n') + '\n'
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n')
}
