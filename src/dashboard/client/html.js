// htm bound to preact: tagged templates instead of JSX, so the page needs no build step.
import { h } from 'preact'
import htm from 'htm'

export const html = htm.bind(h)
