// A fake Environment for live runs with --probe (test/unit/app/live/probe.test.ts, test/unit/app/preflight.test.ts): the
// API answers with a bundle's Nodes; each node's transport answers the plan's `ip -j -d link show` with the node's
// recorded links and the probe's commands with its recorded `mtu-probe` outputs (real outputs, captured in namespaces);
// batch scripts get no framed output, so the plan runs one command at a time; anything else exits 127. It logs, per
// node, `connect`, every command sent and `close`, and counts the connectors opened and closed.
import assert from 'node:assert/strict'
import type {Node} from '../../src/core/model/k8s.js'
import {MTU_PROBE_ARTIFACT, parseMtuProbe} from '../../src/core/collection/mtu-probe.js'
import type {Environment, SnapshotBundle} from '../../src/ports/environment.js'
import type {ExecResult, NodeTransport} from '../../src/ports/node-transport.js'

export function fakeProbeRun(bundle: SnapshotBundle, failConnect: string[] = []): {env: Environment; log: Record<string, string[]>; counts: {connectors: number; closedConnectors: number}} {
  const nodeRecording = (node: string) => bundle.nodes.find((n) => n.node === node)!
  const recorded = (node: string) => {
    const p = parseMtuProbe(nodeRecording(node).artifacts[MTU_PROBE_ARTIFACT]!.content)
    if (!p.ok) throw new Error(`${node}: the bundle's mtu-probe record does not parse`)
    return p.value.peers[0]!
  }
  const ok = (stdout: string): ExecResult => ({exitCode: 0, stdout, stderr: ''})
  const log: Record<string, string[]> = {}
  const counts = {connectors: 0, closedConnectors: 0}
  const nodes: Node[] = bundle.cluster.nodes
  const api = new Proxy(
    {},
    {
      get: (_, key: string) => async (name?: string) => {
        if (key === 'serverVersion') return {gitVersion: 'v1.37.2'}
        if (key === 'listNodes') return nodes
        if (key === 'getNode') return nodes.find((n) => n.metadata.name === name)
        if (key === 'getConfigMap') return undefined
        if (key.startsWith('list')) return []
        // getNodeConfigz, podLogTail: nothing to say.
        return ''
      },
    },
  )
  const transport = (node: string): NodeTransport => {
    const rec = recorded(node)
    const sent = (log[node] ??= [])
    return {
      node,
      kind: 'pod',
      async exec(command) {
        assert.ok(!sent.includes('close'), `${node}: ${command} sent after close`)
        sent.push(command)
        if (command === 'ip -j -d link show') return ok(nodeRecording(node).artifacts['ip-link']!.content)
        if (command.startsWith('ip -d -j route get ')) return ok(rec.route.output)
        const size = /^ping .* -s (\d+) /.exec(command)?.[1]
        const attempt = rec.attempts.find((a) => String(a.size) === size)
        if (attempt) return {exitCode: attempt.exitCode, stdout: attempt.output, stderr: ''}
        return {exitCode: 127, stdout: '', stderr: 'sh: 1: not found\n'}
      },
      async close() {
        sent.push('close')
      },
    }
  }
  const env = {
    cluster: () => ({access: {context: 'test', server: 'https://127.0.0.1:6443'}, api}),
    nodes: () => {
      counts.connectors++
      return {
        kind: 'pod',
        connect: async (n: Node) => {
          ;(log[n.metadata.name] ??= []).push('connect')
          if (failConnect.includes(n.metadata.name)) throw new Error('debug pod did not start')
          return transport(n.metadata.name)
        },
        close: async () => void counts.closedConnectors++,
      }
    },
    stderr: {write: () => true},
  } as unknown as Environment
  return {env, log, counts}
}
