import type { NextFunction, Request, Response } from 'express'
import { describe, expect, it } from 'vitest'
import { ReadinessGate } from '../src/rpc/readinessGate.js'

/**
 * The readiness gate on its own (test/firstContact.test.ts sees it through the real CLI): held
 * requests go through in order once the harness is up, the harness's own clients pass while it
 * starts, a start that fails answers what it held with 503 and the reason.
 */

interface Held {
  passed: boolean
  status?: number
  body?: { error?: { code: number; message: string } }
}

function request(gate: ReadinessGate, headers: Record<string, string> = {}): Held {
  const held: Held = { passed: false }
  const res = {
    status(code: number) {
      held.status = code
      return this
    },
    json(body: Held['body']) {
      held.body = body
      return this
    },
  }
  const next: NextFunction = () => void (held.passed = true)
  gate.middleware({ headers } as unknown as Request, res as unknown as Response, next)
  return held
}

const settled = () => new Promise((resolve) => setImmediate(resolve))

describe('the readiness gate', () => {
  it('holds requests until the harness is open, then lets them through in the order they came', async () => {
    const gate = new ReadinessGate()
    const order: number[] = []
    const first = request(gate)
    void gate.whenReady().then(() => order.push(1))
    void gate.whenReady().then(() => order.push(2))
    await settled()
    expect(first.passed).toBe(false)
    expect(gate.ready).toBe(false)
    gate.open()
    await settled()
    expect(first.passed).toBe(true)
    expect(order).toEqual([1, 2])
    expect(request(gate).passed).toBe(true) // once open, at once
  })

  it("lets the harness's own clients through while it starts, and nobody with a wrong token", async () => {
    const gate = new ReadinessGate()
    expect(request(gate, { ...gate.clientHeaders }).passed).toBe(true)
    const [name] = Object.keys(gate.clientHeaders)
    const guessed = request(gate, { [name!]: 'guess' })
    await settled()
    expect(guessed.passed).toBe(false)
  })

  it('answers what it held with 503 and the reason when the start fails', async () => {
    const gate = new ReadinessGate()
    const held = request(gate)
    const waiting = gate.whenReady()
    gate.fail('the world file is missing')
    await expect(waiting).rejects.toThrow('bundlesim did not start: the world file is missing')
    await settled()
    expect(held).toMatchObject({ passed: false, status: 503, body: { error: { code: -32000, message: 'bundlesim did not start: the world file is missing' } } })
  })
})
