// `kubelet show` and `kube-proxy show` through the built executable. Requires `npm run build` (npm test does it);
// without it runCli fails saying so.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {FIXTURES} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const f = (p: string): string => join(FIXTURES, 'config', p)

describe('kubectl node-doctor kubelet show', () => {
  it('prints the effective settings of a kubeadm node and exits 0', async () => {
    const r = await runCli(['kubelet', 'show', '--no-color', '--kubelet-version', '1.30', '--from-file', f('kubelet/kubeadm-config.yaml'), '--from-file', f('kubelet/systemctl-cat-kubeadm.txt'), '--from-file', f('kubelet/kubeadm-flags.env')])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^streamingConnectionIdleTimeout\s+4h0m0s\s+default \(written: 0s at .*kubeadm-config\.yaml:46\)$/m)
    assert.match(r.stdout, /^containerRuntimeEndpoint\s+unix:\/\/\/var\/run\/containerd\/containerd\.sock\s+flag --container-runtime-endpoint=\S+ via \$KUBELET_KUBEADM_ARGS at \/var\/lib\/kubelet\/kubeadm-flags\.env:1$/m)
    assert.doesNotMatch(r.stdout, /\u001b\[/)
  })

  it('prints JSON with -o json', async () => {
    const r = await runCli(['kubelet', 'show', 'worker-1', '-o', 'json', '--from-file', f('kubelet/configz.json')])
    assert.equal(r.exitCode, 0, r.stderr)
    const doc = JSON.parse(r.stdout) as {kind: string; node: string; basis: string; settings: Array<{path: string; display: string}>}
    assert.equal(doc.kind, 'KubeletSettings')
    assert.equal(doc.node, 'worker-1')
    assert.equal(doc.basis, 'configz')
    assert.equal(doc.settings.find((s) => s.path === 'maxPods')?.display, '110')
  })

  it('exits 2 naming file:line for a malformed file', async () => {
    const bad = f('kubelet/malformed.yaml')
    const r = await runCli(['kubelet', 'show', '--from-file', bad])
    assert.equal(r.exitCode, 2)
    assert.ok(r.stderr.includes(`error: ${bad}:6: malformed YAML`), r.stderr)
    assert.equal(r.stdout, '')
  })

  it('exits 2 when a node is named but no kubeconfig can be found, and when given nothing', async () => {
    const r = await runCli(['kubelet', 'show', 'worker-1', '--kubeconfig', '/nonexistent/kubeconfig'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /kubeconfig file \/nonexistent\/kubeconfig \(from --kubeconfig\) does not exist/)
    const none = await runCli(['kubelet', 'show'])
    assert.equal(none.exitCode, 2)
    assert.match(none.stderr, /Give a NODE to read live, or pass --from-file/)
  })
})

describe('kubectl node-doctor kube-proxy show', () => {
  it("prints kubeadm's ConfigMap with defaults marked and exits 0", async () => {
    const r = await runCli(['kube-proxy', 'show', '--no-color', '--from-file', f('kube-proxy/kubeadm-configmap.yaml')])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^Configured mode: iptables$/m)
    assert.match(r.stdout, /^mode\s+iptables\s+default \(written: "" at .*kubeadm-configmap\.yaml:55\)$/m)
  })

  it('exits 2 naming file:line for a malformed ConfigMap', async () => {
    const r = await runCli(['kube-proxy', 'show', '--from-file', '-'], {input: 'apiVersion: v1\nkind: ConfigMap\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: [ipvs\n'})
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /^error: <stdin>:7: data\.config\.conf: malformed YAML/m)
  })

  it('exits 2 for an input it cannot recognise', async () => {
    const r = await runCli(['kube-proxy', 'show', '--from-file', f('runtime/sysctl-a.txt')])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /cannot tell what .*sysctl-a\.txt is/)
  })
})
