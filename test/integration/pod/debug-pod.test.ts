// DebugPodTransport against the fake API server: the pod it creates, exec through the real pods/exec WebSocket
// protocol (client-node's Exec on one side, the `ws` server and a real process on the other), timeouts, failures
// to start, and deletion. Node node-a exists; exec into its pods runs on this machine unless a netns is mapped.
import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {type KubeAccess, loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {DEFAULT_POD_IMAGE, DebugPodError, DebugPodTransport, type DebugPodTransportOptions} from '../../../src/transports/pod/debug-pod.js'
import {pendingInterruptCleanups} from '../../../src/transports/pod/interrupt.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {node} from '../../support/kube-objects.js'
import {createNetns, type Netns, netnsUnavailable} from '../../support/netns.js'

const namespace = (name: string, labels: Record<string, string> = {}): KubeObject => ({apiVersion: 'v1', kind: 'Namespace', metadata: {name, labels}})

describe('DebugPodTransport', () => {
  let api: FakeApiServer
  let access: KubeAccess
  let client: KubeClusterClient
  const warnings: string[] = []
  const transport = (nodeName = 'node-a', options: DebugPodTransportOptions = {}) =>
    new DebugPodTransport(nodeName, client, access.kc, {pollIntervalMs: 20, warn: (m) => warnings.push(m), ...options})
  const podsInStore = () => api.objects().filter((o) => o.kind === 'Pod')

  before(async () => {
    api = await startFakeApiServer({
      objects: [node('node-a', '192.168.0.11', '10.0.1.0/24'), namespace('locked', {'pod-security.kubernetes.io/enforce': 'baseline'}), namespace('tools')],
      kubelet: {unpullableImages: ['registry.example/missing:1']},
    })
    access = loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, '/nonexistent')
    client = new KubeClusterClient(access)
  })
  after(() => api.close())

  it('creates one privileged pod pinned to the node, sharing its namespaces, tolerating every taint', async () => {
    const t = transport('node-a', {namespace: 'tools', runId: 'abcd1234'})
    try {
      await t.start()
      const pods = podsInStore()
      assert.equal(pods.length, 1)
      const pod = pods[0] as KubeObject & {spec: Record<string, any>; status: {phase: string}}
      assert.equal(pod.metadata.name, 'node-doctor-node-a-abcd1234')
      assert.equal(pod.metadata.namespace, 'tools')
      assert.deepEqual(pod.metadata.labels, {'app.kubernetes.io/managed-by': 'node-doctor', 'node-doctor.io/run': 'abcd1234'})
      assert.equal(pod.status.phase, 'Running')
      const {containers, ...spec} = pod.spec
      assert.deepEqual(spec, {
        nodeName: 'node-a',
        hostNetwork: true,
        hostPID: true,
        hostIPC: true,
        restartPolicy: 'Never',
        activeDeadlineSeconds: 3600,
        terminationGracePeriodSeconds: 0,
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        tolerations: [{operator: 'Exists'}],
      })
      assert.equal(containers.length, 1)
      assert.deepEqual(containers[0], {
        name: 'node-doctor',
        image: DEFAULT_POD_IMAGE,
        imagePullPolicy: 'IfNotPresent',
        command: ['sleep', '3600'],
        securityContext: {privileged: true},
        resources: {requests: {cpu: '10m', memory: '16Mi'}},
      })
      assert.deepEqual(pendingInterruptCleanups(), ['debug pod tools/node-doctor-node-a-abcd1234'])
    } finally {
      await t.close()
    }
    assert.deepEqual(pendingInterruptCleanups(), [], 'close() unregisters the interrupt cleanup')
  })

  it('runs commands under nsenter over the v5 channel protocol: stdout, stderr and exit codes', async () => {
    const t = transport()
    try {
      api.execs.length = 0
      const ok = await t.exec("printf 'out\\n'; printf 'err\\n' >&2", {timeoutMs: 10_000})
      assert.deepEqual(ok, {exitCode: 0, stdout: 'out\n', stderr: 'err\n'})
      const failed = await t.exec('echo partial; exit 42', {timeoutMs: 10_000})
      assert.deepEqual(failed, {exitCode: 42, stdout: 'partial\n', stderr: ''})
      const missing = await t.exec('definitely-not-a-command-nd', {timeoutMs: 10_000})
      assert.equal(missing.exitCode, 127)
      assert.match(missing.stderr, /not found/)
      assert.deepEqual(api.execs[0]!.command, ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', 'sh', '-c', "printf 'out\\n'; printf 'err\\n' >&2"])
      assert.equal(api.execs[0]!.protocol, 'v5.channel.k8s.io')
      assert.equal(api.execs[0]!.container, 'node-doctor')
      const execRequests = api.requests.filter((r) => r.subresource === 'exec')
      assert.ok(execRequests.every((r) => r.verb === 'create' && r.status === 101 && r.query.stdout === 'true' && r.query.stdin === 'false'))
    } finally {
      await t.close()
    }
  })

  it('carries large outputs intact, runs commands concurrently, and cuts output at maxBytes', async () => {
    const t = transport()
    try {
      const big = await t.exec('head -c 6000000 /dev/zero | tr "\\0" "x"; echo', {timeoutMs: 20_000})
      assert.equal(big.exitCode, 0)
      assert.equal(big.stdout.length, 6_000_001)
      const many = await Promise.all(Array.from({length: 8}, (_, i) => t.exec(`sleep 0.2; echo ${i}`, {timeoutMs: 10_000})))
      assert.deepEqual(many.map((r) => r.stdout), Array.from({length: 8}, (_, i) => `${i}\n`))
      const cut = await t.exec('head -c 1000000 /dev/zero', {timeoutMs: 10_000, maxBytes: 1000})
      assert.equal(cut.exitCode, null)
      assert.match(cut.stderr, /output exceeded 1000 bytes and was cut/)
    } finally {
      await t.close()
    }
  })

  it('times out by hanging up: timedOut, no exit code, partial output kept, and the command is killed', async () => {
    const t = transport()
    try {
      api.execs.length = 0
      const started = Date.now()
      const r = await t.exec('echo before; sleep 30; echo after', {timeoutMs: 500})
      assert.ok(Date.now() - started < 15_000, 'returned at the timeout, long before the command would end')
      assert.equal(r.timedOut, true)
      assert.equal(r.exitCode, null)
      assert.equal(r.stdout, 'before\n')
      await until(() => api.execs.length === 1, 'the fake to see the hang-up')
      assert.equal(api.execs[0]!.hungUp, true)
      const next = await t.exec('echo still usable', {timeoutMs: 10_000})
      assert.equal(next.stdout, 'still usable\n')
    } finally {
      await t.close()
    }
  })

  it('close() deletes the pod with grace period 0, is idempotent, and refuses later commands', async () => {
    const t = transport()
    await t.start()
    assert.equal(podsInStore().length, 1)
    const uid = podsInStore()[0]!.metadata.uid
    api.resetRequests()
    await Promise.all([t.close(), t.close()])
    await t.close()
    assert.deepEqual(podsInStore(), [])
    const deletes = api.requests.filter((r) => r.method === 'DELETE')
    assert.deepEqual(deletes.map((r) => [r.namespace, r.name, r.status]), [['kube-system', t.podName, 200]])
    assert.deepEqual(deletes[0]!.body, {apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: {uid: uid!}})
    await assert.rejects(t.exec('true', {timeoutMs: 1000}), (err: unknown) => err instanceof DebugPodError && err.reason === 'closed')
  })

  it('reports a pod deleted under a running command as a lost stream, not as an exit code', async () => {
    const t = transport()
    try {
      await t.start()
      const running = t.exec('sleep 30', {timeoutMs: 20_000})
      await until(() => api.requests.some((r) => r.subresource === 'exec' && r.status === 101), 'the exec to start')
      await new Promise((r) => setTimeout(r, 200))
      assert.ok(api.remove('v1', 'Pod', t.podName, 'kube-system'))
      await assert.rejects(running, (err: unknown) => err instanceof DebugPodError && err.reason === 'disconnected')
    } finally {
      await t.close()
    }
  })

  it('surfaces why a pod never runs: unpullable image, Pod Security, an admission webhook, unknown node, missing namespace; and deletes it', async () => {
    const pull = transport('node-a', {image: 'registry.example/missing:1'})
    await assert.rejects(pull.start(), (err: unknown) => {
      assert.ok(err instanceof DebugPodError)
      assert.equal(err.reason, 'image-pull')
      assert.match(err.message, /container ImagePullBackOff: Back-off pulling image "registry.example\/missing:1"/)
      assert.match(err.hint ?? '', /--pod-image/)
      return true
    })
    assert.deepEqual(podsInStore(), [], 'the failed pod is deleted')

    const psa = transport('node-a', {namespace: 'locked'})
    await assert.rejects(psa.start(), (err: unknown) => {
      assert.ok(err instanceof DebugPodError)
      assert.equal(err.reason, 'pod-security')
      assert.match(
        err.message,
        /violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true, hostPID=true, hostIPC=true\), privileged \(container "node-doctor" must not set securityContext.privileged=true\)/,
      )
      assert.match(err.hint ?? '', /kubectl label namespace locked pod-security.kubernetes.io\/enforce=privileged/)
      return true
    })

    api.setPodWebhookDenial({name: 'validation.gatekeeper.sh', message: '[k8spspprivileged] Privileged container is not allowed: node-doctor', code: 403})
    try {
      const policy = transport('node-a', {namespace: 'tools'})
      await assert.rejects(policy.start(), (err: unknown) => {
        assert.ok(err instanceof DebugPodError)
        assert.equal(err.reason, 'admission-webhook')
        assert.match(err.message, /the admission webhook validation.gatekeeper.sh refused it: admission webhook "validation.gatekeeper.sh" denied the request: \[k8spspprivileged\] Privileged container is not allowed/)
        assert.match(err.hint ?? '', /app.kubernetes.io\/managed-by=node-doctor.*--via ssh/)
        return true
      })
    } finally {
      api.setPodWebhookDenial(undefined)
    }

    const lost = transport('node-gone', {startTimeoutMs: 300})
    await assert.rejects(lost.start(), (err: unknown) => {
      assert.ok(err instanceof DebugPodError)
      assert.equal(err.reason, 'start-timeout')
      assert.match(err.message, /not running after \d+s: not scheduled: Unschedulable: 0\/1 nodes are available: node "node-gone" not found/)
      return true
    })

    const nowhere = transport('node-a', {namespace: 'no-such-ns'})
    await assert.rejects(nowhere.start(), (err: unknown) => err instanceof DebugPodError && err.reason === 'create-refused' && /namespaces "no-such-ns" not found/.test(err.message))
    assert.deepEqual(podsInStore(), [])
    assert.deepEqual(pendingInterruptCleanups(), [])
    assert.deepEqual(warnings, [])
  })

  it('names the missing permission when pods/exec is forbidden', async () => {
    const t = transport()
    api.setDenyRules([{resource: 'pods', subresource: 'exec', verb: 'create'}])
    try {
      await assert.rejects(t.exec('true', {timeoutMs: 5000}), (err: unknown) => {
        assert.ok(err instanceof DebugPodError)
        assert.equal(err.reason, 'exec-refused')
        assert.match(err.hint ?? '', /kubectl auth can-i create pods\/exec -n kube-system/)
        return true
      })
    } finally {
      api.setDenyRules([])
      await t.close()
    }
    assert.deepEqual(podsInStore(), [])
  })

  it('warns, without failing, when the pod cannot be deleted', async () => {
    const t = transport()
    await t.start()
    api.setDenyRules([{resource: 'pods', verb: 'delete'}])
    try {
      await t.close()
      assert.equal(warnings.length, 1)
      assert.match(warnings[0]!, /could not delete debug pod kube-system\/node-doctor-node-a-\w+ on node node-a: .*forbidden.*kubectl node-doctor cleanup --pod-namespace kube-system/)
    } finally {
      api.setDenyRules([])
      warnings.length = 0
      api.remove('v1', 'Pod', t.podName, 'kube-system')
    }
  })
})

