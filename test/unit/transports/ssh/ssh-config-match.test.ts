// resolveSshTarget with Match blocks and ProxyCommand (fixture test/fixtures/ssh/match/config, read through
// --ssh-config). The local user is "tester"; HOME is an empty fixture directory.
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {UsageError} from '../../../../src/errors.js'
import {expandProxyCommand, type ResolveSshTargetInput, type SshFlags, resolveSshTarget} from '../../../../src/transports/ssh/ssh-config.js'
import {fixturePath} from '../../../support/golden.js'

const CONFIG = fixturePath('ssh/match/config')
const resolve = (nodeName: string, flags: SshFlags = {}, more: Partial<ResolveSshTargetInput> = {}) =>
  resolveSshTarget({nodeName, flags: {sshConfigPath: CONFIG, ...flags}, env: {}, home: fixturePath('ssh/match'), localUser: 'tester', localHost: 'laptop', ...more})

describe('ssh config Match', () => {
  it('originalhost with a negated user criterion sees the local user when nothing set one', () => {
    const t = resolve('db-1')
    assert.equal(t.user, 'dbuser')
    assert.equal(t.identitiesOnly, false)
  })

  it('user sees the --ssh-user flag, as ssh -l does', () => {
    const t = resolve('db-1', {user: 'admin'})
    assert.equal(t.user, 'admin', 'the negated criterion failed, so the User line did not apply')
    assert.equal(t.identitiesOnly, true, 'Match user admin applied')
  })

  it('host sees the HostName obtained so far, case-insensitively', () => {
    const t = resolve('app.lab')
    assert.equal(t.host, 'app.lab.internal.example')
    assert.equal(t.port, 2022)
  })

  it('a negated criterion fails the block; all criteria must hold', () => {
    assert.equal(resolve('web-1.lab').port, 2022, '!host matched the HostName: no Port 2200')
    assert.equal(resolve('web-2').port, 2200)
  })

  it('a Match host block for the node address is an entry for it; Match all is not', () => {
    const t = resolve('n1', {}, {address: '10.0.0.5'})
    assert.equal(t.user, 'local-tester')
    assert.equal(t.host, '10.0.0.5')
    assert.ok(t.notes.some((n) => n.includes('using the entry for its address 10.0.0.5')))
    assert.equal(resolve('n2', {}, {address: '192.0.2.99'}).user, 'everyone')
  })

  it('skips blocks it cannot evaluate (exec) with a note, and never applies Match !all', () => {
    const t = resolve('app.lab')
    assert.equal(t.user, 'everyone')
    assert.ok(t.notes.some((n) => /"Match exec "hostname"" was skipped: node-doctor does not evaluate Match exec/.test(n)), t.notes.join('\n'))
  })

  it('rejects malformed Match lines naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nd-sshcfg-'))
    after(() => rmSync(dir, {recursive: true, force: true}))
    const bad = (text: string, re: RegExp) => {
      const f = join(dir, `c${Math.random().toString(36).slice(2)}`)
      writeFileSync(f, text)
      assert.throws(() => resolve('x', {sshConfigPath: f}), (e: unknown) => e instanceof UsageError && re.test(e.message) && e.message.includes(f))
    }
    bad('Match all host x\n  User y\n', /'all' cannot be combined/)
    bad('Match host\n  User y\n', /host needs a pattern list/)
    bad('Match colour blue\n  User y\n', /unsupported Match criterion colour/)
  })
})

describe('ssh config ProxyCommand', () => {
  it('keeps the command as written (quotes included) and expands %h %p %r', () => {
    const t = resolve('proxied-7')
    assert.equal(t.proxyCommand, 'ssh -W "[proxied-7]:22" -l everyone gw')
    assert.deepEqual(t.proxyJump, [])
  })

  it('expands %n (the name looked up) and %%; takes `=` as the separator', () => {
    assert.equal(resolve('db-1').proxyCommand, '/usr/bin/connect-proxy db-1 22 dbuser db-1 100%')
  })

  it('ProxyCommand none disables a later one', () => {
    assert.equal(resolve('direct-1').proxyCommand, undefined)
  })

  it('the first of ProxyJump and ProxyCommand wins; the first hop keeps its own ProxyCommand', () => {
    const t = resolve('both')
    assert.equal(t.proxyCommand, undefined)
    assert.deepEqual(t.proxyJump.map((h) => [h.host, h.user, h.proxyCommand]), [['192.0.2.1', 'jump', '/usr/bin/connect-proxy 192.0.2.1 22 jump gw 100%']])
  })

  it('--ssh-jump (even none) wins over a configured ProxyCommand', () => {
    assert.equal(resolve('proxied-7', {jump: 'none'}).proxyCommand, undefined)
    const t = resolve('proxied-7', {jump: 'gw'})
    assert.equal(t.proxyCommand, undefined)
    assert.equal(t.proxyJump[0]!.host, '192.0.2.1')
  })

  it('rejects tokens ssh does not expand in ProxyCommand', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nd-sshcfg-'))
    after(() => rmSync(dir, {recursive: true, force: true}))
    const f = join(dir, 'config')
    writeFileSync(f, 'Host *\n  ProxyCommand nc %d %p\n')
    assert.throws(() => resolve('x', {sshConfigPath: f}), (e: unknown) => e instanceof UsageError && /unsupported token %d in ProxyCommand "nc %d %p"/.test(e.message))
  })
})

describe('ssh config ProxyCommand with node-reported values (CVE-2023-51385 class)', () => {
  it('refuses a node address that is not an IP or a DNS name before any expansion', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nd-sshcfg-'))
    after(() => rmSync(dir, {recursive: true, force: true}))
    const f = join(dir, 'config')
    writeFileSync(f, 'Host *\n  ProxyCommand nc %h %p\n')
    assert.throws(
      () => resolve('node-x', {sshConfigPath: f}, {address: '10.0.0.3$(touch pwned)'}),
      (e: unknown) => e instanceof UsageError && /node node-x's address "10\.0\.0\.3\$\(touch pwned\)" is not an IP address or a DNS name/.test(e.message),
    )
    assert.throws(() => resolve('node;id', {sshConfigPath: f}), (e: unknown) => e instanceof UsageError && /node name "node;id"/.test(e.message))
    assert.equal(resolve('node-x', {sshConfigPath: f}, {address: '10.0.0.3'}).proxyCommand, 'nc 10.0.0.3 22')
  })

  it('refuses to expand a token whose value a shell would interpret (a HostName or user from the config)', () => {
    assert.throws(() => expandProxyCommand('nc %h %p', {h: 'a b', p: '22', r: 'u', n: 'n'}), /refusing to expand %h in ProxyCommand/)
    assert.throws(() => expandProxyCommand('nc %h %p -l %r', {h: 'h', p: '22', r: 'u$(id)', n: 'n'}), /refusing to expand %r/)
    assert.equal(expandProxyCommand('ssh -W [%h]:%p gw', {h: 'fe80::1%eth0', p: '22', r: 'u', n: 'n'}), 'ssh -W [fe80::1%eth0]:22 gw')
  })
})
