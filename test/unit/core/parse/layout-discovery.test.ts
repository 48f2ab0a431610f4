// The `layout` discovery parser: goldens for one discovery output per layout (hand-written in the script's
// output format, with process command lines as those distributions run them; see test/fixtures/layouts/README.md),
// strict line errors, and a fuzz test. The real script's run is in test/integration/layout/.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {flagValue, type LayoutDiscovery, parseLayoutDiscovery} from '../../../../src/core/parse/layout-discovery.js'
import {expectGolden, readFixture} from '../../../support/golden.js'
import {anyText, FUZZ_RUNS, mutated, parseError, parsesOrFailsCleanly} from './fuzz-support.js'

const CASES = ['kubeadm-calico', 'k3s-flannel', 'rke2-canal', 'eks-al2023', 'gke-cos', 'cilium-kpr']

describe('parseLayoutDiscovery', () => {
  for (const name of CASES) {
    it(`${name}: parses to the golden model`, () => {
      const parsed = parseLayoutDiscovery(readFixture(`layouts/discovery/${name}.txt`))
      expectGolden(`layouts/discovery/${name}.json`, `${JSON.stringify(parsed, null, 2)}\n`)
    })
  }

  it('finds the kubelet and its flags in both --flag=v and --flag v forms', () => {
    const eks = parseLayoutDiscovery(readFixture('layouts/discovery/eks-al2023.txt'))
    assert.deepEqual([eks.kubelet?.config, eks.kubelet?.configDir, eks.kubelet?.kubeconfig], ['/etc/kubernetes/kubelet/config.json', '/etc/kubernetes/kubelet/config.json.d', '/var/lib/kubelet/kubeconfig'])
    const k3s = parseLayoutDiscovery(readFixture('layouts/discovery/k3s-flannel.txt'))
    assert.equal(k3s.kubelet?.embeddedIn, 'k3s')
    assert.equal(k3s.kubelet?.role, 'server')
    assert.equal(k3s.kubeProxy, undefined)
  })

  it('reads k3s kubelet-arg flags as the kubelet flags', () => {
    const d = parseLayoutDiscovery('process=9 k3s /usr/local/bin/k3s agent --kubelet-arg=config=/etc/k.yaml --kubelet-arg config-dir=/etc/k.d\n')
    assert.equal(d.kubelet?.role, 'agent')
    assert.equal(d.kubelet?.config, '/etc/k.yaml')
    assert.equal(d.kubelet?.configDir, '/etc/k.d')
  })

  it('ignores a k3s process that is not a server or agent (k3s kubectl, k3s crictl)', () => {
    assert.equal(parseLayoutDiscovery('process=9 k3s /usr/local/bin/k3s kubectl get nodes\n').kubelet, undefined)
  })

  it('keeps unknown keys with their lines instead of failing (a newer bundle)', () => {
    const d = parseLayoutDiscovery('format=node-doctor-layout/1\nnew-thing=x\n')
    assert.deepEqual(d.unknownKeys, [{key: 'new-thing', line: 2}])
  })

  it('rejects a line that is not key=value, naming the line', () => {
    const e = parseError(() => parseLayoutDiscovery('format=node-doctor-layout/1\nos-id=ubuntu\nsh: 1: grep: not found\n'))
    assert.equal(e.line, 3)
    assert.match(e.message, /not a key=value line/)
  })

  it('rejects another artifact in its place', () => {
    assert.match(parseError(() => parseLayoutDiscovery('format=iptables\n')).message, /not a layout discovery output/)
    assert.equal(parseError(() => parseLayoutDiscovery('path=relative/x\n')).line, 1)
    assert.equal(parseError(() => parseLayoutDiscovery('process=abc kubelet\n')).line, 1)
  })

  it('flagValue: the last occurrence wins, a following flag is not a value', () => {
    assert.equal(flagValue(['--config=/a', '--config', '/b'], 'config'), '/b')
    assert.equal(flagValue(['--config', '--v=2'], 'config'), undefined)
    assert.equal(flagValue(['--config-dir=/d'], 'config'), undefined)
  })
})

const TOKENS = ['format=node-doctor-layout/1', 'process=', 'path=', 'file=', 'cni-file=', 'cni-first-type=', 'link=', 'os-id=', '1093', 'kubelet', 'k3s', 'server', '--config=/x', '--config', '/var/lib/kubelet/config.yaml', 'tunl0', '=', 'x=y']
const SEEDS = CASES.map((c) => readFixture(`layouts/discovery/${c}.txt`))

function invariants(d: LayoutDiscovery): void {
  for (const p of [...d.paths, ...d.files, ...d.cni.files]) assert.ok(p.startsWith('/'))
  for (const p of d.processes) assert.ok(Number.isInteger(p.pid) && p.name.length > 0)
  if (d.kubelet) assert.ok(d.processes.some((p) => p.pid === d.kubelet!.pid))
}

describe('layout discovery parser fuzz', () => {
  it('token soup: a model or a ParseError with a line', () => {
    fc.assert(fc.property(anyText(TOKENS), (t) => parsesOrFailsCleanly(parseLayoutDiscovery, t, invariants)), {numRuns: FUZZ_RUNS})
  })
  it('damaged real outputs: a model or a ParseError with a line', () => {
    fc.assert(fc.property(mutated(SEEDS, TOKENS), (t) => parsesOrFailsCleanly(parseLayoutDiscovery, t, invariants)), {numRuns: FUZZ_RUNS})
  })
})
