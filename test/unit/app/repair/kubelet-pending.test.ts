// fix kubelet's pending differences (files changed since the kubelet started): where each files' value comes from,
// where `keep` can write the running value back (the --config file, the drop-in that sets it; not a flag, not a
// value /configz leaves out), the question, and answers -> edits. The configurations are built the way the checks
// build them (kubeletView over a node snapshot: config.yaml, a --config-dir drop-in, kubeadm-flags.env, /configz).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {type ConfigFileText, editYamlText} from '../../../../src/app/repair/kubelet-edit.js'
import {decidePending, describePending, type PendingDifference, pendingDifferences, pendingQuestion} from '../../../../src/app/repair/kubelet-pending.js'
import {DROPIN_HEADER, kubeletView} from '../../../../src/core/checks/kubelet/view.js'
import type {KubeObject, Node} from '../../../../src/core/model/k8s.js'
import {emptyClusterSnapshot, type NodeSnapshot} from '../../../../src/core/model/snapshot.js'
import {parseKubeletConfig} from '../../../../src/core/parse/kubelet-config.js'
import {UsageError} from '../../../../src/errors.js'

const CONFIG = '/var/lib/kubelet/config.yaml'
const DROPIN = '/etc/kubernetes/kubelet.conf.d/20-gc.conf'
const FLAGS_ENV = '/var/lib/kubelet/kubeadm-flags.env'

/** config.yaml as kubeadm wrote it, with comments; the kubelet started from this. */
const STARTED_CONFIG = `# Written by kubeadm join; node-specific edits belong in a drop-in.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
cgroupDriver: systemd # must match containerd's SystemdCgroup
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
maxPods: 110 # sized for the node's pod CIDR
`
const STARTED_DROPIN = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nimageGCHighThresholdPercent: 85\n'
const STARTED_FLAGS = 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n'

const nodeObject = {apiVersion: 'v1', kind: 'Node', metadata: {name: 'node-a'}, status: {nodeInfo: {kubeletVersion: 'v1.33.1'}}} as KubeObject as Node

function snapshot(config: string, dropIn: string, flagsEnv: string): NodeSnapshot {
  const art = (id: string, content: string) => ({id, source: id, content})
  return {
    apiVersion: 'node-doctor.io/v1alpha1',
    kind: 'NodeSnapshot',
    node: 'node-a',
    collectedAt: '2026-12-01T00:00:00Z',
    transport: 'files',
    artifacts: {
      'kubelet-config': art('kubelet-config', `# node-doctor-file: ${CONFIG}\n${config}`),
      'kubelet-dropins': art('kubelet-dropins', `${DROPIN_HEADER}${DROPIN}\n${dropIn}`),
      'kubeadm-flags': art('kubeadm-flags', flagsEnv),
    },
    errors: [],
  } as NodeSnapshot
}

/** The pending differences when the kubelet started from the STARTED_* files and the files are now these. */
function pendingFor(now: {config?: string; dropIn?: string; flags?: string}, edited: string[] = []): {pending: PendingDifference[]; main: ConfigFileText; dropIn: ConfigFileText} {
  const cluster = {...emptyClusterSnapshot('2026-12-01T00:00:00Z'), nodes: [nodeObject]}
  const started = kubeletView({cluster, node: snapshot(STARTED_CONFIG, STARTED_DROPIN, STARTED_FLAGS)})
  assert.ok(started.next.ok)
  const configz = JSON.stringify({kubeletconfig: started.next.value.values})
  const config = now.config ?? STARTED_CONFIG
  const dropInText = now.dropIn ?? STARTED_DROPIN
  const view = kubeletView({cluster: {...cluster, configz: {'node-a': configz}}, node: snapshot(config, dropInText, now.flags ?? STARTED_FLAGS)})
  assert.ok(view.next.ok && view.running.ok)
  const main = {path: CONFIG, text: config, config: parseKubeletConfig(config, {source: CONFIG})}
  const dropIn = {path: DROPIN, text: dropInText, config: parseKubeletConfig(dropInText, {source: DROPIN, originKind: 'drop-in'})}
  return {pending: pendingDifferences(view.next.value, view.running.value, {edited: new Set(edited), main, dropIns: [dropIn]}), main, dropIn}
}

