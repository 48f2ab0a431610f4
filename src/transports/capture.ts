// Output capture shared by the node transports (SSH channels, debug-pod exec streams).
import {StringDecoder} from 'node:string_decoder'

/**
 * Decodes a stream's chunks as they arrive (the Buffers can be collected at once) and joins the pieces once
 * at the end: about 2x the payload at peak instead of 3x for chunks + concat + string. `push` returns false
 * once `max` bytes would be exceeded.
 */
const TAIL = 256

export class Capture {
  private parts: string[] = []
  private readonly decoder = new StringDecoder('utf8')
  size = 0
  cut = false

  constructor(private readonly max: number) {}

  /** The last characters decoded (for end markers). */
  private tail = ''

  push(b: Buffer): boolean {
    if (this.cut) return false
    if (this.size + b.length > this.max) {
      this.cut = true
      return false
    }
    const piece = this.decoder.write(b)
    this.parts.push(piece)
    this.tail = (this.tail + piece.slice(-TAIL)).slice(-TAIL)
    this.size += b.length
    return true
  }

  /** Whether what was decoded so far ends with `marker` (at most 256 characters). */
  endsWith(marker: string): boolean {
    return this.tail.endsWith(marker)
  }

  text(): string {
    this.parts.push(this.decoder.end())
    const s = this.parts.join('')
    this.parts = []
    return s
  }
}

/** stderr is diagnostics: a few MiB at most, whatever stdout may hold. */
export function stderrCap(max: number): number {
  return Math.min(max, 4 * 1024 * 1024)
}
