// kubectl's kubeconfig rules: precedence (--kubeconfig > KUBECONFIG > ~/.kube/config), the first-wins merge,
// flag overrides, relative paths, and errors that name the file and line. Real temp files, no network.
// Fixture conventions: servers are https://192.168.0.x:6443 (never contacted); context names say which file set them.
import assert from 'node:assert/strict'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {KubeConfig} from '@kubernetes/client-node'
import {InputError, UsageError} from '../../../../src/errors.js'
import {loadKubeConfig, parseRequestTimeout} from '../../../../src/transports/kube/kubeconfig.js'
import {type KubeconfigSpec, tempDir, writeKubeconfig} from '../../../support/kubeconfig.js'

const tmp = tempDir()
after(() => tmp.cleanup())
let n = 0
function file(spec: KubeconfigSpec | string, name = `config-${++n}`): string {
  return writeKubeconfig(tmp.path(name), spec)
}
const NO_HOME = tmp.path('no-home')

function single(ctx: string, server: string, extra: Partial<KubeconfigSpec> = {}): KubeconfigSpec {
  return {
    currentContext: ctx,
    clusters: [{name: `${ctx}-cluster`, server}],
    users: [{name: `${ctx}-user`, token: `${ctx}-token`}],
    contexts: [{name: ctx, cluster: `${ctx}-cluster`, user: `${ctx}-user`}],
    ...extra,
  }
}

describe('kubeconfig precedence', () => {
  it('--kubeconfig reads exactly that file and ignores KUBECONFIG', () => {
    const explicit = file(single('explicit', 'https://192.168.0.1:6443'))
    const env = file(single('env', 'https://192.168.0.2:6443'))
    const a = loadKubeConfig({kubeconfig: explicit}, {KUBECONFIG: env}, NO_HOME)
    assert.equal(a.context, 'explicit')
    assert.equal(a.server, 'https://192.168.0.1:6443')
    assert.deepEqual(a.files, [explicit])
    assert.equal(a.kc.getCurrentUser()?.token, 'explicit-token')
  })

  it('--kubeconfig naming a missing file is a usage error naming the path', () => {
    const missing = tmp.path('nope', 'config')
    assert.throws(
      () => loadKubeConfig({kubeconfig: missing}, {}, NO_HOME),
      (e: unknown) => e instanceof UsageError && e.exitCode === 2 && e.message.includes(missing),
    )
  })

  it('KUBECONFIG beats ~/.kube/config, which is used when KUBECONFIG is unset or empty', () => {
    const home = tmp.path('home')
    mkdirSync(join(home, '.kube'), {recursive: true})
    writeKubeconfig(join(home, '.kube', 'config'), single('home', 'https://192.168.0.3:6443'))
    const env = file(single('env', 'https://192.168.0.2:6443'))
    assert.equal(loadKubeConfig({}, {KUBECONFIG: env}, home).context, 'env')
    assert.equal(loadKubeConfig({}, {}, home).context, 'home')
    assert.equal(loadKubeConfig({}, {KUBECONFIG: ''}, home).context, 'home')
  })

  it('no kubeconfig anywhere is a usage error that says where it looked', () => {
    assert.throws(() => loadKubeConfig({}, {}, NO_HOME), (e: unknown) => e instanceof UsageError && e.message.includes(join(NO_HOME, '.kube', 'config')))
  })
})