describe('DebugPodTransport on a node that is a network namespace', {skip: netnsUnavailable()}, () => {
  let api: FakeApiServer
  let ns: Netns
  let t: DebugPodTransport

  before(async () => {
    ns = createNetns('ndpod')
    ns.exec(['iptables', '-t', 'nat', '-N', 'KUBE-SERVICES'])
    ns.exec(['iptables', '-t', 'nat', '-A', 'PREROUTING', '-m', 'comment', '--comment', 'kubernetes service portals', '-j', 'KUBE-SERVICES'])
    api = await startFakeApiServer({objects: [node('node-a', '192.168.0.11', '10.0.1.0/24')], kubelet: {netns: {'node-a': ns.name}}})
    const access = loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, '/nonexistent')
    t = new DebugPodTransport('node-a', new KubeClusterClient(access), access.kc, {pollIntervalMs: 20})
  })
  after(async () => {
    await t?.close()
    await api?.close()
    ns?.destroy()
  })

  it("runs iptables-save in the node's namespace, seeing its rules", async () => {
    const r = await t.exec('iptables-save -t nat', {timeoutMs: 20_000})
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^:KUBE-SERVICES - \[0:0\]$/m)
    assert.match(r.stdout, /^-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES$/m)
    const links = await t.exec('ip -o link show', {timeoutMs: 20_000})
    assert.deepEqual(links.stdout.trim().split('\n').map((l) => l.split(':')[1]!.trim()), ['lo'], 'only the namespace\'s own interfaces')
    assert.equal(api.execs.at(-1)!.netns, ns.name)
  })
})

