// The agent document framing: round trips in both encodings, finds the document among other log lines, tells an
// unfinished document from a missing one, and turns every kind of corruption into an error naming the node.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {AgentDocumentError, BEGIN_MARKER, encodeAgentDocument, END_MARKER, GZIP_THRESHOLD_BYTES, readAgentDocument} from '../../../../src/core/agent/document.js'
import {type NodeSnapshot, SNAPSHOT_API_VERSION} from '../../../../src/core/model/snapshot.js'

const snapshot = (node: string, content = '*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n'): NodeSnapshot => ({
  apiVersion: SNAPSHOT_API_VERSION,
  kind: 'NodeSnapshot',
  node,
  collectedAt: '2026-01-02T03:04:05.000Z',
  transport: 'local',
  artifacts: {'iptables-save': {id: 'iptables-save', source: 'iptables-save', exitCode: 0, content, durationMs: 12}},
  errors: [],
  durationMs: 40,
})

const complete = (log: string, node: string): NodeSnapshot => {
  const r = readAgentDocument(log, node)
  assert.equal(r.state, 'complete')
  return (r as {snapshot: NodeSnapshot}).snapshot
}

const corrupt = (log: string, node: string, detail: RegExp) =>
  assert.throws(
    () => readAgentDocument(log, node),
    (err: unknown) => err instanceof AgentDocumentError && err.node === node && err.message.startsWith(`agent document from node ${node}: `) && detail.test(err.message),
  )

describe('agent document', () => {
  it('round trips small documents as one JSON line and large ones as gzip+base64 in 76-column lines', () => {
    const small = encodeAgentDocument(snapshot('node-a'))
    assert.match(small, /\nEncoding: json\n/)
    assert.deepEqual(complete(small, 'node-a'), snapshot('node-a'))

    const big = snapshot('node-b', '-A KUBE-SERVICES -j ACCEPT\n'.repeat(Math.ceil((2 * GZIP_THRESHOLD_BYTES) / 27)))
    const text = encodeAgentDocument(big)
    assert.match(text, /\nEncoding: gzip\+base64\n/)
    const body = text.split('\n\n')[1]!.split('\n').slice(0, -2)
    assert.ok(body.every((l) => l.length <= 76))
    assert.ok(text.length < JSON.stringify(big).length / 10, 'repetitive rules compress well')
    assert.deepEqual(complete(text, 'node-b'), big)
  })

  it('any snapshot content survives either encoding, surrounded by other log lines', () => {
    fc.assert(
      fc.property(fc.string({unit: 'grapheme', maxLength: 300}), fc.constantFrom('json', 'gzip+base64' as const), fc.string({maxLength: 40}), (content, encoding, noise) => {
        const s = snapshot('node-x', content)
        const log = `${noise.replaceAll('-----', '')}\nnode-doctor agent starting\n${encodeAgentDocument(s, {encoding})}trailing line\n`
        assert.deepEqual(complete(log, 'node-x'), s)
      }),
    )
  })

  it('absent and incomplete are not errors: the agent is still working', () => {
    assert.deepEqual(readAgentDocument('', 'node-a'), {state: 'absent'})
    assert.deepEqual(readAgentDocument('starting\n', 'node-a'), {state: 'absent'})
    const text = encodeAgentDocument(snapshot('node-a'))
    assert.deepEqual(readAgentDocument(text.slice(0, text.indexOf(END_MARKER)), 'node-a'), {state: 'incomplete'})
  })

  it('corruption is an error naming the node and what is wrong', () => {
    const gz = encodeAgentDocument(snapshot('node-a'), {encoding: 'gzip+base64'})
    const js = encodeAgentDocument(snapshot('node-a'), {encoding: 'json'})
    const lines = gz.split('\n')
    const payload = lines.findIndex((l, i) => i > 0 && lines[i - 1] === '')
    // A flipped base64 character: still base64, but the gzip CRC or the Sha256 catches it.
    const flipped = [...lines]
    flipped[payload] = flipped[payload]!.slice(0, 20) + (flipped[payload]![20] === 'A' ? 'B' : 'A') + flipped[payload]!.slice(21)
    corrupt(flipped.join('\n'), 'node-a', /does not decompress|Sha256|bytes/)
    corrupt(gz.replace(lines[payload]!, `${lines[payload]!.slice(0, 10)}!${lines[payload]!.slice(11)}`), 'node-a', /not base64/)
    // A line lost in the middle of the payload.
    const cut = [...lines]
    cut.splice(payload, 1)
    corrupt(cut.join('\n'), 'node-a', /does not decompress|bytes|Sha256/)
    corrupt(js.replace('"content":"*nat', '"content":"*raw'), 'node-a', /does not match its Sha256/)
    corrupt(js.replace('Version: 1', 'Version: 2'), 'node-a', /version 2 is not supported/)
    corrupt(js, 'node-b', /about node "node-a", not "node-b"/)
    corrupt(js.replace('Encoding: json', 'Encoding: zstd'), 'node-a', /unknown encoding "zstd"/)
    corrupt(js.replace(/Sha256: .*\n/, ''), 'node-a', /Sha256 header is missing/)
    corrupt(js.replace('Length: ', 'Length: x'), 'node-a', /Length "x\d+" is not a number/)
    corrupt(js.replace('Node: node-a', 'Node node-a'), 'node-a', /is not "Name: value"/)
    const notSnapshot = encodeAgentDocument({...snapshot('node-a'), kind: 'ClusterSnapshot'} as unknown as NodeSnapshot)
    corrupt(notSnapshot, 'node-a', /not a node-doctor.io\/v1alpha1 NodeSnapshot/)
    assert.equal(readAgentDocument(js, 'node-a').state, 'complete')
  })

  it('a later document wins over an earlier one (the log of a container that ran twice)', () => {
    const first = encodeAgentDocument(snapshot('node-a', 'old'))
    const second = encodeAgentDocument(snapshot('node-a', 'new'))
    assert.equal(complete(first + second, 'node-a').artifacts['iptables-save']!.content, 'new')
    assert.ok(first.startsWith(BEGIN_MARKER))
  })
})
