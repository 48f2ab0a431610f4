// PROXY-010 for `proxy diff --other-backend-save`: the same check, fed from the two dump files instead of a snapshot.
import {SNAPSHOT_API_VERSION, type NodeSnapshot} from '../../model/snapshot.js'
import {emptyClusterSnapshot} from '../../model/snapshot.js'
import type {CheckResult, Finding} from '../../model/report.js'
import type {IptablesDump} from '../../parse/iptables-save.js'
import {runChecks} from '../run.js'
import {PROXY_MODE_CHECKS} from './index.js'

export function dualBackendResult(node: string, dump: IptablesDump, otherText: string): {result: CheckResult; findings: Finding[]} {
  const check = PROXY_MODE_CHECKS.find((c) => c.spec.id === 'PROXY-010')!
  const main = dump.backend === 'legacy' ? 'iptables-legacy-save' : 'iptables-nft-save'
  const other = main === 'iptables-legacy-save' ? 'iptables-nft-save' : 'iptables-legacy-save'
  const mainText = dump.tables.map((t) => [`*${t.name}`, ...t.chains.map((c) => `:${c.name} ${c.policy ?? '-'} [0:0]`), 'COMMIT'].join('\n')).join('\n') + '\n'
  const a = (id: string, content: string) => ({id, source: id, content})
  const snapshot: NodeSnapshot = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node,
    collectedAt: '',
    transport: 'files',
    artifacts: {
      [main]: a(main, mainText),
      [other]: a(other, otherText),
      'iptables-version': a('iptables-version', `iptables v${dump.version ?? '1.8'} (${dump.backend === 'legacy' ? 'legacy' : 'nf_tables'})`),
    },
    errors: [],
  }
  // The runner makes the result and the findings, as for any check; only a bug in the check reaches `errors`.
  const run = runChecks([check], emptyClusterSnapshot(''), [snapshot])
  if (run.errors.length > 0) throw new Error(run.errors[0]!.message)
  return {result: run.results[0]!, findings: run.findings}
}
