// ProxyJump through real bastion sshds. Loopback chain: bastions and node on 127.0.0.1 ports, the route proven
// by each bastion's DEBUG log of the forwarding. Network namespace: the node listens on the namespace's own
// loopback, so the only way in is through the bastion inside the namespace.
import assert from 'node:assert/strict'
import {appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {connect as tcpConnect} from 'node:net'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {TransportError} from '../../../src/transports/ssh/errors.js'
import {SshJumpPool, SshTransport} from '../../../src/transports/ssh/ssh.js'
import {resolveSshTarget} from '../../../src/transports/ssh/ssh-config.js'
import {createNetns, makeTempDir, makeUserKey, type Netns, netnsSkipReason, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../../support/sshd.js'

const forwarded = (port: number) => new RegExp(`server_request_direct_tcpip: originator 127\\.0\\.0\\.1 port \\d+, target 127\\.0\\.0\\.1 port ${port}$`, 'm')

describe('ProxyJump over loopback', {skip: sshdSkipReason()}, () => {
  let home: string
  let b1: Sshd
  let b2: Sshd
  let node: Sshd

  before(async () => {
    home = makeTempDir('nd-home-')
    mkdirSync(join(home, '.ssh'))
    const key = makeUserKey(join(home, '.ssh'), {name: 'id_test'})
    ;[b1, b2, node] = await Promise.all([
      startSshd({authorizedKeys: [key.publicKey], logLevel: 'DEBUG1'}),
      startSshd({authorizedKeys: [key.publicKey], logLevel: 'DEBUG1'}),
      startSshd({authorizedKeys: [key.publicKey]}),
    ])
    writeFileSync(join(home, '.ssh', 'known_hosts'), b1.knownHostsLine() + b2.knownHostsLine() + node.knownHostsLine())
    writeFileSync(
      join(home, '.ssh', 'config'),
      `Host b1
  HostName 127.0.0.1
  Port ${b1.port}
Host b2
  HostName 127.0.0.1
  Port ${b2.port}
Host node-behind
  HostName 127.0.0.1
  Port ${node.port}
  ProxyJump b1,b2
Host *
  User root
  IdentityFile ~/.ssh/id_test
  IdentitiesOnly yes
`,
    )
  })
  after(async () => {
    await Promise.all([b1?.stop(), b2?.stop(), node?.stop()])
    rmSync(home, {recursive: true, force: true})
  })

  const resolve = (flags = {}) => resolveSshTarget({nodeName: 'node-behind', flags, env: {}, home})

  it('reaches the node through two bastions from the ssh config, one connection each', async () => {
    const target = resolve()
    assert.deepEqual(
      target.proxyJump.map((h) => h.port),
      [b1.port, b2.port],
    )
    const t = new SshTransport('node-behind', target, {agentSocket: ''})
    try {
      const results = await Promise.all(Array.from({length: 5}, (_, i) => t.exec(`echo ${i}`, {timeoutMs: 10_000})))
      assert.deepEqual(
        results.map((r) => r.stdout),
        ['0\n', '1\n', '2\n', '3\n', '4\n'],
      )
    } finally {
      await t.close()
    }
    assert.match(b1.log(), forwarded(b2.port), 'b1 forwarded to b2')
    assert.match(b2.log(), forwarded(node.port), 'b2 forwarded to the node')
    assert.equal(b1.count(/Accepted publickey for root/), 1)
    assert.equal(b2.count(/Accepted publickey for root/), 1)
    assert.equal(node.count(/Accepted publickey for root/), 1)
  })

  it('verifies every hop: an unknown bastion key stops the chain there', async () => {
    const target = resolve()
    const onlyB1 = join(home, 'known_hosts_b1_only')
    writeFileSync(onlyB1, b1.knownHostsLine() + node.knownHostsLine())
    target.proxyJump[1]!.knownHostsFiles = [onlyB1]
    const nodeConnections = node.count(/Connection from/)
    const t = new SshTransport('node-behind', target, {agentSocket: ''})
    await assert.rejects(t.connect(), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'host-key-unknown')
      assert.ok(
        e.message.startsWith(
          `ssh to node node-behind (root@127.0.0.1:${node.port} via root@127.0.0.1:${b1.port} -> root@127.0.0.1:${b2.port}): jump host root@127.0.0.1:${b2.port}: host key of [127.0.0.1]:${b2.port} is not in known_hosts`,
        ),
        e.message,
      )
      assert.ok(e.message.includes(b2.hostKeys[0]!.fingerprint))
      return true
    })
    await t.close()
    assert.equal(node.count(/Connection from/), nodeConnections, 'nothing reached the node')
  })

  it('reports a node the bastion cannot reach', async () => {
    const target = resolve({jump: 'b1'})
    const t = new SshTransport('node-gone', {...target, port: 1}, {agentSocket: ''})
    await assert.rejects(t.connect(), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'connection-refused')
      assert.match(e.message, new RegExp(`jump host root@127\\.0\\.0\\.1:${b1.port} could not open a connection to 127\\.0\\.0\\.1:1: .*refused`, 'i'))
      return true
    })
    await t.close()
  })

  it('SshJumpPool shares one bastion connection between the nodes behind it', async () => {
    const node2 = await startSshd({authorizedKeys: [readFileSync(join(home, '.ssh', 'id_test.pub'), 'utf8')]})
    try {
      appendFileSync(join(home, '.ssh', 'known_hosts'), node2.knownHostsLine())
      const viaB1 = resolve({jump: 'b1'})
      const pool = new SshJumpPool()
      const t1 = new SshTransport('node-1', viaB1, {agentSocket: '', jumpPool: pool})
      const t2 = new SshTransport('node-2', {...viaB1, port: node2.port}, {agentSocket: '', jumpPool: pool})
      const accepted = b1.count(/Accepted publickey for root/)
      const disconnected = b1.count(/Disconnected from user root/)
      const [r1, r2] = await Promise.all([t1.exec('echo one', {timeoutMs: 10_000}), t2.exec('echo two', {timeoutMs: 10_000})])
      assert.deepEqual([r1.stdout, r2.stdout], ['one\n', 'two\n'])
      assert.equal(b1.count(/Accepted publickey for root/) - accepted, 1, 'both nodes went through one bastion connection')
      assert.match(b1.log(), forwarded(node2.port))
      await t1.close()
      assert.equal((await t2.exec('echo still', {timeoutMs: 10_000})).stdout, 'still\n', 'the bastion stays while a node uses it')
      await t2.close()
      await b1.waitForCount(/Disconnected from user root/, disconnected + 1)
      await pool.close()
    } finally {
      await node2.stop()
    }
  })

  it('SshJumpPool: a failing bastion fails every node behind it, each error naming its own node', async () => {
    const viaB1 = resolve({jump: 'b1'})
    const onlyNode = join(home, 'known_hosts_node_only')
    writeFileSync(onlyNode, node.knownHostsLine())
    viaB1.proxyJump[0]!.knownHostsFiles = [onlyNode]
    const pool = new SshJumpPool()
    const connections = b1.count(/Connection from/)
    const errors = await Promise.all(
      ['node-x', 'node-y'].map((n) =>
        new SshTransport(n, viaB1, {agentSocket: '', jumpPool: pool}).connect().then(
          () => assert.fail('must not connect'),
          (e: unknown) => e,
        ),
      ),
    )
    for (const [i, n] of ['node-x', 'node-y'].entries()) {
      const e = errors[i]
      assert.ok(e instanceof TransportError && e.reason === 'host-key-unknown')
      assert.ok(e.message.startsWith(`ssh to node ${n} (`), e.message)
      assert.ok(e.message.includes(`jump host root@127.0.0.1:${b1.port}: host key of [127.0.0.1]:${b1.port} is not in known_hosts`))
    }
    assert.equal(b1.count(/Connection from/) - connections, 1, 'one attempt for both nodes')
    await pool.close()
  })
})

