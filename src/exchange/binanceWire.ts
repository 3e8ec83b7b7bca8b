import type { BookTop, ExchangeSymbol, TapeTrade } from './referencePrice.js'

/**
 * Binance's public spot market data as its docs show it (docs/exchange.md cites each page):
 * every price and quantity a decimal string, times in ms. Pure: one function per message.
 */

const fixed = (value: number, decimals: number) => value.toFixed(decimals)
const PRICE = 8
const QTY = 8

/** GET /api/v3/ticker/bookTicker: `{ symbol, bidPrice, bidQty, askPrice, askQty }`. */
export function restBookTicker(top: BookTop) {
  return { symbol: top.symbol, bidPrice: fixed(top.bid, PRICE), bidQty: fixed(top.bidQty, QTY), askPrice: fixed(top.ask, PRICE), askQty: fixed(top.askQty, QTY) }
}

/** GET /api/v3/ticker/price: `{ symbol, price }` (the last trade's price: here the mid's bid side). */
export function restPrice(top: BookTop) {
  return { symbol: top.symbol, price: fixed(top.bid, PRICE) }
}

/** GET /api/v3/depth: the best level each side (the emulated book has one). */
export function restDepth(top: BookTop) {
  return { lastUpdateId: top.tick, bids: [[fixed(top.bid, PRICE), fixed(top.bidQty, QTY)]], asks: [[fixed(top.ask, PRICE), fixed(top.askQty, QTY)]] }
}

/** GET /api/v3/ticker/24hr, from the book now and the book a day before (or at the start). */
export function rest24hr(now: BookTop, dayAgo: BookTop, openTime: number, closeTime: number, trades: { first: number; last: number; count: number; volume: number }) {
  const change = now.bid - dayAgo.bid
  return {
    symbol: now.symbol,
    priceChange: fixed(change, PRICE),
    priceChangePercent: fixed((change / dayAgo.bid) * 100, 3),
    weightedAvgPrice: fixed((now.bid + dayAgo.bid) / 2, PRICE),
    prevClosePrice: fixed(dayAgo.bid, PRICE),
    lastPrice: fixed(now.bid, PRICE),
    lastQty: fixed(now.bidQty, QTY),
    bidPrice: fixed(now.bid, PRICE),
    bidQty: fixed(now.bidQty, QTY),
    askPrice: fixed(now.ask, PRICE),
    askQty: fixed(now.askQty, QTY),
    openPrice: fixed(dayAgo.bid, PRICE),
    highPrice: fixed(Math.max(now.ask, dayAgo.ask), PRICE),
    lowPrice: fixed(Math.min(now.bid, dayAgo.bid), PRICE),
    volume: fixed(trades.volume, QTY),
    quoteVolume: fixed(trades.volume * now.mid, PRICE),
    openTime,
    closeTime,
    firstId: trades.first,
    lastId: trades.last,
    count: trades.count,
  }
}

/** One symbol of GET /api/v3/exchangeInfo, with the filters a client library reads for precision. */
export function exchangeInfoSymbol(s: ExchangeSymbol) {
  const step = (decimals: number) => fixed(10 ** -decimals, 8)
  return {
    symbol: s.symbol,
    status: 'TRADING',
    baseAsset: s.baseAsset,
    baseAssetPrecision: 8,
    quoteAsset: s.quoteAsset,
    quotePrecision: 8,
    quoteAssetPrecision: 8,
    baseCommissionPrecision: 8,
    quoteCommissionPrecision: 8,
    orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
    icebergAllowed: true,
    ocoAllowed: true,
    otoAllowed: true,
    quoteOrderQtyMarketAllowed: true,
    allowTrailingStop: true,
    cancelReplaceAllowed: true,
    isSpotTradingAllowed: true,
    isMarginTradingAllowed: true,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: step(s.priceDecimals), maxPrice: '1000000.00000000', tickSize: step(s.priceDecimals) },
      { filterType: 'LOT_SIZE', minQty: step(s.quantityDecimals), maxQty: '9000.00000000', stepSize: step(s.quantityDecimals) },
      { filterType: 'NOTIONAL', minNotional: '5.00000000', applyMinToMarket: true, maxNotional: '9000000.00000000', applyMaxToMarket: false, avgPriceMins: 5 },
    ],
    permissions: [],
    permissionSets: [['SPOT', 'MARGIN']],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
  }
}

/** GET /api/v3/exchangeInfo's rate limits, as Binance publishes them. */
export const RATE_LIMITS = [
  { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 },
  { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 100 },
  { rateLimitType: 'ORDERS', interval: 'DAY', intervalNum: 1, limit: 200000 },
  { rateLimitType: 'RAW_REQUESTS', interval: 'MINUTE', intervalNum: 5, limit: 61000 },
]

/** `<symbol>@bookTicker`: `{ u, s, b, B, a, A }` (the update id is the path's tick). */
export function streamBookTicker(top: BookTop) {
  return { u: top.tick, s: top.symbol, b: fixed(top.bid, PRICE), B: fixed(top.bidQty, QTY), a: fixed(top.ask, PRICE), A: fixed(top.askQty, QTY) }
}

/** `<symbol>@miniTicker`: the last 24 h's open, close, high, low (volumes: not modelled, 0). */
export function streamMiniTicker(now: BookTop, dayAgo: BookTop, eventMs: number) {
  return { e: '24hrMiniTicker', E: eventMs, s: now.symbol, c: fixed(now.bid, PRICE), o: fixed(dayAgo.bid, PRICE), h: fixed(Math.max(now.ask, dayAgo.ask), PRICE), l: fixed(Math.min(now.bid, dayAgo.bid), PRICE), v: fixed(0, QTY), q: fixed(0, PRICE) }
}

/** `<symbol>@aggTrade`: one trade per aggregate here (`f` = `l` = its id). */
export function streamAggTrade(trade: TapeTrade, eventMs: number) {
  return { e: 'aggTrade', E: eventMs, s: trade.symbol, a: trade.id, p: fixed(trade.price, PRICE), q: fixed(trade.quantity, QTY), f: trade.id, l: trade.id, T: trade.timeMs, m: trade.buyerIsMaker, M: true }
}

/** `<symbol>@trade`. */
export function streamTrade(trade: TapeTrade, eventMs: number) {
  return { e: 'trade', E: eventMs, s: trade.symbol, t: trade.id, p: fixed(trade.price, PRICE), q: fixed(trade.quantity, QTY), T: trade.timeMs, m: trade.buyerIsMaker, M: true }
}

/** Binance's error body: `{ code, msg }` (-1121 an unknown symbol, -1100 a bad parameter). */
export function restError(code: number, msg: string) {
  return { code, msg }
}
