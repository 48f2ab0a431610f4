// resolveSshTarget against the ssh config fixture test/fixtures/ssh/home/.ssh/config.
// HOME is test/fixtures/ssh/home, the local user is "tester", the local host "laptop.example".
// Identity files there are placeholders: resolution only checks that they exist.
import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {UsageError} from '../../../../src/errors.js'
import {parseJumpSpec, type ResolveSshTargetInput, resolveSshTarget} from '../../../../src/transports/ssh/ssh-config.js'
import {fixturePath} from '../../../support/golden.js'

const HOME = fixturePath('ssh/home')
const SSH = join(HOME, '.ssh')
const GLOBAL_KNOWN_HOSTS = ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']

const resolve = (nodeName: string, more: Partial<ResolveSshTargetInput> = {}) =>
  resolveSshTarget({nodeName, flags: {}, env: {}, home: HOME, localUser: 'tester', localHost: 'laptop.example', ...more})

describe('resolveSshTarget with an ssh config', () => {
  it('applies HostName with %h, User and IdentityFile from the first matching Host, and later Host * values', () => {
    const t = resolve('node-1.lab', {address: '10.0.0.1'})
    assert.equal(t.host, 'node-1.lab.internal.example')
    assert.equal(t.user, 'admin', 'first obtained value wins over Host * later')
    assert.equal(t.port, 22)
    assert.deepEqual(t.identityFiles, [join(SSH, 'lab_tester')], 'IdentityFile replaces the defaults')
    assert.equal(t.strictHostKeyChecking, 'accept-new')
    assert.equal(t.connectTimeoutMs, 7000)
    assert.deepEqual(t.knownHostsFiles, [join(SSH, 'known_hosts'), join(SSH, 'known_hosts2'), ...GLOBAL_KNOWN_HOSTS])
    assert.deepEqual(t.proxyJump, [])
  })

  it('follows OpenSSH pattern rules: negation wins and ? is exactly one character', () => {
    const negated = resolve('node-9.lab', {address: '10.3.0.9'})
    assert.equal(negated.user, 'fallback')
    assert.equal(negated.host, '10.3.0.9', 'no HostName: the node InternalIP')
    const twoChars = resolve('node-10.lab')
    assert.equal(twoChars.user, 'fallback')
    assert.equal(twoChars.host, 'node-10.lab', 'no HostName and no address: the node name')
  })

  it('reads Include files in place, so their values win when included first', () => {
    const t = resolve('worker-3', {address: '10.0.0.3'})
    assert.equal(t.host, '172.16.0.3')
    assert.equal(t.user, 'core')
    assert.equal(t.port, 2222)
    assert.ok(!t.notes.some((n) => n.includes('address')), 'the node name matched, so its address is not used')
  })

  it('resolves a ProxyJump chain, each hop through the config, explicit user@host:port winning', () => {
    const t = resolve('worker-3')
    assert.deepEqual(
      t.proxyJump.map((h) => [h.name, h.user, h.host, h.port, h.proxyJump.length]),
      [
        ['bastion', 'ops', '192.0.2.10', 2201, 0],
        ['inner-bastion', 'fallback', '10.1.0.5', 22, 0],
      ],
      "only the first hop's own ProxyJump is followed, as with ssh -J a,b",
    )
    assert.deepEqual(t.proxyJump[0]!.identityFiles, [], 'a missing IdentityFile is skipped ...')
    assert.ok(t.notes.some((n) => n.includes(join(SSH, 'bastion_key')) && n.includes('does not exist')), '... with a note')
  })

  it("follows the first hop's own ProxyJump recursively", () => {
    const t = resolve('deep')
    assert.equal(t.host, '10.9.9.9')
    assert.deepEqual(
      t.proxyJump.map((h) => h.name),
      ['bastion', 'inner-bastion'],
    )
  })

  it('rejects ProxyJump loops', () => {
    assert.throws(() => resolve('loop-a'), (e: unknown) => e instanceof UsageError && /ProxyJump chain/.test(e.message))
  })

  it('falls back to the entry for the node address when no Host entry names the node', () => {
    const t = resolve('ip-10-0-5-5.internal', {address: '10.0.5.5'})
    assert.equal(t.host, '10.0.5.5')
    assert.equal(t.user, 'ubuntu')
    assert.equal(t.identitiesOnly, true)
    assert.deepEqual(t.identityFiles, [join(SSH, 'id_rsa')])
    assert.ok(t.notes.some((n) => n.includes('its address 10.0.5.5')))
  })

  it('takes ProxyCommand with %h %p expanded (more in ssh-config-match.test.ts)', () => {
    const t = resolve('via-command')
    assert.deepEqual(t.proxyJump, [])
    assert.equal(t.proxyCommand, 'nc -X connect -x proxy.example:3128 via-command 22')
  })

  it('evaluates Match blocks (more in ssh-config-match.test.ts)', () => {
    const t = resolve('vault.secret')
    assert.equal(t.user, 'secret-ops')
    assert.deepEqual(t.notes, [])
  })

  it('reads StrictHostKeyChecking, UserKnownHostsFile and HostKeyAlias', () => {
    const t = resolve('legacy')
    assert.equal(t.host, '198.51.100.7')
    assert.equal(t.strictHostKeyChecking, 'no')
    assert.equal(t.hostKeyAlias, 'legacy-alias')
    assert.deepEqual(t.knownHostsFiles, ['/dev/null', ...GLOBAL_KNOWN_HOSTS])
  })

  it('takes the agent from IdentityAgent, else SSH_AUTH_SOCK', () => {
    const env = {SSH_AUTH_SOCK: '/run/agent.sock'}
    assert.equal(resolve('node-1.lab', {env}).identityAgent, '/run/agent.sock')
    assert.equal(resolve('agent-none', {env}).identityAgent, '', 'IdentityAgent none disables the agent')
    assert.equal(resolve('agent-file', {env}).identityAgent, join(SSH, 'agent-tester.sock'))
    assert.equal(resolve('node-1.lab').identityAgent, undefined)
  })

  it('expands %d %u %r %h %p %n %% %C and ~ in IdentityFile', () => {
    const t = resolve('tokens')
    const c = createHash('sha1').update('laptop.exampletokens22fallback').digest('hex')
    for (const f of [join(SSH, 'tester-fallback@tokens:22 tokens %'), join(SSH, `id_${c}`)]) {
      assert.ok(
        t.notes.some((n) => n === `IdentityFile ${f} for tokens does not exist; skipped`),
        `expected a note for ${f}, got ${t.notes.join(' | ')}`,
      )
    }
  })
})

