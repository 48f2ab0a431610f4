// Component configuration stored in a ConfigMap
import {isMap, isScalar, type Node as YamlNode, Scalar} from 'yaml'
import {ParseError} from '../../../errors.js'
import {type LoadedDocument, nodeLine} from './yaml.js'


/** A configuration document found in a ConfigMap's data. */
export interface ConfigMapDocument {
  key: string
  name?: string
  namespace?: string
  text: string
  /**
   * Add to a line of `text` to get the line in the ConfigMap file; defined only for `|` block values, whose
   * lines map one to one. Quoted values (`-o json`) have no such mapping.
   */
  lineOffset?: number
  /** Line of the data key in the ConfigMap file. */
  keyLine?: number
}

/**
 * If `loaded` is a ConfigMap, returns its data entry holding the wanted document: the first of `keys` whose
 * value passes `wanted`, else any value that passes. Returns undefined when the document is not a ConfigMap;
 * throws ParseError when it is one without a matching entry.
 */
export function configMapDocument(
  loaded: LoadedDocument,
  keys: readonly string[],
  wanted: (text: string) => boolean,
  what: string,
  hint?: string,
): ConfigMapDocument | undefined {
  const root = loaded.doc.contents as YamlNode | null
  const get = (node: YamlNode | null | undefined, key: string): YamlNode | undefined => {
    if (!isMap(node)) return undefined
    const p = node.items.find((i) => isScalar(i.key) && i.key.value === key)
    return (p?.value ?? undefined) as YamlNode | undefined
  }
  const str = (n: YamlNode | undefined): string | undefined => (isScalar(n) && typeof n.value === 'string' ? n.value : undefined)
  if (str(get(root, 'kind')) !== 'ConfigMap') return undefined
  const metadata = get(root, 'metadata')
  const name = str(get(metadata, 'name'))
  const namespace = str(get(metadata, 'namespace'))
  const data = get(root, 'data')
  if (!isMap(data)) throw new ParseError(`ConfigMap ${name ?? ''} has no data`, nodeLine(root, loaded.lines) ?? 1)
  const entries = data.items
    .filter((p) => isScalar(p.key) && isScalar(p.value) && typeof p.value.value === 'string')
    .map((p) => ({key: String((p.key as Scalar).value), node: p.value as Scalar, keyNode: p.key as YamlNode}))
  const chosen = keys.map((k) => entries.find((e) => e.key === k)).find((e) => e !== undefined && wanted(String(e.node.value))) ?? entries.find((e) => wanted(String(e.node.value)))
  if (!chosen) {
    throw new ParseError(
      `ConfigMap ${name ?? ''} holds no ${what} (keys: ${entries.map((e) => e.key).join(', ') || 'none'})${hint ? `; ${hint}` : ''}`,
      nodeLine(data, loaded.lines) ?? 1,
    )
  }
  const out: ConfigMapDocument = {key: chosen.key, text: String(chosen.node.value)}
  if (name !== undefined) out.name = name
  if (namespace !== undefined) out.namespace = namespace
  const keyLine = nodeLine(chosen.keyNode, loaded.lines)
  if (keyLine !== undefined) out.keyLine = keyLine
  // A literal block's content starts on the line after its `|` header.
  if (chosen.node.type === Scalar.BLOCK_LITERAL) out.lineOffset = nodeLine(chosen.node, loaded.lines) ?? 0
  return out
}

/** Re-throws a ParseError from the embedded document with a line of the ConfigMap file. */
export function configMapParseError(err: ParseError, doc: ConfigMapDocument): ParseError {
  if (doc.lineOffset !== undefined) return new ParseError(`data.${doc.key}: ${err.message}`, err.line === undefined ? undefined : err.line + doc.lineOffset)
  return new ParseError(`data.${doc.key} line ${err.line ?? '?'}: ${err.message}`, doc.keyLine)
}