describe('DebugPodTransport on a host without a shell (Talos, Bottlerocket)', {skip: netnsUnavailable()}, () => {
  let ns: Netns
  let api: FakeApiServer
  let t: DebugPodTransport
  const warnings: string[] = []
  before(async () => {
    ns = createNetns('ndt')
    ns.exec(['iptables', '-t', 'nat', '-N', 'KUBE-SERVICES'])
    api = await startFakeApiServer({objects: [node('node-t', '192.168.0.12', '10.0.2.0/24')], kubelet: {netns: {'node-t': ns.name}, hostsWithoutShell: ['node-t']}})
    const access = loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, '/nonexistent')
    t = new DebugPodTransport('node-t', new KubeClusterClient(access), access.kc, {pollIntervalMs: 20, warn: (m) => warnings.push(m)})
  })
  after(async () => {
    await t?.close()
    await api?.close()
    ns?.destroy()
  })

  it("falls back once to the host's network with the pod's tools, says so, and reads the node's rules", async () => {
    const [a, b] = await Promise.all([t.exec('iptables-save -t nat', {timeoutMs: 20_000}), t.exec('ip -o link show', {timeoutMs: 20_000})])
    assert.equal(a.exitCode, 0, a.stderr)
    assert.match(a.stdout, /^:KUBE-SERVICES - \[0:0\]$/m)
    assert.deepEqual(b.stdout.trim().split('\n').map((l) => l.split(':')[1]!.trim()), ['lo'], "the node's own interfaces")
    assert.equal(t.scope, 'host-network')
    assert.equal(warnings.filter((w) => w.includes('the host has no shell')).length, 1, warnings.join('\n'))
    const failed = api.execs.filter((e) => e.exitCode === 127)
    const ran = api.execs.filter((e) => e.exitCode === 0)
    assert.equal(failed.length, 2, 'each first try met the missing shell')
    for (const e of failed) assert.ok(e.command.slice(0, e.command.indexOf('--')).includes('-m'))
    assert.equal(ran.length, 2)
    for (const e of ran) {
      assert.deepEqual(e.command.slice(0, 8), ['nsenter', '-t', '1', '-u', '-i', '-n', '-p', '--'], 'no -m: the pod\'s own root')
      assert.deepEqual(e.command.slice(8, 11), ['unshare', '-m', '--'])
      assert.match(e.command.at(-2)!, /mount -o rbind "\/proc\/1\/root\/\$d" "\/\$d"/, "the host's directories bound over the image's")
    }
    // Later commands go straight to the fallback.
    const before = api.execs.length
    assert.equal((await t.exec('true', {timeoutMs: 20_000})).exitCode, 0)
    assert.equal(api.execs.length, before + 1)
  })
})

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}
