// The Environment of a command reading only files (a trace, a render or a diff of dumps, a show view of a file, an
// analyze of a bundle): input files and bundles, nothing that reaches a cluster or a node. Commands take it instead
// of transports/connect.ts when their arguments name no node, so such a run never loads the SSH and Kubernetes
// client libraries (about 1 s of start-up, most of an offline trace's time). A member that would reach out is a
// BugError: a command that needs one must take connect.ts's environment.
import {readFileSync} from 'node:fs'
import {BugError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import {readInputFile} from './files/input-file.js'

function unavailable(what: string): never {
  throw new BugError(`${what} asked of the offline environment (files only): the command must use transports/connect.ts for this`)
}

export function offlineEnvironment(): Environment {
  return {
    cluster: () => unavailable('the cluster'),
    nodes: () => unavailable('node transports'),
    agents: () => unavailable('the agent API'),
    readInput: readInputFile,
    readFile: (path) => readFileSync(path, 'utf8'),
    readBundle: async (path) => (await import('./bundle/bundle.js')).readBundle(path),
    writeBundle: async (path, bundle) => (await import('./bundle/bundle.js')).writeBundle(path, bundle),
    auditLog: () => unavailable('the audit log'),
    actor: () => unavailable('the repair actor'),
    backupSaver: () => unavailable('backups'),
    stderr: process.stderr,
  }
}
