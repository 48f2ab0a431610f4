// Ctrl-C must not leave privileged pods behind: a child process holding debug pods (one command running in each,
// or one still starting) is signalled, and the pods must be gone from the fake API server when it has died, by
// that same signal.
import assert from 'node:assert/strict'
import {type ChildProcess, spawn} from 'node:child_process'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import {registerInterruptCleanup, pendingInterruptCleanups} from '../../../src/transports/pod/interrupt.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {node} from '../../support/kube-objects.js'

const HOLDER = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'hold-debug-pods.ts')

interface Held {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>
}

function hold(api: FakeApiServer, nodes: string[]): Held {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, api.kubeconfigPath, ...nodes], {stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('exit', (code, signal) => resolve({code, signal})))
  return {child, stdout: () => out, stderr: () => err, exited}
}

async function until(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('debug pods are deleted on SIGINT/SIGTERM', () => {
  let api: FakeApiServer
  const pods = () => api.objects().filter((o) => o.kind === 'Pod')
  before(async () => {
    api = await startFakeApiServer({objects: [node('node-a', '192.168.0.11', '10.0.1.0/24'), node('node-b', '192.168.0.12', '10.0.2.0/24')]})
  })
  after(() => api.close())

  it('SIGINT with commands running: both pods deleted, then the process dies of SIGINT', async () => {
    const h = hold(api, ['node-a', 'node-b'])
    try {
      await until(() => h.stdout().includes('ready'), 'the child to hold its pods')
      assert.equal(pods().length, 2)
      await until(() => api.requests.filter((r) => r.subresource === 'exec' && r.status === 101).length === 2, 'both commands to run')
      h.child.kill('SIGINT')
      const exit = await h.exited
      assert.deepEqual(exit, {code: null, signal: 'SIGINT'}, h.stderr())
      assert.deepEqual(pods(), [])
      assert.match(h.stderr(), /interrupted: cleaning up debug pod kube-system\/node-doctor-node-a-[0-9a-f]{8}, debug pod kube-system\/node-doctor-node-b-[0-9a-f]{8}/)
    } finally {
      h.child.kill('SIGKILL')
    }
  })

  it('SIGTERM while the pod is still starting: the pod is deleted once its creation is through', async () => {
    api.resetRequests()
    // node-x has no Node object: its pod stays Pending, so the child is inside start() when signalled.
    const h = hold(api, ['node-x'])
    try {
      await until(() => pods().length === 1, 'the pod to be created')
      h.child.kill('SIGTERM')
      const exit = await h.exited
      assert.deepEqual(exit, {code: null, signal: 'SIGTERM'}, h.stderr())
      assert.deepEqual(pods(), [])
      assert.ok(api.requests.some((r) => r.method === 'DELETE' && r.status === 200))
      assert.match(h.stderr(), /terminated: cleaning up debug pod kube-system\/node-doctor-node-x-/)
    } finally {
      h.child.kill('SIGKILL')
    }
  })
})

describe('interrupt registry', () => {
  it('holds signal listeners only while something is registered', () => {
    const before = process.listenerCount('SIGINT')
    const a = registerInterruptCleanup('a', async () => {})
    const b = registerInterruptCleanup('b', async () => {})
    assert.equal(process.listenerCount('SIGINT'), before + 1)
    assert.equal(process.listenerCount('SIGTERM') > 0, true)
    assert.deepEqual(pendingInterruptCleanups(), ['a', 'b'])
    a()
    a()
    assert.deepEqual(pendingInterruptCleanups(), ['b'])
    assert.equal(process.listenerCount('SIGINT'), before + 1)
    b()
    assert.equal(process.listenerCount('SIGINT'), before)
  })
})
