// JSON from outside (bundles, agent documents, node files) read with bounds: a depth limit checked by a linear
// scan before JSON.parse (V8's parser recurses: a 2 KB document nested 100k deep is a fatal stack overflow,
// not an exception), and errors that say what was read. Used at the boundaries, not inside each parser.
import {limits} from './limits.js'

export class DocumentTooDeepError extends Error {}

/** The deepest nesting of [ and { outside strings, stopping early once it passes `max`. Linear. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * The deepest nesting of a YAML text, approximated from above without parsing: flow brackets outside quotes plus
 * block indentation levels (every 1+ columns of indentation can open one level; "- " list items too). Linear.
 */
export function yamlDepthExceeds(text: string, max: number): boolean {
  if (jsonDepthExceeds(text.replace(/#[^\n]*/g, ''), max)) return true
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    let indent = 0
    let dashes = 0
    for (let i = start; i < end; i++) {
      const ch = text[i]
      if (ch === ' ') indent++
      else if (ch === '-' && text[i + 1] === ' ') {
        dashes++
        i++
        indent++
      } else break
    }
    // Indentation of 2 per level is the norm; count generously (1 per level would be 2x more permissive).
    if (Math.floor(indent / 2) + dashes > max * 2) return true
    start = end + 1
  }
  return false
}

/** JSON.parse with the depth limit (limits().documentDepth unless given). Throws DocumentTooDeepError or SyntaxError. */
export function parseJsonBounded(text: string, maxDepth = limits().documentDepth): unknown {
  if (jsonDepthExceeds(text, maxDepth)) throw new DocumentTooDeepError(`it is nested more than ${maxDepth} levels deep (NODE_DOCTOR_MAX_DOCUMENT_DEPTH)`)
  return JSON.parse(text) as unknown
}
