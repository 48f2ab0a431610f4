// A corpus of secrets that must never appear in a bundle (issue #14, item 7): seeded in every place a bundle
// stores text (pod env values of any namespace, ConfigMaps, annotations, node files, command lines, stderr and
// error fields of node.json), written as a directory and as a .tgz, and every byte of the result searched.
import assert from 'node:assert/strict'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import * as tar from 'tar'
import {emptyClusterSnapshot, SNAPSHOT_API_VERSION, type NodeSnapshot} from '../../../src/core/model/snapshot.js'
import {REDACTED, redactSecrets} from '../../../src/core/redact/redact.js'
import {readBundle, writeBundle, type Bundle} from '../../../src/transports/bundle/bundle.js'

export const SECRETS = {
  envPassword: 'env-db-pass-Q7w9',
  envPlain: 'plain-env-value-not-config-4kd9',
  envInLastApplied: 'lastapplied-env-secret-88aa',
  containerdAuth: 'dXNlcjpjb250YWluZXJkLWF1dGg=',
  containerdIdentity: 'containerd-identity-token-71bd',
  containerdPassword: 'registry-pass-m3n4',
  bootstrapEnv: 'q1w2e3.r4t5y6u7i8o9p0a1',
  bootstrapFlag: 'abcdef.0123456789abcdef',
  flagTokenSpace: 'flag-token-space-5f5f',
  flagPasswordEq: 'flag-pass-eq-6e6e',
  jwt: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ',
  stderrToken: 'stderr-token-9c9c',
  errorPassword: 'error-field-pass-2b2b',
  cmPassword: 'configmap-password-1a1a',
  iniSecret: 'ini-secret-value-3c3c',
  tomlToken: 'toml-token-value-4d4d',
  bearer: 'bearer-header-5e5e',
  privateKeyBody: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  clientSecretJson: 'json-client-secret-6f6f',
}

const CONTAINERD = `version = 2
[plugins."io.containerd.grpc.v1.cri".registry.configs."registry.example.com".auth]
  username = "robot"
  password = "${SECRETS.containerdPassword}"
  auth = "${SECRETS.containerdAuth}"
  identitytoken = "${SECRETS.containerdIdentity}"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
`

function corpusBundle(): Bundle {
  const cluster = emptyClusterSnapshot('2025-01-01T00:00:00Z')
  const lastApplied = JSON.stringify({spec: {containers: [{name: 'app', env: [{name: 'API_KEY', value: SECRETS.envInLastApplied}]}]}})
  cluster.pods = [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'app-1', namespace: 'shop', annotations: {'kubectl.kubernetes.io/last-applied-configuration': lastApplied}},
      spec: {
        containers: [
          {
            name: 'app',
            env: [
              {name: 'DB_PASSWORD', value: SECRETS.envPassword},
              {name: 'GREETING', value: SECRETS.envPlain},
              {name: 'CALICO_NETWORKING_BACKEND', value: 'bird'},
            ],
          },
        ],
      },
    },
  ] as unknown as Bundle['cluster']['pods']
  cluster.configMaps = [
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'app-config', namespace: 'shop'}, data: {'app.ini': `[db]\npassword = ${SECRETS.cmPassword}\nhost = db\n`, 'creds.json': JSON.stringify({client_secret: SECRETS.clientSecretJson, mode: 'ipvs'})}},
  ] as unknown as Bundle['cluster']['configMaps']
  cluster.kubeProxyLogs = {'kube-proxy-abc': `I0101 request with Authorization: Bearer ${SECRETS.bearer}\n`}
  const node: NodeSnapshot = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node: 'node-a',
    collectedAt: '2025-01-01T00:00:00Z',
    transport: 'ssh',
    artifacts: {
      'containerd-config': {id: 'containerd-config', source: 'cat /etc/containerd/config.toml', content: CONTAINERD},
      'kubelet-default-env': {id: 'kubelet-default-env', source: 'cat /etc/default/kubelet', content: `KUBELET_EXTRA_ARGS=--node-ip=10.0.0.1\nBOOTSTRAP_TOKEN=${SECRETS.bootstrapEnv}\n`},
      'kubelet-cmdline': {
        id: 'kubelet-cmdline',
        source: 'cat /proc/1/cmdline',
        content: `/usr/bin/kubelet --token ${SECRETS.bootstrapFlag} --tls-private-key-file=/var/lib/kubelet/pki/kubelet.key --password=${SECRETS.flagPasswordEq} --bootstrap-token ${SECRETS.flagTokenSpace} --authorization-mode=Webhook\n`,
      },
      'kubelet-config': {id: 'kubelet-config', source: 'cat /var/lib/kubelet/config.yaml', content: `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n# old token: ${SECRETS.jwt}\nauthentication:\n  anonymous:\n    enabled: false\n[creds]\nsecret=${SECRETS.iniSecret}\ntoken = "${SECRETS.tomlToken}"\n-----BEGIN PRIVATE KEY-----\n${SECRETS.privateKeyBody}\n-----END PRIVATE KEY-----\n`},
      'proxy-mode': {id: 'proxy-mode', source: 'curl', content: '', stderr: `curl: (7) failed; token=${SECRETS.stderrToken}`, error: `exit code 7: mysql: password: ${SECRETS.errorPassword}`},
    },
    errors: [{node: 'node-a', source: 'proxy-mode', message: `exit code 7: --password ${SECRETS.errorPassword}`}],
  }
  return {manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2025-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, nodes: ['node-a']}, cluster, nodes: [node]}
}

function allText(dir: string): string {
  let out = ''
  for (const f of readdirSync(dir)) {
    const p = join(dir, f)
    out += statSync(p).isDirectory() ? allText(p) : `\n${p}\n${readFileSync(p, 'utf8')}`
  }
  return out
}

describe('redaction corpus: no secret in any bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nd-redact-corpus-'))
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('a directory bundle holds none of the secrets, keeps the configuration around them, and reads back', async () => {
    const out = join(dir, 'b')
    await writeBundle(out, corpusBundle())
    const text = allText(out)
    for (const [what, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `${what} (${secret}) is in the bundle`)
    for (const kept of ['SystemdCgroup = true', 'username = "robot"', '--tls-private-key-file=/var/lib/kubelet/pki/kubelet.key', '--authorization-mode=Webhook', '"value": "bird"', '--node-ip=10.0.0.1', '"mode\\":\\"ipvs\\"']) {
      assert.ok(text.includes(kept), `${kept} was lost`)
    }
    assert.ok(text.includes(REDACTED))
    const back = await readBundle(out)
    assert.equal(back.nodes[0]!.artifacts['containerd-config']!.content.includes('SystemdCgroup = true'), true)
  })

  it('a .tgz bundle holds none of them either', async () => {
    const out = join(dir, 'b.tgz')
    await writeBundle(out, corpusBundle())
    const x = join(dir, 'x')
    const {mkdirSync} = await import('node:fs')
    mkdirSync(x)
    await tar.x({file: out, cwd: x})
    const text = allText(x)
    for (const [what, secret] of Object.entries(SECRETS)) assert.ok(!text.includes(secret), `${what} is in the archive`)
  })

  it('redaction is idempotent and leaves ordinary text alone', () => {
    const once = redactSecrets(CONTAINERD)
    assert.equal(redactSecrets(once), once)
    const plain = '-A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment "kube-system/kube-dns:dns cluster IP" -j KUBE-SVC-TCOU7JCQXEZGVUNU\nmode: ipvs\nclusterDNS: [10.96.0.10]\n'
    assert.equal(redactSecrets(plain), plain)
  })
})
