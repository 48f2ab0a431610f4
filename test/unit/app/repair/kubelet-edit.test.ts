// fix kubelet's pure parts: --set parsing against the schema, the in-place YAML edit (comments and layout kept),
// the file that owns a field, and the catalog remedies (--from-finding) on the KUBELET fixture bundles.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {editYamlText, kubeletEdit, owningFile, parseSetArg, unifiedDiff} from '../../../../src/app/repair/kubelet-edit.js'
import {kubeletRemedy} from '../../../../src/app/repair/kubelet-remedies.js'
import {parseKubeletConfig} from '../../../../src/core/parse/kubelet-config.js'
import {UsageError} from '../../../../src/errors.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {expectGolden, FIXTURES, readFixture} from '../../../support/golden.js'

function usage(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UsageError, String(err))
    assert.match(err.message, re)
    return true
  })
}

describe('parseSetArg', () => {
  it('types values by the KubeletConfiguration schema', () => {
    assert.deepEqual(parseSetArg('clusterDNS=10.96.0.10,10.96.0.11'), {field: 'clusterDNS', path: ['clusterDNS'], ptr: '/clusterDNS', value: ['10.96.0.10', '10.96.0.11']})
    assert.deepEqual(parseSetArg('clusterDNS=[10.96.0.10]').value, ['10.96.0.10'])
    assert.deepEqual(parseSetArg('clusterDNS=').value, [])
    assert.equal(parseSetArg('readOnlyPort=0').value, 0)
    assert.equal(parseSetArg('authentication.anonymous.enabled=false').value, false)
    assert.deepEqual(parseSetArg('authentication.anonymous.enabled=false').path, ['authentication', 'anonymous', 'enabled'])
    assert.equal(parseSetArg('streamingConnectionIdleTimeout=4h0m0s').value, '4h0m0s')
    assert.equal(parseSetArg('cgroupDriver=systemd').value, 'systemd')
    // Map keys may hold dots: everything after the map field is the key.
    assert.deepEqual(parseSetArg('evictionHard.memory.available=100Mi'), {field: 'evictionHard.memory.available', path: ['evictionHard', 'memory.available'], ptr: '/evictionHard/memory.available', value: '100Mi'})
    assert.deepEqual(parseSetArg('featureGates.RotateKubeletServerCertificate=true').value, true)
    assert.deepEqual(parseSetArg('evictionHard={memory.available: 200Mi, nodefs.available: 10%}').value, {'memory.available': '200Mi', 'nodefs.available': '10%'})
    assert.equal(parseSetArg('clusterDomain=a=b').value, 'a=b')
  })

  it('rejects unknown fields, wrong types and values outside an enum, naming them', () => {
    usage(() => parseSetArg('clusterDns=10.96.0.10'), /unknown KubeletConfiguration field "clusterDns"/)
    usage(() => parseSetArg('authentication.anonymus.enabled=false'), /unknown KubeletConfiguration field "authentication.anonymus"/)
    usage(() => parseSetArg('clusterDNS.x=1'), /clusterDNS has no field "x"/)
    usage(() => parseSetArg('readOnlyPort=off'), /--set readOnlyPort=off: expected an integer/)
    usage(() => parseSetArg('rotateCertificates=yes'), /expected true or false/)
    usage(() => parseSetArg('cgroupDriver=system'), /must be one of cgroupfs, systemd/)
    usage(() => parseSetArg('evictionHard=100Mi'), /expected a mapping/)
    usage(() => parseSetArg('kind=Other'), /kind cannot be changed/)
    usage(() => parseSetArg('clusterDNS'), /expected FIELD=VALUE/)
  })
})

describe('editYamlText', () => {
  const kubeadm = `# kubeadm\n${readFixture('config/kubelet/kubeadm-config.yaml')}`

  it('changes only the edited lines of a kubeadm config (flush sequences, {} becoming a block mapping, new keys last)', () => {
    const edits = [parseSetArg('clusterDNS=10.96.0.11'), parseSetArg('memorySwap.swapBehavior=LimitedSwap'), parseSetArg('featureGates.NodeSwap=true'), parseSetArg('readOnlyPort=0')]
    const out = editYamlText(kubeadm, edits, 'config.yaml')
    expectGolden('repair/kubelet/kubeadm-edit.diff', unifiedDiff('/var/lib/kubelet/config.yaml', kubeadm, out))
  })

  it('keeps comments, flow sequences, indented sequences and quoting as written', () => {
    const text = [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      '# pods get these resolvers',
      'clusterDNS: [10.96.0.98, 169.254.20.10]  # node-local first?',
      'tlsCipherSuites:',
      '    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
      'clusterDomain: "cluster.local"',
      'cgroupDriver: cgroupfs # containerd says systemd',
      'maxPods: 110   # untouched lines keep their spacing',
      '',
    ].join('\n')
    const out = editYamlText(text, [parseSetArg('clusterDNS=10.96.0.10'), parseSetArg('cgroupDriver=systemd')], 'f')
    assert.equal(
      out,
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'kind: KubeletConfiguration',
        '# pods get these resolvers',
        'clusterDNS: [10.96.0.10] # node-local first?',
        'tlsCipherSuites:',
        '    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'clusterDomain: "cluster.local"',
        'cgroupDriver: systemd # containerd says systemd',
        'maxPods: 110   # untouched lines keep their spacing',
        '',
      ].join('\n'),
    )
  })

  it('refuses YAML it cannot edit safely', () => {
    usage(() => editYamlText('kind: [unclosed\n', [parseSetArg('readOnlyPort=0')], 'f.yaml'), /f\.yaml is not valid YAML/)
    usage(() => editYamlText('- a\n- b\n', [parseSetArg('readOnlyPort=0')], 'f.yaml'), /does not hold a YAML mapping/)
    usage(() => editYamlText('authentication: webhook\n', [parseSetArg('authentication.anonymous.enabled=false')], 'f.yaml'), /authentication is not a mapping/)
  })
})

