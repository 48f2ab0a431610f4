// SshTransport.exec against a real OpenSSH sshd on 127.0.0.1 (one private sshd per suite, see test/support/sshd.ts).
import assert from 'node:assert/strict'
import {chmodSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server, type Socket, connect as tcpConnect} from 'node:net'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {collectNode} from '../../../src/app/collect-node.js'
import type {PlanItem} from '../../../src/core/collection/plan.js'
import {TransportError} from '../../../src/transports/ssh/errors.js'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, targetFor, type UserKey} from '../../support/sshd.js'

const skip = sshdSkipReason()
const NO_AGENT = {agentSocket: ''}

describe('SshTransport exec', {skip}, () => {
  let dir: string
  let key: UserKey
  let sshd: Sshd
  let knownHosts: string
  const open: SshTransport[] = []
  const transport = (overrides = {}, options = {}) => {
    const t = new SshTransport('node-a', targetFor(sshd, key, knownHosts, overrides), {...NO_AGENT, ...options})
    open.push(t)
    return t
  }

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    sshd = await startSshd({authorizedKeys: [key.publicKey]})
    knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
  })
  after(async () => {
    await Promise.all(open.map((t) => t.close()))
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  it('returns exit code, stdout and stderr; a non-zero exit is data, not an error', async () => {
    const t = transport()
    assert.deepEqual(await t.exec('printf "out\\n"; printf "err\\n" >&2; exit 3', {timeoutMs: 10_000}), {exitCode: 3, stdout: 'out\n', stderr: 'err\n'})
    assert.deepEqual(await t.exec('true', {timeoutMs: 10_000}), {exitCode: 0, stdout: '', stderr: ''})
    const missing = await t.exec('definitely-not-a-command-nd', {timeoutMs: 10_000})
    assert.equal(missing.exitCode, 127)
    assert.match(missing.stderr, /not found/)
    const utf8 = await t.exec("printf 'k\\303\\266ln \\342\\234\\223'", {timeoutMs: 10_000})
    assert.equal(utf8.stdout, 'köln ✓')
    const stdin = await t.exec('cat; echo done', {timeoutMs: 10_000})
    assert.deepEqual(stdin, {exitCode: 0, stdout: 'done\n', stderr: ''}, 'stdin is at EOF, like ssh -n')
  })

  it('runs concurrent commands as channels on ONE connection', async () => {
    const acceptedBefore = sshd.count(/Accepted publickey for root/)
    const sessionsBefore = sshd.count(/Starting session: command/)
    const t = transport()
    const started = Date.now()
    const results = await Promise.all(Array.from({length: 12}, (_, i) => t.exec(`sleep 0.5; echo ${i}`, {timeoutMs: 20_000})))
    const elapsed = Date.now() - started
    assert.deepEqual(
      results.map((r) => r.stdout),
      Array.from({length: 12}, (_, i) => `${i}\n`),
    )
    await t.close()
    await sshd.waitForLog(/Disconnected from user root/)
    assert.equal(sshd.count(/Accepted publickey for root/) - acceptedBefore, 1, 'exactly one TCP connection/authentication')
    assert.equal(sshd.count(/Starting session: command/) - sessionsBefore, 12, 'one session channel per command')
    // 12 x 0.5 s serially would be 6 s; 8 channels at once need two rounds.
    assert.ok(elapsed < 4_500, `commands did not overlap: ${elapsed} ms`)
  })

  it('kills a command at its timeout and reports timedOut with the output so far', async () => {
    const t = transport()
    const started = Date.now()
    const r = await t.exec('echo started; while :; do echo tick; sleep 0.1; done', {timeoutMs: 700})
    assert.equal(r.timedOut, true)
    assert.equal(r.exitCode, null)
    assert.match(r.stdout, /^started\ntick\n/)
    assert.ok(Date.now() - started < 5_000)
    // The connection stays usable for the next command.
    assert.equal((await t.exec('echo still-here', {timeoutMs: 10_000})).stdout, 'still-here\n')
  })

  it('frees the channel of a timed-out command that ignores its closed output', async () => {
    const t = transport({}, {maxChannels: 2})
    const slow = await Promise.all([t.exec('sleep 3', {timeoutMs: 300}), t.exec('sleep 3', {timeoutMs: 300})])
    assert.deepEqual(
      slow.map((r) => r.timedOut),
      [true, true],
    )
    assert.equal((await t.exec('echo next', {timeoutMs: 10_000})).stdout, 'next\n')
  })

  it('cuts output at maxBytes and says so', async () => {
    const r = await transport().exec('head -c 1000000 /dev/zero', {timeoutMs: 20_000, maxBytes: 100_000})
    assert.ok(r.stdout.length <= 100_000)
    assert.match(r.stderr, /output exceeded 100000 bytes and was cut/)
  })

  it('adapts to a server whose MaxSessions is below our channel limit', async () => {
    const small = await startSshd({authorizedKeys: [key.publicKey], extraConfig: 'MaxSessions 2'})
    try {
      const kh = join(dir, 'known_hosts_small')
      writeFileSync(kh, small.knownHostsLine())
      const t = new SshTransport('node-small', targetFor(small, key, kh), NO_AGENT)
      open.push(t)
      const results = await Promise.all(Array.from({length: 8}, (_, i) => t.exec(`sleep 0.2; echo ${i}`, {timeoutMs: 20_000})))
      assert.deepEqual(
        results.map((r) => r.stdout.trim()),
        ['0', '1', '2', '3', '4', '5', '6', '7'],
      )
      assert.ok(small.count(/no more sessions/) > 0, 'the server did refuse extra channels')
      await t.close()
    } finally {
      await small.stop()
    }
  })

  it('rejects exec after close; close is idempotent', async () => {
    const t = transport()
    await t.exec('true', {timeoutMs: 10_000})
    await t.close()
    await t.close()
    await assert.rejects(t.exec('true', {timeoutMs: 1000}), (e: unknown) => e instanceof TransportError && e.reason === 'closed')
  })
})

