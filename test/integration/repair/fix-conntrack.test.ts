// fix conntrack against a real node: a network namespace with its own sshd and real conntrack entries, made by
// real UDP traffic through a DNAT rule (as kube-proxy's) and by `conntrack -I`, and the test API server.
// Services (kube-system): kube-dns 10.96.0.10:53/udp and other-dns 10.96.0.20:53/udp, both served by 10.244.2.8 now;
// the old pod 10.244.2.7 is gone. Pods send from 10.244.0.1 (a veth pair inside the namespace).
import assert from 'node:assert/strict'
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, afterEach, before, describe, it} from 'node:test'
import {applyConntrackFix, type ConntrackFixDeps, formatConntrackPlan, planConntrackFix} from '../../../src/app/repair/conntrack.js'
import {RepairFailedError} from '../../../src/app/repair/errors.js'
import type {AuditRecord} from '../../../src/core/model/audit.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import {parseConntrack} from '../../../src/core/parse/conntrack.js'
import {FileAuditSink} from '../../../src/transports/audit/file-audit-sink.js'
import {KubeClusterClient} from '../../../src/transports/kube/client.js'
import {loadKubeConfig} from '../../../src/transports/kube/kubeconfig.js'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {type FakeApiServer, startFakeApiServer} from '../../support/fake-apiserver.js'
import {expectGolden} from '../../support/golden.js'
import {tempDir} from '../../support/kubeconfig.js'
import {runCli} from '../../support/run-cli.js'
import {createNetns, makeTempDir, makeUserKey, type Netns, netnsSkipReason, type Sshd, startSshd, targetFor} from '../../support/sshd.js'

const REQ = {node: 'node-a', namespace: 'kube-system', name: 'kube-dns'}

function udpService(name: string, ip: string): KubeObject {
  return {apiVersion: 'v1', kind: 'Service', metadata: {namespace: 'kube-system', name}, spec: {type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], ports: [{name: 'dns', protocol: 'UDP', port: 53, targetPort: 53}]}} as KubeObject
}

function slice(service: string, ip: string): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {namespace: 'kube-system', name: `${service}-abcde`, labels: {'kubernetes.io/service-name': service}},
    addressType: 'IPv4',
    endpoints: [{addresses: [ip], conditions: {ready: true}, nodeName: 'node-b'}],
    ports: [{name: 'dns', protocol: 'UDP', port: 53}],
  } as KubeObject
}

