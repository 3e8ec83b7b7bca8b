/** How log records are written: one JSON object a line (for machines), or one short line a person reads (config/humanLog.ts). */
export type LogFormat = 'json' | 'pretty'
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty']
