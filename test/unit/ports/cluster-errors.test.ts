// clusterErrorFor is the single mapping from a failed request to what the user reads; describeRequest names
// requests the way `kubectl auth can-i` takes them. Pure functions: synthetic failures, no sockets.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {type ApiRequest, describeRequest} from '../../../src/ports/cluster.js'
import {type RequestTarget, clusterErrorFor} from '../../../src/transports/kube/client.js'

const SERVER = 'https://192.168.0.1:6443'
const target = (request?: ApiRequest, noUser = false): RequestTarget => ({
  server: SERVER,
  context: 'prod',
  ...(noUser ? {} : {user: 'admin'}),
  ...(request ? {request} : {}),
})
const listServices: ApiRequest = {verb: 'list', resource: 'services', group: ''}
const sysErr = (code: string, message: string, extra: Record<string, string> = {}) => Object.assign(new Error(message), {code, ...extra})

describe('describeRequest', () => {
  it('prints verb, qualified resource, subresource, name and namespace', () => {
    assert.equal(describeRequest(listServices), 'list services')
    assert.equal(describeRequest({verb: 'list', resource: 'daemonsets', group: 'apps', namespace: 'kube-system'}), 'list daemonsets.apps -n kube-system')
    assert.equal(describeRequest({verb: 'get', resource: 'nodes', group: '', subresource: 'proxy', name: 'node-a'}), 'get nodes/proxy node-a')
    assert.equal(describeRequest({verb: 'get', resource: '', group: '', path: '/version'}), 'get /version')
  })
})

describe('clusterErrorFor', () => {
  it('connection refused and DNS failures: "cannot reach the API server at URL: cause"', () => {
    const refused = clusterErrorFor({type: 'network', error: sysErr('ECONNREFUSED', 'connect ECONNREFUSED 192.168.0.1:6443')}, target(listServices))
    assert.equal(refused.kind, 'unreachable')
    assert.equal(refused.message, `cannot reach the API server at ${SERVER}: connection refused`)
    assert.equal(refused.exitCode, 4)
    assert.deepEqual(refused.request, listServices)
    const dns = clusterErrorFor({type: 'network', error: sysErr('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example', {hostname: 'api.example'})}, target())
    assert.equal(dns.message, `cannot reach the API server at ${SERVER}: cannot resolve host api.example`)
    const reset = clusterErrorFor({type: 'network', error: sysErr('ECONNRESET', 'socket hang up')}, target())
    assert.equal(reset.message, `cannot reach the API server at ${SERVER}: socket hang up`)
  })

  it('TLS failures are their own kind with a CA or tls-server-name hint', () => {
    const selfSigned = clusterErrorFor({type: 'network', error: sysErr('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')}, target())
    assert.equal(selfSigned.kind, 'tls')
    assert.equal(selfSigned.message, `cannot reach the API server at ${SERVER}: TLS: self-signed certificate`)
    assert.match(selfSigned.hint!, /--insecure-skip-tls-verify/)
    const altName = clusterErrorFor({type: 'network', error: sysErr('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")}, target())
    assert.equal(altName.kind, 'tls')
    assert.match(altName.hint!, /tls-server-name/)
  })

  it('timeouts name the limit', () => {
    const t = clusterErrorFor({type: 'timeout', timeoutMs: 2000}, target(listServices))
    assert.equal(t.kind, 'timeout')
    assert.equal(t.message, `cannot reach the API server at ${SERVER}: no response within 2s (--request-timeout)`)
    const c = clusterErrorFor({type: 'connect-timeout', timeoutMs: 30_000}, target())
    assert.equal(c.kind, 'unreachable')
    assert.equal(c.message, `cannot reach the API server at ${SERVER}: could not connect within 30s`)
  })

  it('401 names the user and context, or says there are no credentials', () => {
    const body = JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401})
    const e = clusterErrorFor({type: 'response', statusCode: 401, body}, target(listServices))
    assert.equal(e.kind, 'unauthorized')
    assert.equal(e.message, `the API server at ${SERVER} rejected the credentials of user "admin" (context "prod"): Unauthorized`)
    const anon = clusterErrorFor({type: 'response', statusCode: 401, body}, target(listServices, true))
    assert.equal(anon.message, `the API server at ${SERVER} rejected the credentials of context "prod", which has no user credentials: Unauthorized`)
    // --token replaces the kubeconfig user's credentials: the message names the token, not "no user credentials".
    const tok = clusterErrorFor({type: 'response', statusCode: 401, body}, {...target(listServices, true), credentialSource: 'the --token bearer token'})
    assert.equal(tok.message, `the API server at ${SERVER} rejected the credentials of the --token bearer token (context "prod"): Unauthorized`)
  })

  it('403 keeps the server message and carries the request; without a Status it is synthesised', () => {
    const message = 'services is forbidden: User "bob" cannot list resource "services" in API group "" at the cluster scope'
    const body = JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: 'Forbidden', code: 403})
    const e = clusterErrorFor({type: 'response', statusCode: 403, body}, target(listServices))
    assert.equal(e.kind, 'status')
    assert.ok(e.forbidden)
    assert.equal(e.message, message)
    assert.deepEqual(e.status, {code: 403, reason: 'Forbidden', message})
    assert.equal(e.hint, 'node-doctor needs permission to list services; ask a cluster admin (check: kubectl auth can-i list services --all-namespaces).')
    const bare = clusterErrorFor({type: 'response', statusCode: 403, body: 'Forbidden'}, target({verb: 'get', resource: 'nodes', group: '', subresource: 'proxy', name: 'node-a'}))
    assert.equal(bare.message, 'forbidden: cannot get resource "nodes/proxy" in API group "" at the cluster scope')
    // Nodes belong to no namespace: the check command takes no --all-namespaces.
    assert.equal(bare.hint, 'node-doctor needs permission to get nodes/proxy node-a; ask a cluster admin (check: kubectl auth can-i get nodes/proxy).')
    const ns = clusterErrorFor({type: 'response', statusCode: 403, body: ''}, target({verb: 'list', resource: 'pods', group: '', namespace: 'kube-system'}))
    assert.equal(ns.message, 'forbidden: cannot list resource "pods" in API group "" in the namespace "kube-system"')
  })

  it('other statuses keep code and reason; a non-Status body is quoted', () => {
    const e = clusterErrorFor({type: 'response', statusCode: 503, body: '<html>upstream unavailable</html>'}, target(listServices))
    assert.equal(e.kind, 'status')
    assert.deepEqual(e.status, {code: 503, message: '503 Service Unavailable: <html>upstream unavailable</html>'})
    assert.equal(e.forbidden, false)
  })

  it('credential plugin failures say which plugin and what it printed', () => {
    const missing = clusterErrorFor(
      {type: 'credentials', error: sysErr('ENOENT', 'spawn kubelogin ENOENT', {syscall: 'spawn kubelogin'}), command: 'kubelogin'},
      target(),
    )
    assert.equal(missing.kind, 'credentials')
    assert.equal(missing.message, 'cannot get credentials for user "admin" (context "prod"): exec plugin "kubelogin" was not found')
    const failed = clusterErrorFor({type: 'credentials', error: new Error('error: login required\n'), command: 'kubelogin'}, target())
    assert.equal(failed.message, 'cannot get credentials for user "admin" (context "prod"): exec plugin "kubelogin" failed: error: login required')
  })
})
