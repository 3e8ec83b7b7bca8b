import type { SlotReport } from '../protocol/slotReport.js'

/** The slot reports of this run, newest last, at most `capacity` of them (the oldest go first). */
export class SlotLog {
  private readonly reports: SlotReport[] = []

  constructor(private readonly capacity = 10_000) {}

  add(report: SlotReport): void {
    this.reports.push(report)
    if (this.reports.length > this.capacity) this.reports.splice(0, this.reports.length - this.capacity)
  }

  get count(): number {
    return this.reports.length
  }

  get(blockNumber: number): SlotReport | undefined {
    // Block numbers grow along the log (a competitor's or an impersonated block only skips some).
    for (let i = this.reports.length - 1; i >= 0; i--) {
      const report = this.reports[i]!
      if (report.blockNumber === blockNumber) return report
      if (report.blockNumber < blockNumber) return undefined
    }
    return undefined
  }

  byHash(blockHash: string): SlotReport | undefined {
    const wanted = blockHash.toLowerCase()
    return this.reports.find((report) => report.blockHash.toLowerCase() === wanted)
  }

  /** Newest first: `limit` reports with a block number below `before` (all when absent). */
  page(limit: number, before?: number): SlotReport[] {
    const page: SlotReport[] = []
    for (let i = this.reports.length - 1; i >= 0 && page.length < limit; i--) {
      const report = this.reports[i]!
      if (before === undefined || report.blockNumber < before) page.push(report)
    }
    return page
  }
}
