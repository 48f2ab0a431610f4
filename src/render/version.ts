// `version` output: kubectl's "Client Version / Server Version" lines, then a table of each node's kubelet and
// kube-proxy versions and where each kube-proxy version was read. -o json/yaml: the same as a versioned document.
import {Chalk} from 'chalk'
import {stringify} from 'yaml'
import type {VersionView} from '../app/version.js'
import {borderlessTable} from './layout.js'
import {VIEW_API_VERSION} from './table-style.js'
import {escapeJsonControls} from './terminal-safe.js'

export function renderVersion(view: VersionView, format: 'table' | 'json' | 'yaml', options: {color: boolean}): string {
  const doc = {apiVersion: VIEW_API_VERSION, kind: 'Version', ...view}
  if (format === 'json') return escapeJsonControls(JSON.stringify(doc, null, 2)) + '\n'
  if (format === 'yaml') return stringify(doc, {lineWidth: 0})
  const c = new Chalk({level: options.color ? 1 : 0})
  const out = [`Client Version: ${view.client.version} (${view.client.runtime})`]
  if (view.server) out.push(`Server Version: ${view.server.version}${view.server.platform ? ` (${view.server.platform})` : ''}`)
  if (view.nodes && view.nodes.length > 0) {
    const rows = view.nodes.map((n) => [n.name, n.kubelet ?? '-', n.kubeProxy?.version ?? '-', [n.kubeProxy?.from, n.note].filter((x) => x !== undefined).join('; ')])
    out.push('', ...borderlessTable(['NODE', 'KUBELET', 'KUBE-PROXY', 'KUBE-PROXY FROM'], rows, options.color))
  } else if (view.nodes) {
    out.push('', 'No nodes.')
  }
  for (const e of view.errors ?? []) out.push(c.yellow(`warning: ${e}`))
  return out.join('\n') + '\n'
}