describe('KUBECONFIG merge (kubectl: first file to set a name wins)', () => {
  it('takes a duplicated context, cluster and user from the first file, whole', () => {
    const first = file({
      clusters: [{name: 'shared', server: 'https://192.168.0.1:6443'}],
      users: [{name: 'shared', token: 'first-token'}],
      contexts: [{name: 'shared', cluster: 'shared', user: 'shared', namespace: 'first-ns'}],
    })
    const second = file({
      currentContext: 'shared',
      clusters: [{name: 'shared', server: 'https://192.168.0.2:6443', tlsServerName: 'second.example'}],
      users: [{name: 'shared', token: 'second-token'}],
      contexts: [{name: 'shared', cluster: 'shared', user: 'shared', namespace: 'second-ns'}],
    })
    const a = loadKubeConfig({}, {KUBECONFIG: `${first}:${second}`}, NO_HOME)
    assert.equal(a.context, 'shared') // current-context: only the second file sets it
    assert.equal(a.server, 'https://192.168.0.1:6443')
    assert.equal(a.namespace, 'first-ns')
    assert.equal(a.kc.getCurrentUser()?.token, 'first-token')
    // Entries are not merged field by field: the first cluster has no tls-server-name and gets none.
    assert.equal(a.kc.getCurrentCluster()?.tlsServerName, undefined)
  })

  it('takes current-context from the first file that sets one', () => {
    const a = file(single('ctx-a', 'https://192.168.0.1:6443'))
    const b = file(single('ctx-b', 'https://192.168.0.2:6443'))
    assert.equal(loadKubeConfig({}, {KUBECONFIG: `${a}:${b}`}, NO_HOME).context, 'ctx-a')
    assert.equal(loadKubeConfig({}, {KUBECONFIG: `${b}:${a}`}, NO_HOME).context, 'ctx-b')
  })

  it('makes contexts of later files usable with --context', () => {
    const a = file(single('ctx-a', 'https://192.168.0.1:6443'))
    const b = file(single('ctx-b', 'https://192.168.0.2:6443'))
    const got = loadKubeConfig({context: 'ctx-b'}, {KUBECONFIG: `${a}:${b}`}, NO_HOME)
    assert.equal(got.server, 'https://192.168.0.2:6443')
    assert.equal(got.user, 'ctx-b-user')
  })

  it('skips missing files and empty list entries, as kubectl does', () => {
    const b = file(single('ctx-b', 'https://192.168.0.2:6443'))
    const a = loadKubeConfig({}, {KUBECONFIG: `${tmp.path('missing-1')}::${b}:${tmp.path('missing-2')}`}, NO_HOME)
    assert.equal(a.context, 'ctx-b')
    assert.deepEqual(a.files, [b])
  })

  it('fails when every file in KUBECONFIG is missing, listing them', () => {
    const m1 = tmp.path('gone-1')
    const m2 = tmp.path('gone-2')
    assert.throws(
      () => loadKubeConfig({}, {KUBECONFIG: `${m1}:${m2}`}, NO_HOME),
      (e: unknown) => e instanceof UsageError && e.message.includes(m1) && e.message.includes(m2),
    )
  })

  it('treats an empty file as an empty config', () => {
    const empty = file('')
    const b = file(single('ctx-b', 'https://192.168.0.2:6443'))
    assert.equal(loadKubeConfig({}, {KUBECONFIG: `${empty}:${b}`}, NO_HOME).context, 'ctx-b')
  })

  it('differs from client-node loadFromDefault, which rejects a name defined twice (why we merge ourselves)', () => {
    const first = file(single('dup', 'https://192.168.0.1:6443'))
    const second = file(single('dup', 'https://192.168.0.2:6443'))
    const saved = process.env.KUBECONFIG
    process.env.KUBECONFIG = `${first}:${second}`
    try {
      assert.throws(() => new KubeConfig().loadFromDefault(), /Duplicate/)
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG
      else process.env.KUBECONFIG = saved
    }
    assert.equal(loadKubeConfig({}, {KUBECONFIG: `${first}:${second}`}, NO_HOME).server, 'https://192.168.0.1:6443')
  })
})