/** Sends one datagram from each source port to ip:port, inside the namespace. */
function sendFrom(ns: string, ip: string, ports: number[]): void {
  const script = `const d = require('node:dgram'); const [ip, ...ps] = process.argv.slice(1); let n = ps.length;
for (const p of ps) { const s = d.createSocket('udp4'); s.bind(Number(p), '10.244.0.1', () => s.send('q', 53, ip, () => { s.close(); if (--n === 0) process.exit(0) })) }`
  const r = spawnSync('ip', ['netns', 'exec', ns, process.execPath, '-e', script, ip, ...ports.map(String)], {encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
}

describe('fix conntrack on a real node', {skip: netnsSkipReason()}, () => {
  const tmp = tempDir('nd-fix-ct-api-')
  let api: FakeApiServer
  let client: KubeClusterClient
  let netns: Netns
  let sshd: Sshd
  let dir: string
  let transport: SshTransport
  let sshConfig: string
  const background: ChildProcess[] = []
  let n = 0

  const inNs = (...argv: string[]) => {
    const r = spawnSync('ip', ['netns', 'exec', netns.name, ...argv], {encoding: 'utf8'})
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  // The namespace's whole table (every protocol) but the SSH connection the transport itself holds.
  const table = () => parseConntrack(spawnSync('ip', ['netns', 'exec', netns.name, 'conntrack', '-L'], {encoding: 'utf8'}).stdout).filter((e) => e.original.dst.startsWith('10.96.'))
  const dnatTo = (ip: string, svc = '10.96.0.10') => inNs('iptables', '-t', 'nat', '-R', 'OUTPUT', svc === '10.96.0.10' ? '1' : '2', '-p', 'udp', '-d', svc, '--dport', '53', '-j', 'DNAT', '--to-destination', `${ip}:53`)

  before(async () => {
    dir = makeTempDir('nd-fix-ct-')
    const key = makeUserKey(dir)
    netns = createNetns()
    sshd = await startSshd({authorizedKeys: [key.publicKey], netns: netns.name, listenAddress: netns.address})
    const knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
    sshConfig = join(dir, 'ssh_config')
    writeFileSync(sshConfig, `Host node-a\n  HostName ${sshd.host}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n`)
    transport = new SshTransport('node-a', targetFor(sshd, key, knownHosts), {agentSocket: ''})
    await transport.connect()
    // Both ends of this veth stay in the namespace (no dummy links in this kernel): what goes out pods0 ends there.
    inNs('ip', 'link', 'add', 'pods0', 'type', 'veth', 'peer', 'name', 'pods0-peer')
    inNs('ip', 'addr', 'add', '10.244.0.1/16', 'dev', 'pods0')
    inNs('ip', 'link', 'set', 'pods0', 'up')
    inNs('ip', 'link', 'set', 'pods0-peer', 'up')
    inNs('ip', 'route', 'add', '10.96.0.0/12', 'dev', 'pods0')
    inNs('iptables', '-t', 'nat', '-A', 'OUTPUT', '-p', 'udp', '-d', '10.96.0.10', '--dport', '53', '-j', 'DNAT', '--to-destination', '10.244.2.8:53')
    inNs('iptables', '-t', 'nat', '-A', 'OUTPUT', '-p', 'udp', '-d', '10.96.0.20', '--dport', '53', '-j', 'DNAT', '--to-destination', '10.244.2.8:53')
    const node = {apiVersion: 'v1', kind: 'Node', metadata: {name: 'node-a', uid: 'uid-node-a'}, status: {addresses: [{type: 'InternalIP', address: netns.address}], conditions: [{type: 'Ready', status: 'True'}]}} as KubeObject
    api = await startFakeApiServer({objects: [node, udpService('kube-dns', '10.96.0.10'), slice('kube-dns', '10.244.2.8'), udpService('other-dns', '10.96.0.20'), slice('other-dns', '10.244.2.8')]})
    client = new KubeClusterClient(loadKubeConfig({kubeconfig: api.kubeconfigPath}, {}, tmp.path('home')))
  })
  after(async () => {
    await transport?.close()
    await sshd?.stop()
    netns?.remove()
    rmSync(dir, {recursive: true, force: true})
    await api?.close()
    tmp.cleanup()
  })
  afterEach(() => {
    for (const c of background.splice(0)) c.kill()
    spawnSync('ip', ['netns', 'exec', netns.name, 'conntrack', '-F'], {stdio: 'ignore'})
    dnatTo('10.244.2.8')
    dnatTo('10.244.2.8', '10.96.0.20')
  })

  function deps(): {deps: ConntrackFixDeps; log: string} {
    const log = tmp.path(`audit-${++n}.log`)
    return {
      log,
      deps: {transport, cluster: client, events: client, audit: new FileAuditSink(log), who: {localUser: 'tester'}, sudo: false, timeoutMs: 20_000, now: () => new Date(), progress: () => undefined, warn: () => undefined},
    }
  }

  /** The table every test starts from: stale and healthy flows of kube-dns, a stale flow of other-dns, a TCP connection. */
  function plantFlows(): void {
    // Unanswered UDP flows expire after 30 s by default: the CLI test's three runs take longer than that on a loaded
    // machine. This namespace's own timeout keeps the planted entries for the whole test.
    inNs('sysctl', '-qw', 'net.netfilter.nf_conntrack_udp_timeout=600')
    dnatTo('10.244.2.7')
    sendFrom(netns.name, '10.96.0.10', [41001, 41002, 41003]) // to the old pod: stale
    dnatTo('10.244.2.7', '10.96.0.20')
    sendFrom(netns.name, '10.96.0.20', [42001]) // other-dns, also stale: not ours to touch
    dnatTo('10.244.2.8')
    dnatTo('10.244.2.8', '10.96.0.20')
    sendFrom(netns.name, '10.96.0.10', [41011, 41012]) // to the current pod: healthy
    // Created while kube-dns had no endpoints (rejected, never NATed), and a TCP connection to the same address.
    inNs('conntrack', '-I', '-p', 'udp', '-s', '10.244.0.1', '-d', '10.96.0.10', '--sport', '41021', '--dport', '53', '-r', '10.96.0.10', '-q', '10.244.0.1', '--reply-port-src', '53', '--reply-port-dst', '41021', '-t', '300')
    inNs('conntrack', '-I', '-p', 'tcp', '-s', '10.244.0.1', '-d', '10.96.0.10', '--sport', '41031', '--dport', '53', '-r', '10.244.2.7', '-q', '10.244.0.1', '--reply-port-src', '53', '--reply-port-dst', '41031', '--state', 'ESTABLISHED', '-t', '300', '-u', 'SEEN_REPLY,ASSURED')
  }

  const key = (e: ReturnType<typeof table>[number]) => `${e.protocol} ${e.original.dst}:${e.original.dport} from :${e.original.sport} -> ${e.reply.src}`

  it('plans one targeted delete per stale group, deletes exactly those entries, verifies, audits and posts an Event', async () => {
    plantFlows()
    const all = table().map(key).sort()
    assert.equal(all.length, 8, all.join('\n'))
    const {deps: d, log} = deps()
    const plan = await planConntrackFix(d, REQ)
    expectGolden('repair/conntrack/commands.txt', plan.deletions.map((x) => `${x.frontend} ${x.staleIP ?? '-'} ${x.entries.length}: ${x.argv.join(' ')}`).join('\n') + '\n')
    assert.match(formatConntrackPlan(plan), /why: CT-001: 3 UDP conntrack entries for kube-system\/kube-dns \(10\.96\.0\.10:53\/udp\) still go to 10\.244\.2\.7/)
    assert.deepEqual(table().map(key).sort(), all, 'planning changes nothing')

    const result = await applyConntrackFix(d, plan, REQ)
    assert.equal(result.deleted, 4)
    assert.deepEqual(table().map(key).sort(), [
      'tcp 10.96.0.10:53 from :41031 -> 10.244.2.7',
      'udp 10.96.0.10:53 from :41011 -> 10.244.2.8',
      'udp 10.96.0.10:53 from :41012 -> 10.244.2.8',
      'udp 10.96.0.20:53 from :42001 -> 10.244.2.7',
    ])
    const rec = JSON.parse(readFileSync(log, 'utf8')) as AuditRecord
    assert.deepEqual([rec.outcome, rec.action, rec.target, rec.after, rec.details?.['deleted']], ['applied', 'fix conntrack', 'Service kube-system/kube-dns', 'no stale UDP conntrack entry', 4])
    assert.equal(rec.before, '4 stale UDP conntrack entries (1 to 10.96.0.10:53/udp (ClusterIP) via no NAT, 3 to 10.96.0.10:53/udp (ClusterIP) via 10.244.2.7)')
    assert.equal(result.eventPosted, true)
    assert.ok(api.objects().some((o) => o.kind === 'Event' && (o as unknown as {reason: string}).reason === 'NodeDoctorRepair'))
  })

  it('fails (exit 1) and says so when stale entries come back because the node still NATs to the old address', async () => {
    plantFlows()
    dnatTo('10.244.2.7') // kube-proxy never updated the rule
    // A client that keeps retrying from the same port, as resolvers do.
    background.push(spawn('ip', ['netns', 'exec', netns.name, process.execPath, '-e', "const s = require('node:dgram').createSocket('udp4'); s.bind(41001, '10.244.0.1', () => setInterval(() => s.send('q', 53, '10.96.0.10'), 50))"], {stdio: 'ignore'}))
    // The client is a node process started in the namespace: on a loaded machine it can take seconds to send its
    // first query. Wait until its flow is in the table, so the repair's re-check is certain to see it come back.
    for (const started = Date.now(); !table().some((e) => key(e).includes('from :41001')); ) {
      if (Date.now() - started > 30_000) assert.fail('the retrying client never sent a query')
      await new Promise((r) => setTimeout(r, 50))
    }
    const {deps: d, log} = deps()
    const plan = await planConntrackFix(d, REQ)
    await assert.rejects(applyConntrackFix(d, plan, REQ), (err: unknown) => {
      assert.ok(err instanceof RepairFailedError)
      assert.equal(err.exitCode, 1)
      assert.match(err.message, /entries were deleted but \d+ stale entr(y is|ies are) there again \(\d+ to 10\.96\.0\.10:53\/udp \(ClusterIP\) via 10\.244\.2\.7\)/)
      return true
    })
    assert.equal((JSON.parse(readFileSync(log, 'utf8')) as AuditRecord).outcome, 'failed')
    assert.ok(table().some((e) => key(e) === 'udp 10.96.0.20:53 from :42001 -> 10.244.2.7'), "other-dns's entry is untouched")
  })

  it('the command: --dry-run deletes nothing; --yes deletes exactly the stale entries and records them', async () => {
    plantFlows()
    const before = table().map(key).sort()
    const audit = tmp.path(`audit-cli-${++n}`, 'audit.log')
    const cli = (...args: string[]) =>
      runCli(['fix', 'conntrack', 'node-a', '--service', 'kube-system/kube-dns', ...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {
        env: {HOME: dir, SSH_AUTH_SOCK: '', NODE_DOCTOR_AUDIT_LOG: audit},
        timeoutMs: 60_000,
      })
    const dry = await cli('--dry-run')
    assert.equal(dry.exitCode, 0, dry.stderr)
    assert.match(dry.stdout, /^Plan: fix conntrack on node node-a for Service kube-system\/kube-dns\n/)
    assert.match(dry.stdout, /2\. delete 3 entries to 10\.96\.0\.10:53\/udp \(ClusterIP\) that go to 10\.244\.2\.7:\n {5}conntrack -D -p udp --orig-dst 10\.96\.0\.10 --orig-port-dst 53 --reply-src 10\.244\.2\.7\n/)
    assert.match(dry.stdout, /Only these entries are deleted; the table is never flushed\./)
    assert.deepEqual(table().map(key).sort(), before)
    assert.equal(existsSync(audit), false)

    const refused = await cli()
    assert.equal(refused.exitCode, 2)
    assert.match(refused.stderr, /--yes/)
    assert.deepEqual(table().map(key).sort(), before)

    const ok = await cli('--yes')
    assert.equal(ok.exitCode, 0, ok.stderr)
    assert.match(ok.stdout, /^Plan: fix conntrack on node node-a/)
    assert.ok(ok.stdout.endsWith('\nnode-a: applied: 4 stale UDP conntrack entries deleted; none is left for kube-system/kube-dns\n'), ok.stdout)
    assert.deepEqual(table().map(key).sort(), before.filter((k) => !/^udp 10\.96\.0\.10:53 from :410(0[123]|21) /.test(k)))
    assert.equal((JSON.parse(readFileSync(audit, 'utf8')) as AuditRecord).outcome, 'applied')
  })

  it('the command: a user who may not list EndpointSlices is refused up front (exit 4), nothing deleted or audited', async () => {
    plantFlows()
    const before = table().map(key).sort()
    const audit = tmp.path(`audit-cli-${++n}`, 'audit.log')
    api.setDenyRules([{verb: 'list', resource: 'endpointslices'}])
    try {
      const r = await runCli(['fix', 'conntrack', 'node-a', '--service', 'kube-system/kube-dns', '--yes', '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {
        env: {HOME: dir, SSH_AUTH_SOCK: '', NODE_DOCTOR_AUDIT_LOG: audit},
        timeoutMs: 60_000,
      })
      assert.equal(r.exitCode, 4, r.stderr)
      assert.match(r.stderr, /not allowed to fix conntrack on node node-a: missing permission to list endpointslices\.discovery\.k8s\.io -n kube-system; nothing was changed/)
      assert.deepEqual(table().map(key).sort(), before)
      assert.equal(existsSync(audit), false)
    } finally {
      api.setDenyRules([])
    }
  })

  it('plans nothing when no entry is stale', async () => {
    sendFrom(netns.name, '10.96.0.10', [41011])
    const {deps: d} = deps()
    const plan = await planConntrackFix(d, REQ)
    assert.deepEqual(plan.deletions, [])
    assert.match(formatConntrackPlan(plan), /No stale UDP conntrack entry for kube-system\/kube-dns on node-a: nothing to delete/)
  })
})