describe('pendingDifferences: where each files value comes from and where keep writes', () => {
  it('a value changed in config.yaml: keep writes the running value back to config.yaml', () => {
    const {pending} = pendingFor({config: STARTED_CONFIG.replace('maxPods: 110', 'maxPods: 250')})
    assert.deepEqual(pending.map((p) => [p.field, p.from, p.to, p.origin, p.keep]), [['maxPods', 110, 250, `${CONFIG}:17`, {file: CONFIG}]])
  })

  it('a value changed in a --config-dir drop-in: keep writes it back to that drop-in', () => {
    const {pending} = pendingFor({dropIn: STARTED_DROPIN.replace('85', '90')})
    assert.deepEqual(pending.map((p) => [p.field, p.from, p.to, p.keep]), [['imageGCHighThresholdPercent', 85, 90, {file: DROPIN}]])
    assert.match(pending[0]!.origin, /20-gc\.conf:3$/)
  })

  it('a value a flag in kubeadm-flags.env sets: keep is not possible, and says why and what to do', () => {
    const {pending} = pendingFor({flags: STARTED_FLAGS.replace('"\n', ' --max-pods=200"\n')})
    assert.equal(pending.length, 1)
    const p = pending[0]!
    assert.deepEqual([p.field, p.from, p.to], ['maxPods', 110, 200])
    assert.match(p.origin, /^flag --max-pods=200 via \$KUBELET_KUBEADM_ARGS at \/var\/lib\/kubelet\/kubeadm-flags\.env:1$/)
    assert.ok('unavailable' in p.keep)
    assert.match(p.keep.unavailable, /comes from the kubelet flag --max-pods=200 via \$KUBELET_KUBEADM_ARGS \(\/var\/lib\/kubelet\/kubeadm-flags\.env:1\), and fix kubelet writes only KubeletConfiguration files; change or remove that flag by hand/)
  })

  it('a value the running kubelet leaves out of /configz: nothing to write back', () => {
    const {pending} = pendingFor({config: `${STARTED_CONFIG}staticPodPath: /etc/kubernetes/manifests\n`})
    assert.deepEqual(pending.map((p) => [p.field, p.from, p.to]), [['staticPodPath', undefined, '/etc/kubernetes/manifests']])
    assert.ok('unavailable' in pending[0]!.keep)
    assert.match(pending[0]!.keep.unavailable, /reports no value for staticPodPath .*; remove staticPodPath from \/var\/lib\/kubelet\/config\.yaml by hand/)
  })

  it('a line removed since the start (the files fall back to the default): keep adds the running value back to config.yaml', () => {
    const started = STARTED_CONFIG.replace('maxPods: 110', 'maxPods: 250')
    const cluster = {...emptyClusterSnapshot('2026-12-01T00:00:00Z'), nodes: [nodeObject]}
    const then = kubeletView({cluster, node: snapshot(started, STARTED_DROPIN, STARTED_FLAGS)})
    assert.ok(then.next.ok)
    const now = STARTED_CONFIG.replace("maxPods: 110 # sized for the node's pod CIDR\n", '')
    const view = kubeletView({cluster: {...cluster, configz: {'node-a': JSON.stringify({kubeletconfig: then.next.value.values})}}, node: snapshot(now, STARTED_DROPIN, STARTED_FLAGS)})
    assert.ok(view.next.ok && view.running.ok)
    const main = {path: CONFIG, text: now, config: parseKubeletConfig(now, {source: CONFIG})}
    const dropIn = {path: DROPIN, text: STARTED_DROPIN, config: parseKubeletConfig(STARTED_DROPIN, {source: DROPIN, originKind: 'drop-in'})}
    const pending = pendingDifferences(view.next.value, view.running.value, {edited: new Set(), main, dropIns: [dropIn]})
    assert.deepEqual(pending.map((p) => [p.field, p.from, p.to, p.keep]), [['maxPods', 250, 110, {file: CONFIG}]])
    assert.match(pending[0]!.origin, /^kubelet default/)
    const d = decidePending(pending, ['keep'])
    assert.ok(d.kind === 'go')
    assert.equal(editYamlText(now, d.keep, CONFIG), `${now}maxPods: 250\n`, 'added at the end, everything else as it was')
  })

  it('a field the change itself sets is not pending', () => {
    assert.deepEqual(pendingFor({config: STARTED_CONFIG.replace('maxPods: 110', 'maxPods: 250')}, ['/maxPods']).pending, [])
  })
})

