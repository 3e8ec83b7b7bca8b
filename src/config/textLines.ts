import { createReadStream } from 'node:fs'
import { Unzip, UnzipInflate } from 'fflate'

/** A text file that cannot be read as lines: missing, or a zip without the entry asked for. */
export class TextFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`)
    this.name = 'TextFileError'
  }
}

/**
 * Reads a text file line by line, streaming, whether plain or zipped as published (Binance's
 * `data.binance.vision` trade files, mempool-dumpster's `.csv.zip`): in a `.zip`, the first entry
 * whose name ends with `entrySuffix` (default `.csv`). `onLine` gets each line without its
 * line ending, and its 1-based number; a line ending in `\r` loses it. Nothing is held in memory
 * but the line being read, so a day of trades (hundreds of MB unzipped) reads in constant memory.
 *
 * @example
 * await readTextLines('ETHUSDT-aggTrades-2025-11-01.zip', (line, n) => console.log(n, line))
 */
export async function readTextLines(file: string, onLine: (line: string, lineNumber: number) => void, entrySuffix = '.csv'): Promise<void> {
  let rest = ''
  let lineNumber = 0
  const decoder = new TextDecoder()
  const take = (text: string, final: boolean) => {
    rest += text
    let start = 0
    for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
      const line = rest.slice(start, end)
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line, ++lineNumber)
      start = end + 1
    }
    rest = rest.slice(start)
    if (final && rest.length > 0) onLine(rest.endsWith('\r') ? rest.slice(0, -1) : rest, ++lineNumber)
  }
  const stream = createReadStream(file)
  try {
    if (!file.toLowerCase().endsWith('.zip')) {
      for await (const chunk of stream) take(decoder.decode(chunk as Buffer, { stream: true }), false)
      take(decoder.decode(), true)
      return
    }
    let found = false
    let failure: Error | null = null
    const unzip = new Unzip((entry) => {
      if (found || !entry.name.endsWith(entrySuffix)) return
      found = true
      entry.ondata = (error, data, final) => {
        if (error) failure = new TextFileError(file, `cannot unzip ${entry.name}: ${error.message}`)
        else {
          try {
            take(decoder.decode(data, { stream: !final }), final)
          } catch (thrown) {
            failure = thrown as Error
          }
        }
      }
      entry.start()
    })
    unzip.register(UnzipInflate)
    for await (const chunk of stream) {
      unzip.push(chunk as Buffer)
      if (failure) throw failure
    }
    unzip.push(new Uint8Array(0), true)
    if (failure) throw failure
    if (!found) throw new TextFileError(file, `the zip holds no entry ending in ${entrySuffix}`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new TextFileError(file, 'no such file')
    throw error
  } finally {
    stream.destroy()
  }
}