describe('context selection and overrides', () => {
  const multi = file({
    currentContext: 'prod',
    clusters: [
      {name: 'prod', server: 'https://192.168.0.10:6443', caFile: 'ca.crt', tlsServerName: 'api.prod'},
      {name: 'staging', server: 'https://192.168.0.20:6443/'},
    ],
    users: [
      {name: 'admin', token: 'admin-token'},
      {name: 'sso', exec: {command: 'kubelogin', args: ['get-token']}},
    ],
    contexts: [
      {name: 'prod', cluster: 'prod', user: 'admin', namespace: 'payments'},
      {name: 'staging', cluster: 'staging', user: 'sso'},
      {name: 'broken', cluster: 'no-such-cluster', user: 'admin'},
    ],
  })
  writeFileSync(tmp.path('ca.crt'), 'not really a CA, only needs to exist')

  it('uses current-context and its namespace; -n overrides; default is "default"', () => {
    const a = loadKubeConfig({}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(a.context, 'prod')
    assert.equal(a.namespace, 'payments')
    assert.equal(loadKubeConfig({namespace: 'kube-system'}, {KUBECONFIG: multi}, NO_HOME).namespace, 'kube-system')
    assert.equal(loadKubeConfig({context: 'staging'}, {KUBECONFIG: multi}, NO_HOME).namespace, 'default')
  })

  it('--context switches context; a trailing slash on server is dropped', () => {
    const a = loadKubeConfig({context: 'staging'}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(a.server, 'https://192.168.0.20:6443')
    assert.equal(a.user, 'sso')
    assert.deepEqual(a.kc.getCurrentUser()?.exec?.args, ['get-token'])
  })

  it('an unknown --context is a usage error listing the available contexts', () => {
    assert.throws(
      () => loadKubeConfig({context: 'nope'}, {KUBECONFIG: multi}, NO_HOME),
      (e: unknown) => e instanceof UsageError && /context "nope" does not exist/.test(e.message) && e.hint === 'Available contexts: broken, prod, staging.',
    )
  })

  it('a current-context that names no context is a usage error naming the file', () => {
    const f = file({...single('x', 'https://192.168.0.1:6443'), currentContext: 'ghost'})
    assert.throws(() => loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME), (e: unknown) => e instanceof UsageError && e.message.includes('"ghost"') && e.message.includes(f))
  })

  it('a context referring to a missing cluster is a usage error', () => {
    assert.throws(() => loadKubeConfig({context: 'broken'}, {KUBECONFIG: multi}, NO_HOME), /cluster "no-such-cluster" of context "broken" does not exist/)
  })

  it('--cluster and --user replace the context\'s', () => {
    const a = loadKubeConfig({cluster: 'staging', user: 'sso'}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(a.context, 'prod')
    assert.equal(a.server, 'https://192.168.0.20:6443')
    assert.equal(a.kc.getCurrentUser()?.exec?.command, 'kubelogin')
    assert.throws(() => loadKubeConfig({cluster: 'nope'}, {KUBECONFIG: multi}, NO_HOME), (e: unknown) => e instanceof UsageError && e.hint === 'Available clusters: prod, staging.')
    assert.throws(() => loadKubeConfig({user: 'nope'}, {KUBECONFIG: multi}, NO_HOME), /user "nope" does not exist/)
  })

  it('--server replaces the server and, like kubectl, drops the kubeconfig tls-server-name', () => {
    const before = loadKubeConfig({}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(before.kc.getCurrentCluster()?.tlsServerName, 'api.prod')
    const a = loadKubeConfig({server: 'https://192.168.0.99:443'}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(a.server, 'https://192.168.0.99:443')
    assert.equal(a.kc.getCurrentCluster()?.tlsServerName, undefined)
    assert.equal(a.kc.getCurrentCluster()?.caFile, tmp.path('ca.crt'))
  })

  it('--insecure-skip-tls-verify turns verification off and drops the CA', () => {
    const a = loadKubeConfig({'insecure-skip-tls-verify': true}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(a.kc.getCurrentCluster()?.skipTLSVerify, true)
    assert.equal(a.kc.getCurrentCluster()?.caFile, undefined)
    assert.equal(loadKubeConfig({'insecure-skip-tls-verify': false}, {KUBECONFIG: multi}, NO_HOME).kc.getCurrentCluster()?.skipTLSVerify, false)
  })

  it('--token replaces the user\'s credentials, exec plugin included', () => {
    const a = loadKubeConfig({context: 'staging', token: 'flag-token'}, {KUBECONFIG: multi}, NO_HOME)
    assert.equal(a.kc.getCurrentUser()?.token, 'flag-token')
    assert.equal(a.kc.getCurrentUser()?.exec, undefined)
    assert.equal(a.credentialSource, 'the --token bearer token', 'a 401 then names the token, not the kubeconfig user')
    assert.equal(loadKubeConfig({context: 'staging'}, {KUBECONFIG: multi}, NO_HOME).credentialSource, undefined)
  })

  it('--server and --token work without any kubeconfig file, as with kubectl', () => {
    const a = loadKubeConfig({server: 'https://192.168.0.5:6443', token: 't'}, {KUBECONFIG: tmp.path('absent')}, NO_HOME)
    assert.equal(a.server, 'https://192.168.0.5:6443')
    assert.equal(a.kc.getCurrentUser()?.token, 't')
    assert.equal(a.namespace, 'default')
  })

  it('a file without current-context and no --context is a usage error listing contexts', () => {
    const f = file({...single('only', 'https://192.168.0.1:6443'), currentContext: undefined})
    assert.throws(() => loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME), (e: unknown) => e instanceof UsageError && e.hint === 'Pass --context. Available contexts: only.')
  })
})

describe('paths inside kubeconfig files', () => {
  it('resolves certificate, key, token-file and exec paths against the file that names them', () => {
    const dir = tmp.path('nested', 'dir')
    mkdirSync(join(dir, 'pki'), {recursive: true})
    for (const f of ['ca.crt', 'client.crt', 'client.key', 'token']) writeFileSync(join(dir, 'pki', f), f === 'token' ? 'file-token\n' : 'x')
    const f = writeKubeconfig(join(dir, 'config'), {
      currentContext: 'c',
      clusters: [{name: 'c', server: 'https://192.168.0.1:6443', caFile: 'pki/ca.crt'}],
      users: [
        {name: 'cert', clientCertificate: 'pki/client.crt', clientKey: 'pki/client.key'},
        {name: 'tokenfile', tokenFile: 'pki/token'},
        {name: 'relexec', exec: {command: './bin/get-token'}},
        {name: 'pathexec', exec: {command: 'aws'}},
      ],
      contexts: [{name: 'c', cluster: 'c', user: 'cert'}],
    })
    const a = loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME)
    assert.equal(a.kc.getCurrentCluster()?.caFile, join(dir, 'pki', 'ca.crt'))
    assert.equal(a.kc.getCurrentUser()?.certFile, join(dir, 'pki', 'client.crt'))
    assert.equal(a.kc.getCurrentUser()?.keyFile, join(dir, 'pki', 'client.key'))
    assert.equal(loadKubeConfig({user: 'tokenfile'}, {KUBECONFIG: f}, NO_HOME).kc.getCurrentUser()?.token, 'file-token\n')
    assert.equal(loadKubeConfig({user: 'relexec'}, {KUBECONFIG: f}, NO_HOME).kc.getCurrentUser()?.exec?.command, join(dir, 'bin', 'get-token'))
    assert.equal(loadKubeConfig({user: 'pathexec'}, {KUBECONFIG: f}, NO_HOME).kc.getCurrentUser()?.exec?.command, 'aws')
  })

  it('a referenced certificate that does not exist is a usage error naming it', () => {
    const f = file({...single('c', 'https://192.168.0.1:6443'), users: [{name: 'c-user', clientCertificate: '/nonexistent/client.crt', clientKey: '/nonexistent/client.key'}]})
    assert.throws(() => loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME), (e: unknown) => e instanceof UsageError && e.message.includes('/nonexistent/client.crt'))
  })
})

describe('malformed kubeconfig files', () => {
  it('reports invalid YAML with the file and line', () => {
    const f = file('apiVersion: v1\nclusters:\n- name: a\n  cluster:\n    server: [unclosed\ncontexts: []\n')
    assert.throws(
      () => loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME),
      (e: unknown) => e instanceof InputError && e.file === f && typeof e.line === 'number' && e.message.startsWith(`${f}:${e.line}: invalid kubeconfig YAML`),
    )
  })

  it('reports a malformed file even when it is not the one that holds the context', () => {
    const good = file(single('good', 'https://192.168.0.1:6443'))
    const bad = file('kind: Config\n\tclusters: []\n')
    assert.throws(() => loadKubeConfig({}, {KUBECONFIG: `${good}:${bad}`}, NO_HOME), (e: unknown) => e instanceof InputError && e.file === bad && e.line === 2)
  })

  it('reports a wrongly shaped section with its line', () => {
    const f = file('apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n  name: a\n')
    assert.throws(() => loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME), (e: unknown) => e instanceof InputError && e.line === 5 && /clusters must be a list/.test(e.message))
  })

  it('rejects a cluster without a server when it is the one in use', () => {
    const f = file('current-context: a\nclusters:\n- name: a\n  cluster: {}\ncontexts:\n- name: a\n  context: {cluster: a}\n')
    assert.throws(() => loadKubeConfig({}, {KUBECONFIG: f}, NO_HOME), /cluster "a" has no server defined/)
  })
})