describe('decidePending and the write-back', () => {
  const config = STARTED_CONFIG.replace('maxPods: 110 #', 'maxPods: 250 #')
  const dropIn = STARTED_DROPIN.replace('85', '90')
  const flags = STARTED_FLAGS.replace('"\n', ' --cluster-dns=10.96.0.53"\n')
  const {pending} = pendingFor({config, dropIn, flags})
  const byField = Object.fromEntries(pending.map((p) => [p.field, p]))

  it('finds the three differences, each from its own place', () => {
    assert.deepEqual(pending.map((p) => [p.field, 'file' in p.keep ? p.keep.file : 'not writable']).sort(), [
      ['clusterDNS', 'not writable'],
      ['imageGCHighThresholdPercent', DROPIN],
      ['maxPods', CONFIG],
    ])
  })

  it('keep in config.yaml: the running value goes back with its comment, every other line and field unchanged', () => {
    const d = decidePending([byField.maxPods!], ['keep'])
    assert.equal(d.kind, 'go')
    if (d.kind !== 'go') return
    assert.deepEqual(d.keep.map((k) => [k.file, k.field, k.ptr, k.value]), [[CONFIG, 'maxPods', '/maxPods', 110]])
    assert.deepEqual(d.decided.map((p) => p.choice), ['keep'])
    const after = editYamlText(config, d.keep, CONFIG)
    assert.equal(after, STARTED_CONFIG, 'exactly the file the kubelet started from: comments, order and the other fields kept')
  })

  it('keep in the drop-in writes to the drop-in only', () => {
    const d = decidePending([byField.imageGCHighThresholdPercent!], ['keep'])
    assert.ok(d.kind === 'go')
    assert.deepEqual(d.keep.map((k) => k.file), [DROPIN])
    assert.equal(editYamlText(dropIn, d.keep, DROPIN), STARTED_DROPIN)
  })

  it('apply writes nothing; the choices are kept in order for the plan and the summary', () => {
    const d = decidePending(pending, pending.map((p) => (p.field === 'maxPods' ? 'keep' : 'apply')))
    assert.ok(d.kind === 'go')
    assert.deepEqual(d.keep.map((k) => k.field), ['maxPods'])
    assert.deepEqual(d.decided.map((p) => [p.field, p.choice]), pending.map((p) => [p.field, p.field === 'maxPods' ? 'keep' : 'apply']))
    assert.match(describePending(d.decided.find((p) => p.field === 'maxPods')!), /^maxPods: 110 -> 250 \(from .*config\.yaml:17\): keep \(110 written back to \/var\/lib\/kubelet\/config\.yaml\)$/)
    assert.match(describePending(d.decided.find((p) => p.field === 'clusterDNS')!), /^clusterDNS: \[10\.96\.0\.10\] -> \[10\.96\.0\.53\] \(from flag --cluster-dns=10\.96\.0\.53 via \$KUBELET_KUBEADM_ARGS at .*kubeadm-flags\.env:1\): apply \(the restart takes \[10\.96\.0\.53\]\)$/)
  })

  it('keep of a flag value is refused cleanly: a UsageError naming the flag, nothing decided', () => {
    assert.throws(
      () => decidePending([byField.clusterDNS!], ['keep']),
      (err: unknown) => err instanceof UsageError && /^clusterDNS: the running value cannot be kept: .*kubelet flag --cluster-dns=10\.96\.0\.53.*; nothing was changed$/.test(err.message),
    )
  })

  it('abort, or no answer (end of input), stops at that difference', () => {
    assert.deepEqual(decidePending(pending, ['apply', 'abort', 'apply']), {kind: 'abort', at: pending[1]})
    assert.deepEqual(decidePending(pending, ['apply']), {kind: 'abort', at: pending[1]})
  })

  it('the question names the field, both values, where the files value comes from, and offers keep only where it can be written', () => {
    const q = pendingQuestion(byField.maxPods!, 0, 3)
    assert.deepEqual(q.choices, ['apply', 'keep', 'abort'])
    assert.match(q.text, /^Pending difference 1 of 3: maxPods: the running kubelet has 110, the files have 250 \(.*config\.yaml:17\)\.$/m)
    assert.match(q.text, /^ {2}keep: {2}write the running value 110 back to \/var\/lib\/kubelet\/config\.yaml$/m)
    const f = pendingQuestion(byField.clusterDNS!, 1, 3)
    assert.deepEqual(f.choices, ['apply', 'abort'])
    assert.match(f.text, /^ {2}keep is not possible: the files' value comes from the kubelet flag --cluster-dns=10\.96\.0\.53/m)
  })
})
