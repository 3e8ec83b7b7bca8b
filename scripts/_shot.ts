import { chromium } from 'playwright-core'
const [svg, png] = process.argv.slice(2)
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' })
const page = await browser.newPage({ viewport: { width: 800, height: 460 } })
await page.goto('file://' + svg)
await page.screenshot({ path: png })
await browser.close()
