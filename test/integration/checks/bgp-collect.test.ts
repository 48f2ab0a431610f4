// The BGP plan items end to end: a real BIRD (the BIRD calico-node runs) answers on /var/run/calico/bird.ctl inside
// a private mount and network namespace, the plan's own bird-protocols/bird6-protocols commands collect it through
// the local transport, and RT-008 judges the result. Its one mesh session points at a node that cannot be reached.
import assert from 'node:assert/strict'
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {collectNode} from '../../../src/app/collect-node.js'
import {ROUTES_CHECKS} from '../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../src/core/checks/run.js'
import {COLLECTION_PLAN} from '../../../src/core/collection/plan.js'
import {LocalTransport} from '../../../src/transports/local/local.js'
import {birdConfig, birdUnavailable} from '../../support/bird-netns.js'
import {calicoCluster} from '../../support/calico-dns-builders.js'
import {netnsUnavailable} from '../../support/netns.js'

const skip = netnsUnavailable() ?? birdUnavailable() ?? (spawnSync('sh', ['-c', 'command -v unshare && command -v nsenter']).status === 0 ? undefined : 'needs unshare and nsenter (util-linux)')
const BIRD_ITEMS = COLLECTION_PLAN.filter((p) => ['bird-protocols', 'bird6-protocols'].includes(p.id))

describe('BGP peer status collected from a live BIRD by the plan', {skip}, () => {
  let dir = ''
  let holder: ChildProcess | undefined
  let shell = ''

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nd-bgpc-'))
    writeFileSync(join(dir, 'bird.conf'), birdConfig('192.168.0.11', [{name: 'Mesh_192_168_0_12', ip: '192.168.0.12', as: 64512, passive: false}]))
    writeFileSync(join(dir, 'bird6.conf'), birdConfig('192.168.0.11', []).replace('  merge paths on;\n', ''))
    // /run is private to this namespace, so the real path /var/run/calico/bird.ctl is used without touching the host's.
    const setup = [
      'mount -t tmpfs tmpfs /run',
      'mkdir -p /run/calico',
      'ip link set lo up',
      `bird -c ${dir}/bird.conf -s /run/calico/bird.ctl -P /run/calico/bird.pid`,
      `bird6 -c ${dir}/bird6.conf -s /run/calico/bird6.ctl -P /run/calico/bird6.pid`,
      'echo ready',
      'exec sleep 600',
    ].join(' && ')
    holder = spawn('unshare', ['-m', '-n', '--propagation', 'private', 'sh', '-c', setup], {stdio: ['ignore', 'pipe', 'inherit']})
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve())
      holder!.on('exit', (code) => reject(new Error(`namespace setup exited with ${code}`)))
    })
    shell = join(dir, 'nsh')
    writeFileSync(shell, `#!/bin/sh\nexec nsenter -t ${holder.pid} -m -n /bin/sh "$@"\n`)
    chmodSync(shell, 0o755)
    // Let BIRD try the session once, so it reports the socket error.
    await new Promise((r) => setTimeout(r, 2500))
  })

  after(() => {
    if (holder?.pid !== undefined) spawnSync('nsenter', ['-t', String(holder.pid), '-m', '-n', 'sh', '-c', 'kill $(cat /run/calico/bird.pid /run/calico/bird6.pid)'])
    holder?.kill()
    rmSync(dir, {recursive: true, force: true})
  })

  it('collects both tables with the plan commands and RT-008 reports the session that is down', async () => {
    const snap = await collectNode(new LocalTransport('node-a', shell), {plan: BIRD_ITEMS, timeoutMs: 10_000, sudo: false, now: () => new Date()})
    const v4 = snap.artifacts['bird-protocols']!
    assert.equal(v4.error, undefined, v4.stderr)
    assert.match(v4.content, /^BIRD 1\.6\.\d+ ready\.\nname +proto +table +state +since +info\n/)
    assert.match(v4.content, /^Mesh_192_168_0_12 +BGP +master +start +\S+ +(Active|Connect)\b/m)
    assert.doesNotMatch(snap.artifacts['bird6-protocols']!.content, / BGP /)
    const out = runChecks(ROUTES_CHECKS.filter((c) => c.spec.id === 'RT-008'), calicoCluster(), [snap])
    assert.deepEqual(out.errors, [])
    assert.deepEqual(out.findings.map((f) => [f.subject.name, f.subject.in]), [['192.168.0.12', 'Mesh_192_168_0_12']])
    assert.match(out.findings[0]!.message, /^IPv4 BGP peer 192\.168\.0\.12 \(node-to-node mesh, node node-b\) is not Established/)
  })

  it('records an absent BIRD socket as an artifact error, and RT-008 skips naming it', async () => {
    const snap = await collectNode(new LocalTransport('node-a', shell), {
      plan: BIRD_ITEMS.map((p) => ({...p, argv: p.argv.map((a) => a.replace('/var/run/calico/bird', '/var/run/calico/absent'))})),
      timeoutMs: 10_000,
      sudo: false,
      now: () => new Date(),
    })
    assert.match(snap.artifacts['bird-protocols']!.error ?? '', /Unable to connect to server control socket \(\/var\/run\/calico\/absent\.ctl\)/)
    assert.deepEqual(snap.errors, [], 'optional items are not collection errors')
    const r = runChecks(ROUTES_CHECKS.filter((c) => c.spec.id === 'RT-008'), calicoCluster(), [snap]).results[0]!
    assert.equal(r.status, 'skipped')
    assert.match(r.reason ?? '', /bird-protocols: exit code 1: Unable to connect to server control socket/)
  })
})
