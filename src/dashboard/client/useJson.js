// Fetches a JSON path, again whenever `path` or `refresh` changes (a slot ran); keeps the last answer while refetching.
import { useEffect, useState } from 'preact/hooks'
import { getJson } from 'dashboard/api.js'

export function useJson(path, refresh) {
  const [state, setState] = useState({ data: null, error: null })
  useEffect(() => {
    let current = true
    getJson(path).then(
      (data) => current && setState({ data, error: null }),
      (error) => current && setState((old) => ({ data: old.data, error: error.message })),
    )
    return () => {
      current = false
    }
  }, [path, refresh])
  return state
}
