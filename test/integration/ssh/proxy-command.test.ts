// ssh_config ProxyCommand against real sshd: the command's stdin/stdout carry the connection. Two proxies: a small
// node script that pipes to 127.0.0.1:PORT, and OpenSSH's own `ssh -W %h:%p` through a second sshd (a bastion).
import assert from 'node:assert/strict'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {TransportError} from '../../../src/transports/ssh/errors.js'
import {resolveSshTarget} from '../../../src/transports/ssh/ssh-config.js'
import {SshTransport} from '../../../src/transports/ssh/ssh.js'
import {makeTempDir, makeUserKey, type Sshd, sshdSkipReason, startSshd, type UserKey} from '../../support/sshd.js'

// Logs its pid and arguments, then pipes stdin/stdout to host:port (argv: LOG HOST PORT USER NAME).
const PIPE_SCRIPT = `
import {appendFileSync} from 'node:fs'
import {connect} from 'node:net'
const [log, host, port, ...rest] = process.argv.slice(2)
appendFileSync(log, JSON.stringify({pid: process.pid, host, port, rest}) + '\\n')
const s = connect(Number(port), host)
s.on('error', (e) => { process.stderr.write('pipe: ' + e.message + '\\n'); process.exit(3) })
process.stdin.pipe(s)
s.pipe(process.stdout)
s.on('close', () => process.exit(0))
`

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('ProxyCommand', {skip: sshdSkipReason()}, () => {
  let dir: string
  let key: UserKey
  let node: Sshd
  let bastion: Sshd
  let config: string
  let log: string
  const open: SshTransport[] = []

  const transportFor = (name: string) => {
    const target = resolveSshTarget({nodeName: name, flags: {sshConfigPath: config}, env: {}, home: dir, localUser: 'root'})
    const t = new SshTransport(name, target, {agentSocket: ''})
    open.push(t)
    return t
  }

  before(async () => {
    dir = makeTempDir()
    key = makeUserKey(dir)
    ;[node, bastion] = await Promise.all([startSshd({authorizedKeys: [key.publicKey]}), startSshd({authorizedKeys: [key.publicKey]})])
    const knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, node.knownHostsLine() + bastion.knownHostsLine())
    const script = join(dir, 'pipe.mjs')
    writeFileSync(script, PIPE_SCRIPT)
    log = join(dir, 'proxy.log')
    config = join(dir, 'ssh_config')
    const common = `  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile /dev/null\n`
    writeFileSync(
      config,
      [
        `Host piped`,
        `  HostName 127.0.0.1`,
        `  Port ${node.port}`,
        `  ProxyCommand ${process.execPath} ${script} ${log} %h %p %r %n`,
        common,
        `Host bastion`,
        `  HostName 127.0.0.1`,
        `  Port ${bastion.port}`,
        common,
        `Host via-ssh-w`,
        `  HostName 127.0.0.1`,
        `  Port ${node.port}`,
        `  ProxyCommand ssh -F ${config} -o BatchMode=yes -W %h:%p bastion`,
        common,
        `Host broken`,
        `  HostName 127.0.0.1`,
        `  Port ${node.port}`,
        `  ProxyCommand sh -c 'echo "no route to the moon" >&2; exit 7'`,
        common,
      ].join('\n'),
    )
  })
  after(async () => {
    await Promise.all(open.map((t) => t.close()))
    await Promise.all([node?.stop(), bastion?.stop()])
    rmSync(dir, {recursive: true, force: true})
  })

  it('connects through a command that pipes to the node, with %h %p %r %n expanded', async () => {
    const t = transportFor('piped')
    assert.deepEqual(await t.exec('echo via-proxy', {timeoutMs: 10_000}), {exitCode: 0, stdout: 'via-proxy\n', stderr: ''})
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {pid: number; host: string; port: string; rest: string[]})
    assert.equal(calls.length, 1, 'one proxy process for the connection')
    assert.deepEqual([calls[0]!.host, calls[0]!.port, calls[0]!.rest], ['127.0.0.1', String(node.port), ['root', 'piped']])
    // Commands are channels on the one proxied connection.
    await Promise.all([1, 2, 3].map((i) => t.exec(`echo ${i}`, {timeoutMs: 10_000})))
    assert.equal(readFileSync(log, 'utf8').trim().split('\n').length, 1)
    await t.close()
    const until = Date.now() + 5_000
    while (alive(calls[0]!.pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    assert.equal(alive(calls[0]!.pid), false, 'closing the transport ends the proxy command')
  })

  it('connects through OpenSSH `ssh -W %h:%p` via a bastion sshd', async () => {
    const before = bastion.count(/Accepted publickey for root/)
    const t = transportFor('via-ssh-w')
    assert.equal((await t.exec('echo through-bastion', {timeoutMs: 15_000})).stdout, 'through-bastion\n')
    assert.equal(bastion.count(/Accepted publickey for root/) - before, 1, 'the bastion authenticated the ssh -W client')
  })

  it('a proxy command that fails names itself, its exit code and what it said', async () => {
    const t = transportFor('broken')
    await assert.rejects(t.exec('true', {timeoutMs: 10_000}), (e: unknown) => {
      assert.ok(e instanceof TransportError)
      assert.equal(e.reason, 'proxy-command')
      assert.match(e.message, /^ssh to node broken \(root@127\.0\.0\.1:\d+ via ProxyCommand "sh -c 'echo "no route to the moon" >&2; exit 7'"\): /)
      assert.match(e.message, /exited with code 7: no route to the moon$/)
      return true
    })
  })

  it('ProxyCommand none in the config connects directly', async () => {
    const direct = join(dir, 'direct_config')
    writeFileSync(direct, readFileSync(config, 'utf8').replace('Host piped\n', 'Host piped\n  ProxyCommand none\n'))
    const target = resolveSshTarget({nodeName: 'piped', flags: {sshConfigPath: direct}, env: {}, home: dir, localUser: 'root'})
    assert.equal(target.proxyCommand, undefined)
    const lines = existsSync(log) ? readFileSync(log, 'utf8') : ''
    const t = new SshTransport('piped', target, {agentSocket: ''})
    open.push(t)
    assert.equal((await t.exec('echo direct', {timeoutMs: 10_000})).stdout, 'direct\n')
    assert.equal(readFileSync(log, 'utf8'), lines, 'the proxy script did not run')
  })
})