describe('ProxyJump into a network namespace', {skip: netnsSkipReason()}, () => {
  let dir: string
  let key: UserKey
  let ns: Netns
  let bastion: Sshd
  let node: Sshd
  let knownHosts: string

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    ns = createNetns()
    bastion = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: ns.address, logLevel: 'DEBUG1'})
    node = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: '127.0.0.1'})
    knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, bastion.knownHostsLine() + node.knownHostsLine())
  })
  after(async () => {
    await Promise.all([bastion?.stop(), node?.stop()])
    ns?.remove()
    rmSync(dir, {recursive: true, force: true})
  })

  it('the node is unreachable directly but reachable through the bastion', async () => {
    for (const host of ['127.0.0.1', ns.address]) {
      await assert.rejects(
        new Promise<void>((resolve, reject) => {
          const s = tcpConnect(node.port, host)
          s.setTimeout(2_000, () => (s.destroy(), reject(new Error('timeout'))))
          s.once('connect', () => (s.destroy(), resolve()))
          s.once('error', reject)
        }),
        `direct connection to ${host}:${node.port} must fail`,
      )
    }
    const target = targetFor(node, key, knownHosts, {proxyJump: [targetFor(bastion, key, knownHosts)]})
    const t = new SshTransport('node-in-ns', target, {agentSocket: ''})
    try {
      const r = await t.exec('ip -o -4 addr show scope global | wc -l; hostname', {timeoutMs: 10_000})
      assert.equal(r.exitCode, 0)
      assert.equal(r.stdout.split('\n')[0], '1', 'runs inside the namespace: its only global address is the veth end')
    } finally {
      await t.close()
    }
    assert.match(bastion.log(), forwarded(node.port))
  })
})
