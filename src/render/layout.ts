// Column layout for the human tables, linear in the output size. cli-table3 re-measures and re-splits every cell
// per row and per line, which is quadratic: 20k routes took 88 s and one 55 KB rule in -o wide took 59 s. This
// produces the same text as cli-table3 with a borderless style (cells padded to the column width, joined by the
// gap; multi-line cells padded with empty lines) in one pass.

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g

/** Display width of one line: code points, colour sequences not counted. */
export function displayWidth(line: string): number {
  const plain = line.includes('\u001b') ? line.replace(SGR, '') : line
  let n = 0
  for (let i = 0; i < plain.length; i++) {
    const c = plain.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) i++ // a surrogate pair is one code point
    n++
  }
  return n
}

export interface LayoutOptions {
  /** Between columns (default two spaces). */
  gap?: string
  /** Fixed column widths (cells must already fit); default: the widest line of each column. */
  widths?: readonly number[]
}

/** The table's lines: head (when given) then every row, each cell's lines padded to its column. */
export function layoutColumns(head: readonly string[] | undefined, rows: readonly (readonly string[])[], options: LayoutOptions = {}): string[] {
  const gap = options.gap ?? '  '
  const all = head ? [head, ...rows] : rows
  const columns = all.reduce((m, r) => Math.max(m, r.length), 0)
  const split = all.map((r) => Array.from({length: columns}, (_, k) => (r[k] ?? '').split('\n')))
  const widths =
    options.widths !== undefined
      ? Array.from({length: columns}, (_, k) => options.widths![k] ?? 0)
      : Array.from({length: columns}, (_, k) => split.reduce((w, r) => r[k]!.reduce((m, line) => Math.max(m, displayWidth(line)), w), 0))
  const out: string[] = []
  for (const r of split) {
    const height = r.reduce((m, lines) => Math.max(m, lines.length), 1)
    for (let l = 0; l < height; l++) {
      let line = ''
      for (let k = 0; k < columns; k++) {
        const text = r[k]![l] ?? ''
        line += (k === 0 ? '' : gap) + text + ' '.repeat(Math.max(0, widths[k]! - displayWidth(text)))
      }
      out.push(line)
    }
  }
  return out
}

/**
 * What a borderless cli-table3 table with the header in bold (when `color`) printed, lines trimmed at the end, but
 * linear in the output: the show views' tables (20,000 IPVS real servers took a minute with cli-table3).
 */
export function borderlessTable(head: readonly string[], rows: readonly (readonly string[])[], color: boolean): string[] {
  const columns = Math.max(head.length, rows.reduce((m, r) => Math.max(m, r.length), 0))
  const widths = Array.from({length: columns}, (_, k) =>
    rows.reduce((w, r) => (r[k] ?? '').split('\n').reduce((m, line) => Math.max(m, displayWidth(line)), w), displayWidth(head[k] ?? '')),
  )
  // As cli-table3: each head cell is padded to its column, then styled (the padding inside the bold).
  const cellOf = (h: string, k: number): string => {
    const padded = h + ' '.repeat(Math.max(0, widths[k]! - displayWidth(h)))
    return color ? `\u001b[1m${padded}\u001b[22m` : padded
  }
  const headLine = Array.from({length: columns}, (_, k) => cellOf(head[k] ?? '', k)).join('  ').trimEnd()
  return [headLine, ...layoutColumns(undefined, rows, {widths}).map((l) => l.trimEnd())]
}