describe('SshTransport connection failures', {skip}, () => {
  let dir: string
  let key: UserKey
  let sshd: Sshd
  let knownHosts: string
  const servers: Server[] = []

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    sshd = await startSshd({authorizedKeys: [key.publicKey]})
    knownHosts = join(dir, 'known_hosts')
  })
  after(async () => {
    for (const s of servers) s.close()
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  const listen = (onConn: (s: Socket) => void): Promise<number> =>
    new Promise((resolve) => {
      const srv = createServer(onConn)
      servers.push(srv)
      srv.listen(0, '127.0.0.1', () => resolve((srv.address() as {port: number}).port))
    })

  it('connection refused names the node, the address and the cause', async () => {
    const port = await listen(() => {})
    servers.pop()!.close()
    await new Promise((r) => setTimeout(r, 50))
    const t = new SshTransport('node-refused', targetFor(sshd, key, knownHosts, {port}), NO_AGENT)
    await assert.rejects(t.exec('true', {timeoutMs: 1000}), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'connection-refused')
      assert.equal(e.message, `ssh to node node-refused (root@127.0.0.1:${port}): connection refused on port ${port} (is sshd running there?)`)
      return true
    })
  })

  it('a server that never speaks SSH hits the connect timeout', async () => {
    const held: Socket[] = []
    const port = await listen((s) => held.push(s))
    const t = new SshTransport('node-silent', targetFor(sshd, key, knownHosts, {port}), {...NO_AGENT, connectTimeoutMs: 600})
    const started = Date.now()
    await assert.rejects(t.connect(), (e: unknown) => e instanceof TransportError && e.reason === 'timeout' && /node-silent/.test(e.message) && /no SSH handshake within 0.6s/.test(e.message))
    assert.ok(Date.now() - started < 3_000)
    for (const s of held) s.destroy()
  })

  it('a connection lost mid-command rejects with a transport error, not a fake exit', async () => {
    writeFileSync(knownHosts, sshd.knownHostsLine('[127.0.0.1]:*'))
    // A TCP relay we can cut, standing for a node that reboots or a network that drops.
    const sockets: Socket[] = []
    const port = await listen((client) => {
      const upstream = tcpConnect(sshd.port, '127.0.0.1')
      sockets.push(client, upstream)
      client.pipe(upstream).pipe(client)
      client.on('error', () => {})
      upstream.on('error', () => {})
    })
    const t = new SshTransport('node-drop', targetFor(sshd, key, knownHosts, {port}), {...NO_AGENT, keepaliveIntervalMs: 0})
    await t.connect()
    const running = t.exec('sleep 10', {timeoutMs: 20_000})
    await new Promise((r) => setTimeout(r, 300))
    for (const s of sockets) s.destroy()
    await assert.rejects(running, (e: unknown) => e instanceof TransportError && e.reason === 'disconnected' && /node-drop/.test(e.message))
    await assert.rejects(t.exec('true', {timeoutMs: 1000}), (e: unknown) => e instanceof TransportError && e.reason === 'disconnected')
    await t.close()
  })
})