describe('owningFile', () => {
  const file = (path: string, text: string) => ({path, text, config: parseKubeletConfig(text, {source: path})})
  const main = file('/var/lib/kubelet/config.yaml', 'clusterDNS: [10.96.0.10]\nauthentication:\n  anonymous:\n    enabled: true\n')
  const d10 = file('/etc/kubernetes/kubelet.conf.d/10-dns.conf', 'clusterDNS: [10.96.0.11]\n')
  const d20 = file('/etc/kubernetes/kubelet.conf.d/20-dns.conf', 'clusterDNS: [10.96.0.12]\nauthentication: {x509: {clientCAFile: /ca}}\n')
  const sub = file('/etc/kubernetes/kubelet.conf.d/sub/05.conf', 'readOnlyPort: 10255\n')

  it('is the last drop-in in the kubelet\'s order that sets the field, else the --config file', () => {
    assert.equal(owningFile('/clusterDNS', main, [d20, sub, d10]).path, d20.path)
    assert.equal(owningFile('/readOnlyPort', main, [d10, d20, sub]).path, sub.path)
    assert.equal(owningFile('/authentication/anonymous/enabled', main, [d10, d20]).path, main.path, 'a drop-in with a sibling key does not own it')
    assert.equal(owningFile('/cgroupDriver', main, [d10, d20]).path, main.path)
  })
})

describe('kubeletRemedy (--from-finding)', () => {
  const load = async (name: string) => {
    const b = await readBundle(join(FIXTURES, 'checks', 'kubelet', name))
    return {cluster: b.cluster, node: b.nodes.find((n) => n.node === 'node-a')!}
  }

  it('KUBELET-016: clusterDNS becomes the kube-dns ClusterIP', async () => {
    const r = kubeletRemedy('kubelet-016', await load('stale-cluster-dns'))
    assert.equal(r.kind, 'edits')
    if (r.kind !== 'edits') return
    assert.deepEqual(r.edits, [kubeletEdit('clusterDNS', ['10.96.0.10'])])
    assert.match(r.why[0]!, /^KUBELET-016: clusterDNS has 10\.32\.0\.10/)
  })

  it("KUBELET-015: cgroupDriver becomes containerd's driver, with the drain note", async () => {
    const r = kubeletRemedy('KUBELET-015', await load('cgroup-driver-mismatch'))
    assert.equal(r.kind, 'edits')
    if (r.kind !== 'edits') return
    assert.equal(r.edits.length, 1)
    assert.equal(r.edits[0]!.field, 'cgroupDriver')
    assert.notEqual(r.edits[0]!.value, 'systemd', 'the config has systemd; containerd uses the other driver')
    assert.match(r.notes.join(' '), /drain it first/)
  })

  it('says there is nothing to do when the check passes, and refuses remedies that need a decision', async () => {
    const healthy = await load('healthy')
    assert.deepEqual(kubeletRemedy('KUBELET-016', healthy), {kind: 'nothing', reason: 'KUBELET-016 does not fire on node-a: nothing to change'})
    usage(() => kubeletRemedy('KUBELET-005', healthy), /KUBELET-005: this remedy is not applied automatically/)
    usage(() => kubeletRemedy('NOPE-1', healthy), /no such check/)
  })
})

describe('--set IP fields (issue #14, item 12)', () => {
  it('clusterDNS, address and healthzBindAddress take IP addresses only', () => {
    assert.deepEqual(parseSetArg('clusterDNS=10.96.0.10,fd00::a').value, ['10.96.0.10', 'fd00::a'])
    assert.throws(() => parseSetArg('clusterDNS=kube-dns.kube-system'), /--set clusterDNS=kube-dns\.kube-system: "kube-dns\.kube-system" is not an IP address/)
    assert.throws(() => parseSetArg('clusterDNS=10.96.0.10,$(reboot)'), /is not an IP address/)
    assert.throws(() => parseSetArg('healthzBindAddress=localhost'), /"localhost" is not an IP address/)
  })
})
