#!/usr/bin/env node
// The CLI is TypeScript run through tsx's loader, so the package needs no build step.
import { register } from 'tsx/esm/api'
register()
await import('../src/cli.ts')
