// Renders `kube-proxy show` results: configured vs running mode, the settings table with defaults marked,
// flags, sync metrics and problems; or the result as versioned JSON/YAML. Pure: result in, string out.
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk} from 'chalk'
import {stringify} from 'yaml'
import type {KubeProxyShowResult} from '../core/model/component-settings.js'
import {plainTable, renderIssues, renderSettingsTable, type ShowRenderOptions, truncate} from './kubelet-show.js'
import type {ShowFormat} from './options.js'

function seconds(n: number | undefined): string {
  return n === undefined ? '-' : `${n.toFixed(3)}s`
}

export function renderKubeProxyShow(result: KubeProxyShowResult, format: ShowFormat, options: ShowRenderOptions): string {
  if (format === 'json') return escapeJsonControls(JSON.stringify(result, null, 2)) + '\n'
  if (format === 'yaml') return stringify(result, {lineWidth: 0})
  const c = new Chalk({level: options.color ? 1 : 0})
  const runningText = result.running
    ? `${result.running.mode ?? 'unknown'} (from ${result.running.source === 'proxyMode' ? '/proxyMode' : 'the log'}${result.running.location ? `, ${result.running.location}` : ''})`
    : 'not given (pass the /proxyMode body or the kube-proxy log)'
  const mismatch = result.running?.mode !== undefined && result.running.mode !== result.configuredMode
  const parts = [
    `${c.bold('kube-proxy settings')}${result.node ? ` for node ${result.node}` : ''}${result.version ? ` (kube-proxy ${result.version})` : ''}`,
    '',
    plainTable(
      ['INPUT', 'KIND', 'DETAIL'],
      result.inputs.map((i) => [i.file, i.kind, i.detail ?? '']),
      options.color,
    ),
    '',
    `Configured mode: ${c.bold(result.configuredMode)}`,
    `Running mode:    ${mismatch ? c.red(runningText) : runningText}`,
    '',
    renderSettingsTable(result.settings, options.color, options.all ?? false),
  ]
  if (result.flags.length > 0) {
    parts.push(
      '',
      plainTable(
        ['FLAG', 'STATUS', 'SOURCE', 'SETS'],
        result.flags.map((f) => [truncate(f.flag, 60), f.status, f.location ?? '-', f.overrides ?? '']),
        options.color,
      ),
    )
  }
  if (result.sync) {
    const s = result.sync
    const rows: string[][] = [
      ['last sync (unix)', s.lastSyncTimestampSeconds === undefined ? '-' : String(s.lastSyncTimestampSeconds)],
      ['last queued (unix)', s.lastQueuedTimestampSeconds === undefined ? '-' : String(s.lastQueuedTimestampSeconds)],
      ['pending since last sync', s.pendingSeconds === undefined ? '-' : `${s.pendingSeconds.toFixed(0)}s`],
      ['iptables-restore failures', s.iptablesRestoreFailuresTotal === undefined ? '-' : String(s.iptablesRestoreFailuresTotal)],
      ['partial restore failures', s.iptablesPartialRestoreFailuresTotal === undefined ? '-' : String(s.iptablesPartialRestoreFailuresTotal)],
      ['nftables sync failures', s.nftablesSyncFailuresTotal === undefined ? '-' : String(s.nftablesSyncFailuresTotal)],
      ['sync duration p50 / p99', s.syncDuration ? `${seconds(s.syncDuration.p50)} / ${seconds(s.syncDuration.p99)} over ${s.syncDuration.count} syncs` : '-'],
    ]
    parts.push('', plainTable(['SYNC METRIC', 'VALUE'], rows, options.color))
  }
  parts.push('', renderIssues(result.issues, options.color))
  return parts.join('\n') + '\n'
}
