// The agent's result document: one NodeSnapshot, framed so the CLI can find it in a pod log (which may hold other
// lines), tell a finished document from one still being written or cut, and detect corruption.
//
//   -----BEGIN NODE-DOCTOR AGENT DOCUMENT-----
//   Version: 1
//   Node: worker-1
//   Encoding: gzip+base64          (or json: the JSON on one line, for small documents)
//   Length: 48213                  (bytes of the JSON)
//   Sha256: 3f2a...                (of the JSON)
//
//   H4sIAAAAAAAAA+y9a3PbRpY...     (76 characters a line)
//   -----END NODE-DOCTOR AGENT DOCUMENT-----
import {parseJsonBounded} from '../limits/json.js'
import {limitMessage, limits} from '../limits/limits.js'
import {createHash} from 'node:crypto'
import {gunzipSync, gzipSync} from 'node:zlib'
import {type NodeSnapshot, SNAPSHOT_API_VERSION} from '../model/snapshot.js'
import {ParseError} from '../../errors.js'

export const AGENT_DOCUMENT_VERSION = 1
export const BEGIN_MARKER = '-----BEGIN NODE-DOCTOR AGENT DOCUMENT-----'
export const END_MARKER = '-----END NODE-DOCTOR AGENT DOCUMENT-----'
/** Above this many bytes of JSON the payload is gzipped: kubelet rotates container logs at 10 MiB by default. */
export const GZIP_THRESHOLD_BYTES = 64 * 1024
const LINE = 76

export type AgentEncoding = 'json' | 'gzip+base64'

/** A document that is there but unusable: names the node and what is wrong. */
export class AgentDocumentError extends ParseError {
  readonly node: string

  constructor(node: string, detail: string, line?: number) {
    super(`agent document from node ${node}: ${detail}`, line)
    this.name = 'AgentDocumentError'
    this.node = node
  }
}

export function encodeAgentDocument(snapshot: NodeSnapshot, options: {encoding?: AgentEncoding} = {}): string {
  const json = JSON.stringify(snapshot)
  const bytes = Buffer.from(json, 'utf8')
  const encoding = options.encoding ?? (bytes.length > GZIP_THRESHOLD_BYTES ? 'gzip+base64' : 'json')
  const body = encoding === 'json' ? [json] : wrap(gzipSync(bytes, {level: 6}).toString('base64'))
  return [
    BEGIN_MARKER,
    `Version: ${AGENT_DOCUMENT_VERSION}`,
    `Node: ${snapshot.node}`,
    `Encoding: ${encoding}`,
    `Length: ${bytes.length}`,
    `Sha256: ${sha256(bytes)}`,
    '',
    ...body,
    END_MARKER,
    '',
  ].join('\n')
}

export type AgentDocumentScan =
  | {state: 'absent'}
  /** BEGIN without END: still being written, or the log was cut. */
  | {state: 'incomplete'}
  | {state: 'complete'; snapshot: NodeSnapshot}

/**
 * Finds the last complete document in `log` (kubelet log lines, possibly with other output around it) and decodes
 * it. Throws AgentDocumentError, naming `node`, when a document is there but malformed, corrupted, of another
 * version, or about another node.
 */
export function readAgentDocument(log: string, node: string): AgentDocumentScan {
  const lines = log.split('\n').map((l) => l.replace(/\r$/, ''))
  const begin = lines.lastIndexOf(BEGIN_MARKER)
  if (begin < 0) return {state: 'absent'}
  const end = lines.indexOf(END_MARKER, begin + 1)
  if (end < 0) return {state: 'incomplete'}
  const fail = (detail: string, index?: number): never => {
    throw new AgentDocumentError(node, detail, index === undefined ? undefined : index + 1)
  }

  const headers = new Map<string, {value: string; index: number}>()
  let i = begin + 1
  for (; i < end && lines[i] !== ''; i++) {
    const m = /^([A-Za-z0-9-]+): ?(.*)$/.exec(lines[i]!)
    if (!m) fail(`header line "${clip(lines[i]!)}" is not "Name: value"`, i)
    headers.set(m![1]!.toLowerCase(), {value: m![2]!, index: i})
  }
  const header = (name: string): {value: string; index: number} => headers.get(name.toLowerCase()) ?? fail(`the ${name} header is missing`, begin)
  const version = header('Version')
  if (version.value !== String(AGENT_DOCUMENT_VERSION)) {
    fail(`version ${version.value} is not supported (this node-doctor reads version ${AGENT_DOCUMENT_VERSION}): run the agent image that matches the plugin (--image)`, version.index)
  }
  const named = header('Node')
  if (named.value !== node) fail(`it is about node "${named.value}", not "${node}"`, named.index)
  const encoding = header('Encoding')
  const length = header('Length')
  const digest = header('Sha256')
  if (!/^\d+$/.test(length.value)) fail(`Length "${clip(length.value)}" is not a number`, length.index)
  const maxBytes = limits().agentDocumentBytes
  if (Number(length.value) > maxBytes) fail(limitMessage(`the payload (Length ${length.value})`, 'agentDocumentBytes', maxBytes), length.index)

  const body = lines.slice(i + 1, end)
  let bytes: Buffer
  if (encoding.value === 'json') {
    bytes = Buffer.from(body.join('\n'), 'utf8')
  } else if (encoding.value === 'gzip+base64') {
    const text = body.join('')
    const bad = /[^A-Za-z0-9+/=]/.exec(text)
    if (bad) fail(`the payload has a character that is not base64 (${JSON.stringify(bad[0])}): the log was altered`)
    try {
      // Bounded: a gzip bomb stops at the limit instead of inflating into the heap.
      bytes = gunzipSync(Buffer.from(text, 'base64'), {maxOutputLength: maxBytes})
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) fail(limitMessage('the inflated payload', 'agentDocumentBytes', maxBytes))
      fail(`the gzip payload does not decompress (${(err as Error).message}): the log was cut or altered`)
    }
  } else {
    fail(`unknown encoding "${clip(encoding.value)}" (expected json or gzip+base64)`, encoding.index)
  }
  if (bytes!.length !== Number(length.value)) fail(`the payload is ${bytes!.length} bytes, the header says ${length.value}: the log was cut or altered`)
  if (sha256(bytes!) !== digest.value.toLowerCase()) fail('the payload does not match its Sha256 header: the log was altered')

  let parsed: unknown
  try {
    parsed = parseJsonBounded(bytes!.toString('utf8'))
  } catch (err) {
    fail(`the payload is not JSON: ${(err as Error).message}`)
  }
  const s = parsed as Partial<NodeSnapshot> | null
  if (s === null || typeof s !== 'object' || s.kind !== 'NodeSnapshot' || s.apiVersion !== SNAPSHOT_API_VERSION) {
    fail(`the payload is not a ${SNAPSHOT_API_VERSION} NodeSnapshot`)
  }
  if (s!.node !== node) fail(`the snapshot is of node "${String(s!.node)}", not "${node}"`)
  if (typeof s!.artifacts !== 'object' || s!.artifacts === null || !Array.isArray(s!.errors)) fail('the snapshot has no artifacts or errors')
  return {state: 'complete', snapshot: s as NodeSnapshot}
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex')
}

function wrap(s: string): string[] {
  const out: string[] = []
  for (let i = 0; i < s.length; i += LINE) out.push(s.slice(i, i + LINE))
  return out
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}
