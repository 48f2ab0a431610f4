// Agent documents and pod logs from a hostile cluster (issue #14, item 4): a gzip bomb in the document stops at
// the inflated-size limit with a clean error, a lying Length header is refused before inflating, a document
// nested deep is an error rather than a V8 stack overflow, and pod logs are read with limitBytes.
import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {describe, it} from 'node:test'
import {gzipSync} from 'node:zlib'
import {AgentDocumentError, BEGIN_MARKER, END_MARKER, readAgentDocument} from '../../../src/core/agent/document.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {startFakeApiServer} from '../../support/fake-apiserver.js'
import {tempDir} from '../../support/kubeconfig.js'

const MiB = 1024 * 1024

function document(node: string, payload: Buffer, length = payload.length, encoding = 'gzip+base64'): string {
  const body = encoding === 'json' ? payload.toString('utf8') : gzipSync(payload, {level: 9}).toString('base64')
  return [BEGIN_MARKER, 'Version: 1', `Node: ${node}`, `Encoding: ${encoding}`, `Length: ${length}`, `Sha256: ${createHash('sha256').update(payload).digest('hex')}`, '', body, END_MARKER, ''].join('\n')
}

const refused = (log: string, pattern: RegExp) =>
  assert.throws(
    () => readAgentDocument(log, 'node-a'),
    (err: unknown) => err instanceof AgentDocumentError && pattern.test(err.message),
  )

describe('agent document and pod log bounds', () => {
  it('a gzip bomb (256 MiB of zeros in ~250 KB) stops at the 64 MiB limit, whatever its Length header says', () => {
    const zeros = Buffer.alloc(256 * MiB)
    const rss0 = process.memoryUsage().rss
    refused(document('node-a', zeros, 1000), /the inflated payload exceeds the limit of 64 MiB \(NODE_DOCTOR_MAX_AGENT_DOCUMENT_BYTES\)/)
    assert.ok((process.resourceUsage().maxRSS * 1024 - rss0) / MiB < 400)
  })

  it('a Length header over the limit is refused before anything is inflated', () => {
    refused(document('node-a', Buffer.from('{}'), 5 * 1024 * MiB), /the payload \(Length 5368709120\) exceeds the limit of 64 MiB/)
  })

  it('a JSON document nested 100k deep is an error, not a crash', () => {
    const deep = Buffer.from('['.repeat(100_000) + ']'.repeat(100_000))
    refused(document('node-a', deep, deep.length, 'json'), /nested more than 64 levels deep/)
  })

  it('kube-proxy log tails are read with limitBytes (a 2.8 MB log of long lines stays at the limit)', async () => {
    const tmp = tempDir('nd-podlog-')
    const line = 'x'.repeat(1_000_000)
    const api = await startFakeApiServer({
      objects: [{apiVersion: 'v1', kind: 'Pod', metadata: {name: 'kube-proxy-1', namespace: 'kube-system'}, spec: {containers: [{name: 'kube-proxy'}]}} as KubeObject],
      logs: {'kube-system/kube-proxy-1': `${line}\n${line}\n${line}\n`},
    })
    try {
      const {configureLimits, limitsFromEnv, resetLimits} = await import('../../../src/core/limits/limits.js')
      configureLimits(() => limitsFromEnv({NODE_DOCTOR_MAX_POD_LOG_BYTES: '1Mi'}))
      const client = new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('home')))
      const text = await client.podLogTail('kube-system', 'kube-proxy-1', {tailLines: 100})
      assert.equal(text.length, MiB)
      resetLimits()
    } finally {
      await api.close()
      tmp.cleanup()
    }
  })
})