describe('in-cluster fallback', () => {
  it('uses the pod service account when no kubeconfig exists and the service env is set', () => {
    const root = tmp.path('sa-root')
    const sa = join(root, 'var/run/secrets/kubernetes.io/serviceaccount')
    mkdirSync(sa, {recursive: true})
    writeFileSync(join(sa, 'token'), 'sa-token')
    writeFileSync(join(sa, 'namespace'), 'node-doctor\n')
    writeFileSync(join(sa, 'ca.crt'), 'x')
    const env = {KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443'}
    const a = loadKubeConfig({}, env, NO_HOME, root)
    assert.equal(a.server, 'https://[fd00::1]:443')
    assert.equal(a.namespace, 'node-doctor')
    assert.equal(a.kc.getCurrentCluster()?.caFile, join(sa, 'ca.crt'))
    assert.throws(() => loadKubeConfig({}, {}, NO_HOME, root), UsageError)
  })
})

describe('--request-timeout (client-go ParseTimeout)', () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['5', 5000],
    ['1s', 1000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['2h', 7_200_000],
    ['1.5s', 1500],
    ['.5m', 30_000],
    ['250us', 1],
    ['0s', 0],
    ['1h2m3s4ms', 3_723_004],
  ]
  for (const [input, ms] of cases) {
    it(`"${input}" is ${ms} ms`, () => assert.equal(parseRequestTimeout(input), ms))
  }
  for (const bad of ['', 'abc', '1.5', '-5', '-1s', '5 s', '1d', 's']) {
    it(`rejects "${bad}" as a usage error`, () =>
      assert.throws(() => parseRequestTimeout(bad), (e: unknown) => e instanceof UsageError && e.message.includes(`"${bad}"`)))
  }
  it('is applied by loadKubeConfig', () => {
    const f = file(single('t', 'https://192.168.0.1:6443'))
    assert.equal(loadKubeConfig({'request-timeout': '2m'}, {KUBECONFIG: f}, NO_HOME).requestTimeoutMs, 120_000)
    assert.throws(() => loadKubeConfig({'request-timeout': 'soon'}, {KUBECONFIG: f}, NO_HOME), UsageError)
  })
})
