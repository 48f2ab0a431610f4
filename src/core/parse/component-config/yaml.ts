// Loading YAML/JSON with line numbers
import {type Document, isScalar, LineCounter, parseAllDocuments, type Node as YamlNode} from 'yaml'
import {ParseError} from '../../../errors.js'


export interface LoadedDocument {
  doc: Document.Parsed
  lines: LineCounter
  format: 'yaml' | 'json'
  /** How many non-empty documents the stream held. */
  documentCount: number
}

/**
 * Parses the first non-empty YAML (1.1, as sigs.k8s.io/yaml does) or JSON document of `text`.
 * Throws ParseError with the line of the first syntax error. Returns undefined for an empty stream.
 */
export function loadYaml(text: string): LoadedDocument | undefined {
  const lines = new LineCounter()
  const docs = parseAllDocuments(text, {lineCounter: lines, version: '1.1', uniqueKeys: false, prettyErrors: false})
  const list = Array.isArray(docs) ? docs : []
  for (const d of list) {
    const err = d.errors[0]
    if (err) throw new ParseError(`malformed YAML: ${err.message}`, lines.linePos(err.pos[0]).line)
  }
  const nonEmpty = list.filter((d) => d.contents !== null && !(isScalar(d.contents) && d.contents.value === null))
  const first = nonEmpty[0]
  if (!first) return undefined
  return {doc: first, lines, format: /^\s*[{[]/.test(text) ? 'json' : 'yaml', documentCount: nonEmpty.length}
}

/** The 1-based line where a YAML node starts. */
export function nodeLine(node: YamlNode | null | undefined, lines: LineCounter): number | undefined {
  const start = node?.range?.[0]
  return start === undefined ? undefined : lines.linePos(start).line
}
