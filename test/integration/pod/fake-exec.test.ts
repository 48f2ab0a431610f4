// Pins the fake API server's pod creation and pods/exec wire format against what kube-apiserver and the kubelet
// send, with a raw `ws` client: subprotocol negotiation, the empty "ready" frame, channel-prefixed frames, the
// status channel's metav1.Status, and the HTTP refusals before an upgrade.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import https from 'node:https'
import {createRequire} from 'node:module'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {node} from '../../support/kube-objects.js'

interface WsClient {
  protocol: string
  on(event: 'message', listener: (data: Buffer) => void): this
  on(event: 'close', listener: (code: number) => void): this
  on(event: 'unexpected-response', listener: (req: unknown, res: import('node:http').IncomingMessage) => void): this
  on(event: 'error', listener: (err: Error) => void): this
  close(): void
}
const {WebSocket} = createRequire(import.meta.url)('ws') as {
  WebSocket: new (url: string, protocols: string[], options: {ca: Buffer; headers: Record<string, string>}) => WsClient
}

type Session = {protocol: string; frames: Array<[number, string]>; closeCode: number} | {status: number; body: any}

function exec(api: FakeApiServer, pod: string, query: string, protocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io']): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${api.url.replace('https', 'wss')}/api/v1/namespaces/kube-system/pods/${pod}/exec?${query}`, protocols, {
      ca: readFileSync(api.caFile!),
      headers: {Authorization: `Bearer ${api.token}`},
    })
    const frames: Array<[number, string]> = []
    ws.on('message', (d) => frames.push([d[0]!, d.subarray(1).toString('utf8')]))
    ws.on('close', (closeCode) => resolve({protocol: ws.protocol, frames, closeCode}))
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (c: string) => (body += c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body: JSON.parse(body)}))
    })
    ws.on('error', reject)
  })
}

function post(api: FakeApiServer, path: string, body: unknown): Promise<{status: number; json: any}> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, api.url), {method: 'POST', ca: readFileSync(api.caFile!), headers: {Authorization: `Bearer ${api.token}`, 'Content-Type': 'application/json'}}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (d: string) => (text += d))
      res.on('end', () => resolve({status: res.statusCode ?? 0, json: JSON.parse(text)}))
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

const cmd = (...argv: string[]) => argv.map((a) => `command=${encodeURIComponent(a)}`).join('&')
const podManifest = (name: string, nodeName: string, containers = ['main']): KubeObject =>
  ({apiVersion: 'v1', kind: 'Pod', metadata: {name}, spec: {nodeName, containers: containers.map((c) => ({name: c, image: 'busybox'}))}}) as KubeObject

describe('fake API server: pod creation and pods/exec', () => {
  let api: FakeApiServer
  before(async () => {
    api = await startFakeApiServer({objects: [node('node-a', '192.168.0.11', '10.0.1.0/24')], kubelet: {startDelayMs: 100}})
  })
  after(() => api.close())

  const phase = (name: string) => (api.objects().find((o) => o.metadata.name === name) as {status?: {phase?: string}} | undefined)?.status?.phase

  it('creates pods Pending, then Running once the kubelet of a known node has started them', async () => {
    const r = await post(api, '/api/v1/namespaces/kube-system/pods', podManifest('p1', 'node-a'))
    assert.equal(r.status, 201)
    assert.equal(r.json.kind, 'Pod')
    assert.equal(r.json.status.phase, 'Pending')
    assert.match(r.json.metadata.uid, /^[0-9a-f-]{36}$/)
    assert.match(r.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    await until(() => phase('p1') === 'Running')
    const again = await post(api, '/api/v1/namespaces/kube-system/pods', podManifest('p1', 'node-a'))
    assert.equal(again.status, 409)
    assert.equal(again.json.reason, 'AlreadyExists')
    assert.equal(again.json.message, 'pods "p1" already exists')
    const unknown = await post(api, '/api/v1/namespaces/kube-system/pods', podManifest('p2', 'node-x'))
    assert.equal(unknown.status, 201)
    await until(() => (api.objects().find((o) => o.metadata.name === 'p2') as any)?.status?.conditions?.[0]?.reason === 'Unschedulable')
    assert.equal(phase('p2'), 'Pending')
    const generated = await post(api, '/api/v1/namespaces/kube-system/pods', {...podManifest('', 'node-a'), metadata: {generateName: 'gen-'}})
    assert.match(generated.json.metadata.name, /^gen-[a-z0-9]{5}$/)
  })

  it('speaks v5 (or v4 when only that is offered): an empty ready frame, channel frames, then the status', async () => {
    await until(() => phase('p1') === 'Running')
    const s = await exec(api, 'p1', `stdout=true&stderr=true&${cmd('sh', '-c', 'echo out; echo err >&2')}`)
    assert.ok('frames' in s)
    assert.equal(s.protocol, 'v5.channel.k8s.io')
    assert.deepEqual(s.frames[0], [1, ''], 'the kubelet first sends an empty frame on the lowest writable channel')
    assert.deepEqual(s.frames.filter(([c]) => c === 1).map(([, d]) => d).join(''), 'out\n')
    assert.deepEqual(s.frames.filter(([c]) => c === 2).map(([, d]) => d).join(''), 'err\n')
    assert.deepEqual(s.frames.at(-1), [3, '{"metadata":{},"status":"Success"}'])
    assert.equal(s.closeCode, 1000)

    const v4 = await exec(api, 'p1', `stdout=true&${cmd('sh', '-c', 'echo hidden >&2; exit 3')}`, ['v4.channel.k8s.io'])
    assert.ok('frames' in v4)
    assert.equal(v4.protocol, 'v4.channel.k8s.io')
    assert.ok(!v4.frames.some(([c]) => c === 2), 'stderr was not asked for')
    assert.deepEqual(JSON.parse(v4.frames.at(-1)![1]), {
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: error executing command [sh -c echo hidden >&2; exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: {causes: [{reason: 'ExitCode', message: '3'}]},
    })
    assert.equal(v4.frames.at(-1)![0], 3)
  })

  it('refuses before upgrading with kube-apiserver Status bodies', async () => {
    const pending = await post(api, '/api/v1/namespaces/kube-system/pods', podManifest('p3', 'node-a', ['a', 'b']))
    assert.equal(pending.status, 201)
    const notRunning = await exec(api, 'p3', `stdout=true&container=a&${cmd('true')}`)
    assert.deepEqual('status' in notRunning && [notRunning.status, notRunning.body.message], [400, 'unable to upgrade connection: container not found ("a")'])
    await until(() => phase('p3') === 'Running')
    const which = await exec(api, 'p3', `stdout=true&${cmd('true')}`)
    assert.deepEqual('status' in which && [which.status, which.body.message], [400, 'a container name must be specified for pod p3, choose one of: [a b]'])
    const gone = await exec(api, 'nope', `stdout=true&${cmd('true')}`)
    assert.deepEqual('status' in gone && [gone.status, gone.body.reason], [404, 'NotFound'])
    api.setDenyRules([{resource: 'pods', subresource: 'exec'}])
    try {
      const denied = await exec(api, 'p1', `stdout=true&${cmd('true')}`)
      assert.ok('status' in denied)
      assert.equal(denied.status, 403)
      assert.equal(denied.body.message, 'pods "p1" is forbidden: User "fake-user" cannot create resource "pods/exec" in API group "" in the namespace "kube-system"')
    } finally {
      api.setDenyRules([])
    }
  })
})

async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) assert.fail('timed out waiting')
    await new Promise((r) => setTimeout(r, 10))
  }
}