describe('resolveSshTarget precedence', () => {
  it('explicit flags beat the config entry', () => {
    const identity = join(SSH, 'id_ed25519')
    const t = resolve('worker-3', {flags: {user: 'root', port: 2022, identity, jump: 'none', insecureSkipHostKeyCheck: true}})
    assert.equal(t.user, 'root')
    assert.equal(t.port, 2022)
    assert.equal(t.host, '172.16.0.3')
    assert.deepEqual(t.identityFiles, [identity], 'with --identity the default keys are not added (as ssh -i)')
    assert.deepEqual(t.proxyJump, [], '--jump none drops the configured ProxyJump')
    assert.equal(t.strictHostKeyChecking, 'no')
  })

  it('--jump replaces the configured chain and hops keep their own config; the user flag is not applied to hops', () => {
    const t = resolve('node-1.lab', {flags: {user: 'root', jump: 'bastion,jump@10.1.2.3:2022', insecureSkipHostKeyCheck: true}})
    assert.deepEqual(
      t.proxyJump.map((h) => [h.user, h.host, h.port, h.strictHostKeyChecking]),
      [
        ['ops', '192.0.2.10', 2201, 'no'],
        ['jump', '10.1.2.3', 2022, 'no'],
      ],
    )
    assert.equal(t.user, 'root')
  })

  it('defaults without a config: InternalIP, local user, port 22, existing default keys in order', () => {
    const t = resolve('node-a', {address: '10.0.0.7', flags: {sshConfigPath: fixturePath('ssh/empty_config')}, localUser: undefined, env: {USER: 'alice'}})
    assert.equal(t.host, '10.0.0.7')
    assert.equal(t.user, 'alice')
    assert.equal(t.port, 22)
    assert.deepEqual(t.identityFiles, [join(SSH, 'id_ed25519'), join(SSH, 'id_rsa')])
    assert.equal(t.identitiesOnly, false)
    assert.equal(t.strictHostKeyChecking, 'yes')
    assert.equal(t.hostKeyAlias, undefined)
  })

  it('uses ~/.ssh/config only when present', () => {
    const t = resolve('node-1.lab', {home: fixturePath('ssh/keys')})
    assert.equal(t.host, 'node-1.lab')
    assert.deepEqual(t.identityFiles, [])
  })

  it('reports unusable explicit input as usage errors', () => {
    assert.throws(() => resolve('x', {flags: {sshConfigPath: '/nonexistent/ssh_config'}}), (e: unknown) => e instanceof UsageError && /--ssh-config/.test(e.message))
    assert.throws(() => resolve('x', {flags: {identity: '/nonexistent/key'}}), (e: unknown) => e instanceof UsageError && /--ssh-identity/.test(e.message))
    assert.throws(() => resolve('x', {flags: {port: 70000}}), UsageError)
    assert.throws(() => resolve('x', {flags: {jump: 'a@b@c:x'}}), UsageError)
  })
})

describe('parseJumpSpec', () => {
  it('reads [user@]host[:port], ssh:// URIs and bracketed IPv6', () => {
    assert.deepEqual(parseJumpSpec('a, u@b:2200,ssh://v@[fd00::1]:2222'), [{host: 'a'}, {user: 'u', host: 'b', port: 2200}, {user: 'v', host: 'fd00::1', port: 2222}])
  })
})