// sudo(8) is not installed on every test machine, so a stand-in on the session PATH plays it: each key's
// authorized_keys line sets the environment, as a sudoers NOPASSWD rule (or its absence) would decide.
const FAKE_SUDO = `#!/bin/sh
[ "$1" = "-n" ] || { echo "fake sudo: only -n is supported" >&2; exit 2; }
shift
[ "$ND_FAKE_SUDO" = nopasswd ] && exec "$@"
echo "sudo: a password is required" >&2
exit 1
`

describe('--sudo over SSH', {skip}, () => {
  let dir: string
  let sshd: Sshd
  let knownHosts: string
  let withSudo: UserKey
  let withoutSudo: UserKey

  before(async () => {
    dir = makeTempDir()
    chmodSync(dir, 0o755)
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'sudo'), FAKE_SUDO, {mode: 0o755})
    withSudo = makeUserKey(dir)
    withoutSudo = makeUserKey(dir)
    const path = `PATH=${bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`
    sshd = await startSshd({
      authorizedKeys: [`environment="${path}",environment="ND_FAKE_SUDO=nopasswd" ${withSudo.publicKey}`, `environment="${path}" ${withoutSudo.publicKey}`],
      extraConfig: 'PermitUserEnvironment yes',
    })
    knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, sshd.knownHostsLine())
  })
  after(async () => {
    await sshd?.stop()
    rmSync(dir, {recursive: true, force: true})
  })

  const plan: PlanItem[] = [
    {id: 'kernel', description: 'kernel', argv: ['uname', '-s'], areas: ['kubelet'], required: false, tool: 'uname'},
    {id: 'rules', description: 'rules', argv: ['printf', '%s\\n', '-A KUBE-SERVICES'], areas: ['iptables'], required: true, tool: 'printf'},
  ]

  it('collects through sudo -n when the user has passwordless sudo', async () => {
    const t = new SshTransport('node-sudo', targetFor(sshd, withSudo, knownHosts), NO_AGENT)
    try {
      // One exec per command, and the whole plan as one script under one `sudo -n sh -c`.
      for (const batch of [false, true]) {
        const snap = await collectNode(t, {plan, timeoutMs: 10_000, sudo: true, now: () => new Date(), batch})
        assert.equal(snap.transport, 'ssh')
        assert.equal(snap.artifacts.kernel?.source, 'sudo -n uname -s')
        assert.equal(snap.artifacts.kernel?.content, 'Linux\n', `batch: ${batch}`)
        assert.equal(snap.artifacts.rules?.content, '-A KUBE-SERVICES\n')
        assert.deepEqual(snap.errors, [])
      }
    } finally {
      await t.close()
    }
  })

  it("returns sudo's password complaint intact so collection explains it", async () => {
    const t = new SshTransport('node-nosudo', targetFor(sshd, withoutSudo, knownHosts), NO_AGENT)
    try {
      const raw = await t.exec('sudo -n iptables-save', {timeoutMs: 10_000})
      assert.deepEqual(raw, {exitCode: 1, stdout: '', stderr: 'sudo: a password is required\n'})
      for (const batch of [false, true]) {
        const snap = await collectNode(t, {plan, timeoutMs: 10_000, sudo: true, now: () => new Date(), batch})
        assert.match(snap.artifacts.kernel?.error ?? '', /^sudo needs a password on this node/, `batch: ${batch}`)
        assert.deepEqual(
          snap.errors.map((e) => [e.node, e.source]),
          [['node-nosudo', 'rules']],
        )
      }
    } finally {
      await t.close()
    }
  })
})
