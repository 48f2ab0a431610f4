// collect from a cluster seeded with secrets (issue #14, item 7): the built CLI against the test API server and a
// live node; pod env values of any namespace, ConfigMaps, and node output carrying credentials never reach the
// bundle. Also: an unparseable required iptables-save is a collection error (exit 3), not a pass.
import assert from 'node:assert/strict'
import {mkdirSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import * as tar from 'tar'
import type {KubeObject} from '../../src/core/model/k8s.js'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'

const SECRETS = ['env-db-pass-Q7w9x', 'plain-env-value-4kd9x', 'cm-registry-pass-1a1a', 'abcdef.0123456789abcdef', 'rule-comment-pass-2b2b']

function allText(dir: string): string {
  let out = ''
  for (const f of readdirSync(dir)) {
    const p = join(dir, f)
    out += statSync(p).isDirectory() ? allText(p) : `\n${readFileSync(p, 'utf8')}`
  }
  return out
}

describe('collect from a cluster seeded with secrets', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  before(async () => {
    c = await startLiveCluster(['node-a'])
    c.api.upsert({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'shop-1', namespace: 'shop'},
      spec: {nodeName: 'node-a', containers: [{name: 'app', env: [{name: 'DB_PASSWORD', value: SECRETS[0]}, {name: 'GREETING', value: SECRETS[1]}]}]},
    } as unknown as KubeObject)
    c.api.upsert({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'kube-proxy', namespace: 'kube-system'}, data: {'registry.toml': `[auth]\npassword = "${SECRETS[2]}"\n`, 'config.conf': 'mode: iptables\n'}} as unknown as KubeObject)
    c.nodeExec('node-a', ['iptables', '-t', 'filter', '-A', 'INPUT', '-m', 'comment', '--comment', `kubeadm join --token ${SECRETS[3]} password=${SECRETS[4]}`, '-j', 'ACCEPT'])
  })
  after(async () => c?.stop())

  it('the .tgz bundle holds none of the secrets', async () => {
    const out = join(c.dir, 'b.tgz')
    const r = await c.cli(['collect', '--all', '--out', out])
    assert.ok([0, 3].includes(r.exitCode), r.stderr)
    const x = join(c.dir, 'x')
    mkdirSync(x)
    await tar.x({file: out, cwd: x})
    const text = allText(x)
    assert.match(text, /KUBE-SERVICES/, 'the bundle has the node rules')
    // The seeded places were collected (so their absence is redaction, not omission).
    assert.match(text, /"name": "DB_PASSWORD"/)
    assert.match(text, /registry\.toml/)
    assert.match(text, /kubeadm join --token /)
    for (const s of SECRETS) assert.ok(!text.includes(s), `${s} is in the bundle`)
    for (const s of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(s), `${s} was printed`)
  })
})
