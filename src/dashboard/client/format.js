// How numbers, hashes and times are written on the page.
const WEI_PER_ETH = 10n ** 18n

/** Decimal wei as ETH with up to 6 decimals ("0.000042 ETH"); tiny amounts in gwei or wei. */
export function eth(wei) {
  if (wei === null || wei === undefined) return '—'
  const value = BigInt(wei)
  const negative = value < 0n
  const abs = negative ? -value : value
  if (abs !== 0n && abs < 10n ** 12n) return `${negative ? '-' : ''}${abs < 10n ** 6n ? `${abs} wei` : `${trim(abs, 9n)} gwei`}`
  return `${negative ? '-' : ''}${trim(abs, 18n)} ETH`
}

/** A count with its noun, singular for one ("1 bundle", "3 bundles"). */
export function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function trim(abs, decimals) {
  const unit = 10n ** decimals
  const whole = abs / unit
  const fraction = (abs % unit).toString().padStart(Number(decimals), '0').slice(0, 6).replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : `${whole}`
}

export const short = (hash) => (hash ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : '—')

export const time = (unixSeconds) => (unixSeconds === null || unixSeconds === undefined ? '—' : new Date(unixSeconds * 1000).toISOString().replace('T', ' ').replace('.000Z', 'Z'))

export const gas = (value) => Number(value).toLocaleString('en-US')

/** The bundle life order (`protocol/bundleStates.ts`); the colour of each state's pill and chart series. */
export const STATES = ['Received', 'Invalid', 'SimulationFail', 'SimulationPass', 'ExcludedFromBlock', 'IncludedInBlock', 'Submitted', 'Landed']
export const STATE_COLOURS = {
  Received: '#8a94a6',
  Invalid: '#7a4b94',
  SimulationFail: '#d64545',
  SimulationPass: '#e0a020',
  ExcludedFromBlock: '#c9752a',
  IncludedInBlock: '#3d8fd1',
  Submitted: '#2a5db0',
  Landed: '#2e9e5b',
}

/** Lines and points of charts that draw one series per participant (builders' bids, searchers' profit). */
export const SERIES_COLOURS = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2']

/** The bundle state (`STATES`' spelling, for the pill's colour) of a status as the wire writes it, whatever its case. */
export const stateOf = (status) => STATES.find((state) => state.toLowerCase() === String(status).toLowerCase()) ?? status
