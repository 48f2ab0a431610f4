// Renders `kubelet show` results: a borderless table (defaults marked, every value with its source),
// or the result as versioned JSON/YAML. Pure: result in, string out.
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk} from 'chalk'
import {borderlessTable} from './layout.js'
import {stringify} from 'yaml'
import type {ConfigIssue} from '../core/parse/component-config.js'
import type {KubeletShowResult, ShowFlag, ShowSetting} from '../core/model/component-settings.js'
import type {ShowFormat} from './options.js'


export interface ShowRenderOptions {
  color: boolean
  /** Show every setting in the table, not only the important ones and those set explicitly. */
  all?: boolean
}


/** A borderless table with trailing spaces trimmed. */
export function plainTable(head: string[], rows: string[][], color: boolean): string {
  return borderlessTable(head, rows, color).join('\n')
}

export function truncate(s: string, max = 72): string {
  const oneLine = s.replaceAll('\n', '\\n')
  return oneLine.length > max ? oneLine.slice(0, max - 1) + '…' : oneLine
}

export function issueLocation(i: ConfigIssue): string {
  if (!i.source) return '-'
  return i.line === undefined ? i.source : `${i.source}:${i.line}`
}

/** The PROBLEMS section, most severe first (stable within a severity). */
export function renderIssues(issues: readonly ConfigIssue[], color: boolean): string {
  if (issues.length === 0) return 'No problems found.'
  const c = new Chalk({level: color ? 1 : 0})
  const rank = {error: 0, warning: 1, info: 2} as const
  const sorted = issues.map((i, n) => ({i, n})).sort((a, b) => rank[a.i.severity] - rank[b.i.severity] || a.n - b.n)
  const count = (s: ConfigIssue['severity']): number => issues.filter((i) => i.severity === s).length
  const title = `PROBLEMS (${count('error')} error${count('error') === 1 ? '' : 's'}, ${count('warning')} warning${count('warning') === 1 ? '' : 's'}, ${count('info')} info)`
  const paint = (s: ConfigIssue['severity']): string => {
    const t = s.padEnd(7)
    return s === 'error' ? c.red(t) : s === 'warning' ? c.yellow(t) : c.cyan(t)
  }
  const lines = sorted.map(({i}) => `${paint(i.severity)}  ${issueLocation(i)}  ${i.message}`)
  return [c.bold(title), ...lines].join('\n')
}

function sourceText(s: ShowSetting): string {
  switch (s.source) {
    case 'default':
      return `default${s.written ? ` (written: ${s.written})` : ''}`
    case 'flag':
      return `flag ${s.location ?? ''}`.trimEnd()
    case 'drop-in':
      return `drop-in ${s.location ?? ''}`.trimEnd()
    case 'configz':
      return s.location ? `configz ${s.location}` : 'configz (omitted: zero value)'
    case 'unset':
      return s.display === '<unset>' ? 'unset' : 'unset (zero value)'
    case 'file':
      return s.location ?? 'file'
  }
}

function paintSetting(s: ShowSetting, text: string, c: InstanceType<typeof Chalk>): string {
  if (s.source === 'default') return c.dim(text)
  if (s.source === 'flag') return c.yellow(text)
  if (s.source === 'drop-in') return c.cyan(text)
  return text
}

export function renderSettingsTable(settings: readonly ShowSetting[], color: boolean, all: boolean): string {
  const c = new Chalk({level: color ? 1 : 0})
  const rows = settings
    .filter((s) => all || s.important || s.source !== 'default')
    .map((s) => [s.path, paintSetting(s, truncate(s.display), c), paintSetting(s, sourceText(s), c)])
  return plainTable(['SETTING', 'VALUE', 'SOURCE'], rows, color)
}

function flagRows(flags: readonly ShowFlag[], color: boolean): string {
  const c = new Chalk({level: color ? 1 : 0})
  const paint = (st: ShowFlag['status']): string => (st === 'removed' ? c.red(st) : st === 'unknown' ? c.yellow(st) : st === 'deprecated' ? c.dim(st) : st)
  const rows = flags.map((f) => [truncate(f.flag, 60), paint(f.status), `${f.location ?? '-'}${f.via ? ` (${f.via})` : ''}`, f.overrides ?? ''])
  return plainTable(['FLAG', 'STATUS', 'SOURCE', 'OVERRIDES'], rows, color)
}

export function renderKubeletShow(result: KubeletShowResult, format: ShowFormat, options: ShowRenderOptions): string {
  if (format === 'json') return escapeJsonControls(JSON.stringify(result, null, 2)) + '\n'
  if (format === 'yaml') return stringify(result, {lineWidth: 0})
  const c = new Chalk({level: options.color ? 1 : 0})
  const basis = result.basis === 'configz' ? 'the running kubelet (/configz)' : 'files and flags'
  const header = `${c.bold('Kubelet settings')}${result.node ? ` for node ${result.node}` : ''}, from ${basis}${result.version ? ` (kubelet ${result.version})` : ''}`
  const parts = [
    header,
    '',
    plainTable(
      ['INPUT', 'KIND', 'DETAIL'],
      result.inputs.map((i) => [i.file, i.kind, i.detail ?? '']),
      options.color,
    ),
    '',
    renderSettingsTable(result.settings, options.color, options.all ?? false),
  ]
  if (result.flags.length > 0) parts.push('', flagRows(result.flags, options.color))
  if (result.drift.length > 0) {
    parts.push(
      '',
      plainTable(
        ['DRIFT', 'RUNNING', 'FILES AND FLAGS'],
        result.drift.map((d) => [d.path, truncate(d.running, 40), truncate(`${d.intended}${d.intendedLocation ? ` (${d.intendedLocation})` : ''}`, 60)]),
        options.color,
      ),
    )
  }
  parts.push('', renderIssues(result.issues, options.color))
  return parts.join('\n') + '\n'
}
